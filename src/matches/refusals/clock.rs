//! [`ClockError`]: why a claim or a nudge was refused, each refusal with its stable code. Claims and nudges (`matches/clock_worker.rs`).
//! The HTTP layer maps it to a status with every other refusal (`http/error.rs`).

use crate::rules::Seat;

/// Why a claim or a nudge was refused (inside a [`MatchError::Clock`](crate::matches::MatchError::Clock)).
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
}

impl ClockError {
    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            ClockError::NotClaimable { .. } => "not_claimable",
            ClockError::NotNudgeable { .. } => "not_nudgeable",
            ClockError::NudgeTooEarly { .. } => "nudge_too_early",
            ClockError::AlreadyNudged(_) => "already_nudged",
        }
    }

    /// The request field at fault: none.
    pub fn field(&self) -> Option<&str> {
        None
    }
}
