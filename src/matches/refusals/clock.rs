//! [`ClockError`]: why a claim, a nudge or a gift of time was refused, each refusal with its
//! stable code. Claims, nudges and gifts of time (`matches/clock_worker.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
use crate::rules::Seat;

/// Why a claim, a nudge or a gift of time was refused (inside a [`MatchError::Clock`](crate::matches::MatchError::Clock)).
#[derive(Debug, thiserror::Error)]
pub enum ClockError {
    /// A claim on a seat that is not (or not yet) late, or at a match that does not take claims.
    #[error("{detail}")]
    NotClaimable {
        /// Why, in words.
        detail: String,
    },
    /// A nudge of nobody who could be nudged: it is the caller's own turn, or a bot's.
    #[error("{detail}")]
    NotNudgeable {
        /// Why, in words.
        detail: String,
    },
    /// A nudge before a quarter of the turn's time (an hour without a clock) has passed.
    #[error("Give seat {seat} time to think: nudge it in {retry_after} s.")]
    NudgeTooEarly {
        /// The seat to move.
        seat: Seat,
        /// Seconds until it may be nudged.
        retry_after: u64,
    },
    /// A second nudge in the same turn.
    #[error("Seat {0} was nudged this turn already.")]
    AlreadyNudged(Seat),
    /// Time given to nobody who could take it: no clock, the caller's own turn, a bot's, or a
    /// deadline passed.
    #[error("{detail}")]
    NotGivable {
        /// Why, in words.
        detail: String,
    },
    /// A second gift of time in the same turn.
    #[error("Seat {0} was given more time this turn already.")]
    AlreadyGiven(Seat),
}

impl ClockError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            ClockError::NudgeTooEarly { retry_after, .. } => Sort::TooEarly {
                retry_after: *retry_after,
            },
            ClockError::NotClaimable { .. }
            | ClockError::NotNudgeable { .. }
            | ClockError::AlreadyNudged(_)
            | ClockError::NotGivable { .. }
            | ClockError::AlreadyGiven(_) => Sort::Conflict,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            ClockError::NotClaimable { .. } => "not_claimable",
            ClockError::NotNudgeable { .. } => "not_nudgeable",
            ClockError::NudgeTooEarly { .. } => "nudge_too_early",
            ClockError::AlreadyNudged(_) => "already_nudged",
            ClockError::NotGivable { .. } => "time_not_givable",
            ClockError::AlreadyGiven(_) => "time_given_already",
        }
    }

    /// The request field at fault: none.
    pub fn field(&self) -> Option<&str> {
        None
    }
}
