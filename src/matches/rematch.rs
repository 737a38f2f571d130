//! Rematches: once a match has ended, any of its players may offer the next one. It has the
//! same rules, clock and settings; its seats are kept for the same players, each planned one
//! seat on from where they sat (so the player who sat left of the first dealer sits where the
//! dealer sat), and that seat deals first: the deal moves on. The player who offers it and the
//! bots sit down at once; each other player accepts by joining it (told by a
//! `rematch_offered` notification), and the last to join deals the first hand as usual, with
//! everyone moved to their planned seat. The ended match points to it (`next_match_id`), so a
//! second offer answers the first.

use super::access::{Player, Role};
use super::lobby::{TableSettings, open_match};
use super::log::Entry;
use super::refusals::RematchError;
use super::{MatchError, MatchSummary, Matches};
use crate::model::MatchStatus;
use crate::notifications::Notice;
use crate::notifications::notice::RematchOffered;
use crate::rules::{Event, Seat};
use crate::store::accounts::DELETED_USERNAME;
use crate::store::{NewMatch, SeatRow};

/// A rematch, and whether this call created it.
pub struct Rematch {
    /// Its summary, for the caller.
    pub summary: MatchSummary,
    /// `false`: it had been offered already, and this is it.
    pub created: bool,
}

impl Matches {
    /// Offers the players of an ended match a rematch, or answers the one already offered.
    pub async fn rematch(&self, match_id: &str, player: Player<'_>) -> Result<Rematch, MatchError> {
        // Read before the seats are locked: the log of an ended match no longer changes.
        let first_dealer = self.first_dealer(match_id).await;
        let (mut change, seat_of) = self.lock_seats(match_id, player).await?;
        Role::at(&change.row, player.viewer(), seat_of).acts()?;
        let account_id = player.id();
        // The rematch offered before, unless everyone left it before it started (which
        // deletes a match): then this offer makes a new one.
        if let Some(next) = change.row.next_match_id.clone()
            && change.match_exists(&next).await?
        {
            drop(change);
            let summary = self.summary(&next, player.viewer()).await?;
            return Ok(Rematch {
                summary,
                created: false,
            });
        }
        if !matches!(
            change.row.status,
            MatchStatus::Finished | MatchStatus::Aborted
        ) {
            return Err(MatchError::Rematch(RematchError::NotOver));
        }
        if change
            .seats
            .iter()
            .any(|taken| taken.username == DELETED_USERNAME)
        {
            return Err(MatchError::Rematch(RematchError::PlayerGone));
        }
        let ended = &change.row;
        let seat_count = ended.seat_count;
        let moved_on = |seat: Seat| (seat + seat_count - 1) % seat_count;
        let plan: Vec<(Seat, String)> = change
            .seats
            .iter()
            .map(|taken| (moved_on(taken.seat), taken.account_id.clone()))
            .collect();
        let now = self.clock.now();
        let (mut row, secret) = open_match(
            account_id,
            TableSettings {
                visibility: ended.visibility,
                rules: ended.rules.clone(),
                auto_end_turn: ended.auto_end_turn,
                hints: ended.hints,
                clock: ended.clock,
                on_timeout: ended.on_timeout,
                vacations: ended.vacations,
                rating_pool: ended.rating_pool,
            },
            now,
        );
        // The player left of the first dealer now sits in the dealer's seat, and deals.
        row.first_dealer = Some(first_dealer?);
        row.rematch_of = Some(ended.id.clone());
        // The caller and the bots sit down now: in their planned seats if that fills the
        // table, otherwise in the order they came (the start moves them).
        let mut seats: Vec<SeatRow> = change
            .seats
            .iter()
            .filter(|taken| taken.account_id == account_id || taken.bot.is_some())
            .map(|taken| SeatRow {
                client_seed: String::new(),
                ..taken.clone()
            })
            .collect();
        let full = seats.len() == usize::from(seat_count);
        for (index, taken) in seats.iter_mut().enumerate() {
            taken.seat = if full {
                moved_on(taken.seat)
            } else {
                index as Seat
            };
        }
        seats.sort_by_key(|taken| taken.seat);
        let started = if full {
            Some(self.first_deal(&row, &secret, &seats)?)
        } else {
            None
        };
        let new = NewMatch {
            row: &row,
            secret: &secret,
            seats: &seats,
            plan: &plan,
            start: started.as_ref().map(|(_, append)| append),
        };
        let verified = self.notifier.checkpoint();
        change.offer_rematch(&new).await?;
        let offered_by = change
            .seats
            .iter()
            .find(|taken| taken.account_id == account_id)
            .map(|taken| taken.username.clone())
            .unwrap_or_default();
        let offers: Vec<_> = change
            .seats
            .iter()
            .filter(|taken| taken.account_id != account_id && taken.bot.is_none())
            .map(|taken| {
                Notice::RematchOffered(RematchOffered {
                    match_id: row.id.clone(),
                    previous_match_id: change.row.id.clone(),
                    offered_by: offered_by.clone(),
                    seat: moved_on(taken.seat),
                    seat_count,
                })
                .to(&taken.account_id, now)
            })
            .collect();
        change.notify(&offers).await?;
        change.commit().await?;
        match started {
            Some((state, append)) => self.dealt(&row.id, state, &append, verified),
            None => self.relay.wake(),
        }
        Ok(Rematch {
            summary: self.summary(&row.id, player.viewer()).await?,
            created: true,
        })
    }

    /// Who dealt the first hand of a match, from its log.
    async fn first_dealer(&self, match_id: &str) -> Result<Seat, MatchError> {
        match self.ledger.recorded(match_id, 0, 1).await?.first() {
            Some(recorded) => match recorded.event {
                Entry::Game(Event::HandDealt { dealer, .. }) => Ok(dealer),
                _ => Err(MatchError::Corrupt(
                    "a log that does not begin with a deal".into(),
                )),
            },
            // Not started: refused below, once the caller may know it.
            None => Ok(0),
        }
    }
}
