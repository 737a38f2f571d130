//! What a deleted account leaves behind at the tables. Deleting an account is one transaction in
//! the account service (the account can no longer log in, its tokens, tickets, webhooks and
//! notifications are gone); giving up its seats in matches not yet started comes after, one
//! match at a time under that match's lock. Should a process stop between the two, the seats
//! are given up later: every process looks for deleted accounts still seated in open matches
//! when it starts and then every [`LOOK_EVERY`].

use std::sync::Arc;
use std::time::Duration;

use super::{MatchError, Matches};

/// How often each process looks for seats that deleted accounts still hold.
pub const LOOK_EVERY: Duration = Duration::from_secs(60);

impl Matches {
    /// Gives up every seat `account_id` holds in matches that have not started (an account
    /// being deleted). A match that starts meanwhile keeps its seat, which resigns.
    pub async fn leave_open_matches(&self, account_id: &str) -> Result<(), MatchError> {
        for match_id in self.db.open_matches_of(account_id).await? {
            match self.leave(&match_id, account_id).await {
                Ok(()) | Err(MatchError::MatchStarted | MatchError::NotSeated) => {}
                // Started meanwhile: the seat is resigned instead, or already out.
                Err(MatchError::Rule(_)) => {}
                Err(other) => return Err(other),
            }
        }
        Ok(())
    }

    /// Gives up the seats of every deleted account that still holds one in a match that has
    /// not started. Returns how many accounts it found.
    pub async fn finish_deletions(&self) -> Result<usize, MatchError> {
        let accounts = self.db.deleted_but_seated().await?;
        for account_id in &accounts {
            self.leave_open_matches(account_id).await?;
        }
        Ok(accounts.len())
    }

    /// Finishes deletions now and every [`LOOK_EVERY`], in the background.
    pub fn keep_finishing_deletions(self: Arc<Self>) {
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(LOOK_EVERY);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                match self.finish_deletions().await {
                    Ok(0) => {}
                    Ok(found) => tracing::info!(found, "seats of deleted accounts given up"),
                    Err(error) => tracing::warn!(%error, "seats of deleted accounts wait"),
                }
            }
        });
    }
}
