//! [`SeatingError`]: why taking or giving up a seat was refused, each refusal with its stable code. Taking and giving up seats (`matches/seating.rs`, bots seated by `matches/bots.rs`, deleted accounts' seats by `matches/deletions.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why taking or giving up a seat was refused (inside a [`MatchError::Seating`](crate::matches::MatchError::Seating)).
#[derive(Debug, thiserror::Error)]
pub enum SeatingError {
    /// Leaving a match the caller has no seat in.
    #[error("You have no seat in this match.")]
    NotSeated,
    /// Joining a match whose seats are all taken (or that has started).
    #[error("Every seat of this match is taken.")]
    MatchFull,
    /// Leaving a match that has started: seats are fixed.
    #[error("The match has started: seats are fixed.")]
    MatchStarted,
    /// A bot for a seat of a rematch: its seats are kept for the players of the match before.
    #[error("The free seats of this rematch are kept for the players of the match before it.")]
    SeatsKept,
    /// Joining a waiting table whose creator does not take the caller (it blocks them; the
    /// answer does not say why, docs/community.md).
    #[error("This table does not take you.")]
    SeatDeclined,
    /// Joining a rematch one did not play the match before of.
    #[error("This rematch is for the players of the match before it.")]
    NotInRematch,
}

impl SeatingError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            SeatingError::NotSeated | SeatingError::NotInRematch | SeatingError::SeatDeclined => {
                Sort::NotYours
            }
            SeatingError::MatchFull | SeatingError::MatchStarted | SeatingError::SeatsKept => {
                Sort::Conflict
            }
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            SeatingError::NotSeated => "not_seated",
            SeatingError::MatchFull => "match_full",
            SeatingError::MatchStarted => "match_started",
            SeatingError::SeatsKept => "seats_kept",
            SeatingError::NotInRematch => "not_in_rematch",
            SeatingError::SeatDeclined => "seat_declined",
        }
    }

    /// The request field at fault: none.
    pub fn field(&self) -> Option<&str> {
        None
    }
}
