//! What a deleted account leaves behind at the tables. Deleting an account is one transaction in
//! the account service (the account can no longer log in, its tokens, tickets, webhooks and
//! notifications are gone); giving up its seats in matches not yet started comes after, one
//! match at a time under that match's lock. Should a process stop between the two, the seats
//! are given up later: every process looks for deleted accounts still seated in open matches
//! when it starts and then every [`LOOK_EVERY`].

use std::sync::Arc;
use std::time::Duration;

use super::access::Player;
use super::refusals::SeatingError;
use super::{MatchError, Matches};
use crate::background::{self, Schedule};

/// How often each process looks for seats that deleted accounts still hold.
pub const LOOK_EVERY: Duration = Duration::from_secs(60);

impl Matches {
    /// Gives up every seat `account_id` holds in matches that have not started (an account
    /// being deleted). A match that starts meanwhile keeps its seat, which resigns.
    pub async fn leave_open_matches(&self, player: Player<'_>) -> Result<(), MatchError> {
        for match_id in self.db.open_matches_of(player.id()).await? {
            match self.leave(&match_id, player).await {
                Ok(())
                | Err(
                    MatchError::Seating(SeatingError::MatchStarted)
                    | MatchError::Seating(SeatingError::NotSeated),
                ) => {}
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
            self.leave_open_matches(Player::new(account_id)).await?;
        }
        Ok(accounts.len())
    }

    /// Finishes deletions now and every [`LOOK_EVERY`], in the background.
    pub fn keep_finishing_deletions(self: Arc<Self>) {
        let schedule = Schedule {
            name: "deleted accounts' seats",
            every: LOOK_EVERY,
            wake: None,
            batch: None,
        };
        background::keep_running(schedule, move || {
            let matches = self.clone();
            async move {
                let found = matches.finish_deletions().await?;
                if found > 0 {
                    tracing::info!(found, "seats of deleted accounts given up");
                }
                Ok::<_, MatchError>(found)
            }
        });
    }
}
