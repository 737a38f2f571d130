//! Each feature's own refusals, one enum per feature, each with its stable codes; the match
//! service's [`MatchError`](super::MatchError) wraps them beside the refusals every feature may
//! meet. A feature file names its refusals from here (`SeekError::TooManySeeks(…)`), and `?`
//! turns them into a `MatchError`.

mod clock;
mod hints;
mod invitations;
mod rematch;
mod seating;
mod seeks;
mod table;
mod talk;
mod vacations;

pub use clock::ClockError;
pub use hints::HintError;
pub use invitations::InvitationError;
pub use rematch::RematchError;
pub use seating::SeatingError;
pub use seeks::SeekError;
pub use table::TableError;
pub use talk::TalkError;
pub use vacations::VacationError;
