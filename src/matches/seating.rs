//! Seat changes at an open table: joining (with an invite code at a private table; without one
//! for the players a rematch keeps seats for) and leaving.
//!
//! A seat change locks its match for the length of one transaction ([`crate::store::seating`]),
//! and the last join deals the first hand in that same transaction: a match is never full and
//! not started, and never started with a seat empty.

use serde::Deserialize;
use utoipa::ToSchema;

use super::access::{Player, Role};
use super::ledger::MatchState;
use super::ledger::advance;
use super::lobby::check_client_seed;
use super::log::Entry;
use super::refusals::SeatingError;
use super::seat_notices::{self, Seats};
use super::{MatchError, MatchSummary, Matches};
use crate::model::MatchStatus;
use crate::rules::Seat;
use crate::store::seating::SeatChange;
use crate::store::{self, SeatOf};

/// Joining a match.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"client_seed": "my lucky seed", "invite_code": "k2J9xQ0aPq1z"}))]
pub struct JoinMatch {
    /// Mixed into every hand's shuffle seed (at most 128 characters).
    #[serde(default)]
    #[schema(max_length = 128)]
    pub client_seed: String,
    /// Required for a private match.
    pub invite_code: Option<String>,
}

impl Matches {
    /// Seats the caller in the lowest free seat of an open match; the last seat taken deals the
    /// first hand, in the same transaction. Joining a match one already sits in succeeds again
    /// (a retry after an unclear failure gets the same answer), with or without the invite code.
    pub async fn join(
        &self,
        match_id: &str,
        player: Player<'_>,
        request: JoinMatch,
    ) -> Result<MatchSummary, MatchError> {
        check_client_seed(&request.client_seed)?;
        // Read before the seats are locked, so that no connection is held waiting for another.
        let declined = self.db.creator_blocks(match_id, player.id()).await?;
        let (mut change, mut seat_of) = self.lock_seats(match_id, player).await?;
        // A rematch's seats are kept for the players of the match before it.
        let plan = change.plan().await?;
        seat_of.kept = plan
            .iter()
            .find(|(_, planned)| planned == player.id())
            .map(|(seat, _)| *seat);
        let row = &change.row;
        let role = Role::at(row, player.viewer(), seat_of);
        if role
            .joins(row, !plan.is_empty(), request.invite_code.as_deref())?
            .is_some()
        {
            drop(change);
            return self.summary(match_id, player.viewer()).await;
        }
        if declined {
            return Err(MatchError::Seating(SeatingError::SeatDeclined));
        }
        let taken = change.seats.len();
        if row.status != MatchStatus::Open || taken >= usize::from(row.seat_count) {
            return Err(MatchError::Seating(SeatingError::MatchFull));
        }
        change
            .take_seat(
                taken as Seat,
                player.id(),
                &request.client_seed,
                None,
                self.clock.now(),
            )
            .await?;
        self.seat_taken(change).await?;
        self.summary(match_id, player.viewer()).await
    }

    /// A match locked for a change of its seats, and the seat the caller took in it (the
    /// seats a rematch keeps are in its plan, [`SeatChange::plan`]).
    pub(super) async fn lock_seats(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<(SeatChange, SeatOf), MatchError> {
        let change = self
            .db
            .lock_seats(match_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        let taken = store::seat_of(&change.seats, player.id());
        Ok((change, SeatOf { taken, kept: None }))
    }

    /// Commits a seat change that took the last seat of `change.seats`: the others waiting are
    /// told who joined or, when that filled the table, the first hand is dealt with it.
    pub(super) async fn seat_taken(&self, mut change: SeatChange) -> Result<(), MatchError> {
        if change.seats.len() < usize::from(change.row.seat_count) {
            let joined = change.seats.last().map(|seat| seat.username.clone());
            let notices = seat_notices::of_seat_change(
                &change.row,
                &change.seats,
                joined.as_deref().unwrap_or_default(),
                Seats::Joined,
                self.clock.now(),
            );
            change.notify(&notices).await?;
            change.commit().await?;
        } else {
            self.start(change).await?;
        }
        self.relay.wake();
        Ok(())
    }

    /// Gives up the caller's seat: in a match that has not started the seat is freed; in one
    /// being played, leaving is resigning (docs/rules.md §7).
    pub async fn leave(&self, match_id: &str, player: Player<'_>) -> Result<(), MatchError> {
        let (mut change, seat_of) = self.lock_seats(match_id, player).await?;
        let seat = Role::at(&change.row, player.viewer(), seat_of).leaves()?;
        match change.row.status {
            MatchStatus::Open => {
                let username = change.seats[usize::from(seat)].username.clone();
                change.free_seat(player.id()).await?;
                let notices = seat_notices::of_seat_change(
                    &change.row,
                    &change.seats,
                    &username,
                    Seats::Left,
                    self.clock.now(),
                );
                change.notify(&notices).await?;
                change.commit().await?;
                self.relay.wake();
                Ok(())
            }
            MatchStatus::Playing => {
                drop(change);
                self.resign(match_id, player).await.map(|_| ())
            }
            MatchStatus::Finished | MatchStatus::Aborted => {
                Err(MatchError::Seating(SeatingError::MatchStarted))
            }
        }
    }

    /// Deals the first hand of a match whose seats are all taken, and commits the seat change
    /// that filled it together with the deal.
    async fn start(&self, mut change: SeatChange) -> Result<(), MatchError> {
        if change.row.rematch_of.is_some() {
            let plan = change.plan().await?;
            change.seat_as_planned(&plan).await?;
        }
        let secret = change.secret().await?;
        let before = MatchState::before_start(&change.row, &change.seats, &secret)?;
        let events = before.state.start()?;
        let (started, append) = advance(
            &change.row.id,
            &before,
            Entry::games(events),
            self.clock.now(),
        )?;
        let verified = self.notifier.checkpoint();
        if !change.append(&append).await? {
            return Err(MatchError::Corrupt(
                "a match locked for its start had moved on".into(),
            ));
        }
        let match_id = change.row.id.clone();
        change.commit().await?;
        self.ledger.remember(&match_id, started, verified);
        if append.model.bot_turn {
            self.bot_turns.wake();
        }
        Ok(())
    }
}
