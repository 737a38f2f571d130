//! Each feature's own refusals, one enum per feature, each with its stable codes; the match
//! service's [`MatchError`](super::MatchError) wraps them beside the refusals every feature may
//! meet. A feature file names its refusals from here (`SeekError::TooManySeeks(…)`), and `?`
//! turns them into a `MatchError`. Each refusal also says its [`Sort`], so that a new refusal
//! is written in its feature's file alone: the HTTP layer gives every refusal of a sort the
//! same status.

mod blocks;
mod clock;
mod follows;
mod hints;
mod invitations;
mod moderation;
mod notes;
mod rematch;
mod reports;
mod seating;
mod seeks;
mod table;
mod talk;
mod vacations;

pub use blocks::BlockError;
pub use clock::ClockError;
pub use follows::FollowError;
pub use hints::HintError;
pub use invitations::InvitationError;
pub use moderation::ModerationError;
pub use notes::NoteError;
pub use rematch::RematchError;
pub use reports::ReportError;
pub use seating::SeatingError;
pub use seeks::SeekError;
pub use table::TableError;
pub use talk::TalkError;
pub use vacations::VacationError;

/// What sort a feature's refusal is. `http/error.rs` turns each sort into a status: a feature
/// says what happened, never how HTTP says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Nothing of that name (404).
    Missing,
    /// Not the caller's to do (403).
    NotYours,
    /// Not in the state things are in (409).
    Conflict,
    /// Not yet: it may be done in `retry_after` seconds (409, `Retry-After`).
    TooEarly {
        /// Seconds until it may be done.
        retry_after: u64,
    },
    /// Too many of late: try again in `retry_after` seconds (429, `Retry-After`).
    TooMany {
        /// Seconds until one more is taken.
        retry_after: u64,
    },
    /// The request itself is wrong (422).
    Invalid,
}
