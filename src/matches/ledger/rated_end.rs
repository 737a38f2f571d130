//! The ratings the end of a rated match writes in the transaction that ends it
//! (docs/ratings.md): computed from its players' ratings as they stand, by the one computation
//! the server, `ratings rebuild` and `verify --rate` share ([`rate`]), and only for an end that
//! [`counts`].

use super::{Ledger, MatchState};
use crate::matches::MatchError;
use crate::ratings::{Model, START};
use crate::rules::{GameState, Preset, Seat};
use crate::store::ratings::{RatingChange, RatingUpdate, Standing};

/// The ratings after a rated match: each seat's change from `before` (its rating and count,
/// by seat) at `places` (by seat). The one computation both the server and the rebuild make.
pub fn rate(pool: Preset, accounts: &[String], places: &[u8], before: &[Standing]) -> RatingUpdate {
    let seats: Vec<_> = before
        .iter()
        .zip(places)
        .map(|(standing, place)| (standing.rating, *place))
        .collect();
    let after = Model::SERVER.rate(&seats);
    RatingUpdate {
        pool,
        changes: (0..accounts.len())
            .map(|seat| RatingChange {
                account_id: accounts[seat].clone(),
                seat: seat as Seat,
                place: places[seat],
                before: before[seat],
                after: after[seat],
            })
            .collect(),
    }
}

/// A new player's standing in a pool.
pub const UNRATED: Standing = Standing {
    rating: START,
    matches: 0,
};

/// Whether a rated match that ended at `end` is rated: not when a seat left it (resigned,
/// timed out or was claimed) before it had taken a turn of its own (docs/ratings.md, "Which
/// ends are rated"). The server, `ratings rebuild` and `verify --rate` all ask this.
pub fn counts(end: &GameState) -> bool {
    end.left_before_taking_a_turn().next().is_none()
}

/// Why a rated match's end is not rated, in words (`None` when it is).
pub fn unrated_because(end: &GameState) -> Option<String> {
    let early: Vec<String> = end
        .left_before_taking_a_turn()
        .map(|seat| seat.to_string())
        .collect();
    (!early.is_empty()).then(|| {
        format!(
            "seat {} left before taking a turn of its own: the match ends unrated (docs/ratings.md)",
            early.join(", seat ")
        )
    })
}

impl Ledger {
    /// The ratings a move that takes a rated match from `current` to `next` writes: `None`
    /// unless it ends the match, and ends it rated (an aborted match, or one a seat left
    /// before its first turn was over, is not rated).
    pub(super) async fn rating_update(
        &self,
        current: &MatchState,
        next: &MatchState,
    ) -> Result<Option<RatingUpdate>, MatchError> {
        let Some(pool) = next.table.rating_pool else {
            return Ok(None);
        };
        if current.state.standings().is_some() {
            return Ok(None);
        }
        let Some(places) = next.state.standings() else {
            return Ok(None);
        };
        if !counts(&next.state) {
            return Ok(None);
        }
        let accounts: Vec<String> = (0..next.table.seat_count())
            .map(|seat| {
                next.table
                    .account_at(seat as Seat)
                    .map(str::to_owned)
                    .ok_or_else(|| MatchError::Corrupt(format!("rated seat {seat} is empty")))
            })
            .collect::<Result<_, _>>()?;
        let ids: Vec<&str> = accounts.iter().map(String::as_str).collect();
        let known = self.db.standings_of(&ids).await?;
        let before: Vec<Standing> = accounts
            .iter()
            .map(|account| {
                known
                    .get(&(account.clone(), pool))
                    .copied()
                    .unwrap_or(UNRATED)
            })
            .collect();
        Ok(Some(rate(pool, &accounts, &places, &before)))
    }
}

/// Whether a move from `current` to `next` ends a rated match rated (then its ratings are
/// written with it).
pub fn ends_rated(current: &MatchState, next: &MatchState) -> bool {
    next.table.rating_pool.is_some()
        && current.state.standings().is_none()
        && next.state.standings().is_some()
        && counts(&next.state)
}
