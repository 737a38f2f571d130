//! [`MatchError`]: why the match service refused or failed, each refusal with a stable
//! [`MatchError::code`] and a sentence for the player, as [`RuleError`] has. The refusals every
//! feature may meet (no such match, no seat, a stale version, the engine's) are its own
//! variants; each feature's own refusals are an enum of that feature (`matches/refusals/`),
//! wrapped here, each saying its [`Sort`]. The HTTP layer maps them to statuses in one place
//! (`http::error`).

pub use super::refusals::{
    BlockError, ClockError, FollowError, HintError, InvitationError, ModerationError, NoteError,
    RematchError, ReportError, SeatingError, SeekError, Sort, TableError, TalkError, VacationError,
};
pub use super::unrateable::Unrateable;
use crate::rules::RuleError;
use crate::store::StoreError;

/// Why a match operation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// No such match, or a private match the caller is not in: both look the same from outside.
    #[error("There is no such match.")]
    NotFound,
    /// No account has this username (a player page).
    #[error("There is no player of this name.")]
    NoSuchPlayer,
    /// No rating pool has this name (a leaderboard).
    #[error(
        "There is no rating pool of this name: pools are the presets `standard`, `draw-first`, `foundations` and `night-one`."
    )]
    NoSuchPool,
    /// Listing one's own matches (`mine`, `turn`) without signing in.
    #[error(
        "Your own matches are listed for a signed-in player: send `Authorization: Bearer <token>`."
    )]
    AccountNeeded,
    /// The caller watches this match but has no seat to act from.
    #[error("You have no seat in this match.")]
    NotAPlayer,
    /// The match waits for players: there is no table to see or act on yet.
    #[error("The match waits for players.")]
    NotStarted,
    /// The shuffle secret stays secret until the end, so an export waits for it.
    #[error("A match is exported once it has ended.")]
    NotFinished,
    /// The move was chosen from an older version of the match.
    #[error("The match is at version {current}, not {expected}: fetch the view and try again.")]
    VersionConflict {
        /// The version the client sent.
        expected: i64,
        /// The match's version now.
        current: i64,
    },
    /// The rules engine refused the action.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A query parameter out of its range, or not of its kind.
    #[error("{detail}")]
    InvalidQuery {
        /// The parameter at fault.
        parameter: &'static str,
        /// Its allowed values, in words.
        detail: String,
    },
    /// An `Idempotency-Key` that is empty, too long or not visible ASCII.
    #[error("An Idempotency-Key is 1 to 128 visible ASCII characters.")]
    InvalidIdempotencyKey,
    /// An `Idempotency-Key` the caller already used for a different move.
    #[error("This Idempotency-Key was used for another request.")]
    IdempotencyKeyReused,
    /// Taking and giving up seats (`matches/seating.rs`, bots seated by `matches/bots.rs`, deleted accounts' seats by `matches/deletions.rs`).
    #[error(transparent)]
    Seating(#[from] SeatingError),
    /// Invitations to private matches (`matches/invitations.rs`).
    #[error(transparent)]
    Invitation(#[from] InvitationError),
    /// Rematches (`matches/rematch.rs`).
    #[error(transparent)]
    Rematch(#[from] RematchError),
    /// Opening a table: its rules, clock, seed, bots and rating (`matches/lobby.rs`, and the clock and rating of a seek, `matches/seeks.rs`).
    #[error(transparent)]
    Table(#[from] TableError),
    /// Claims and nudges (`matches/clock_worker.rs`).
    #[error(transparent)]
    Clock(#[from] ClockError),
    /// Table talk (`matches/talk.rs`).
    #[error(transparent)]
    Talk(#[from] TalkError),
    /// Hints (`matches/bots.rs`, paced by `matches/hints.rs`).
    #[error(transparent)]
    Hint(#[from] HintError),
    /// Quick pairing (`matches/seeks.rs`).
    #[error(transparent)]
    Seek(#[from] SeekError),
    /// Vacations (`matches/vacations.rs`).
    #[error(transparent)]
    Vacation(#[from] VacationError),
    /// Blocks (`matches/blocks.rs`).
    #[error(transparent)]
    Block(#[from] BlockError),
    /// Follows (`matches/follows.rs`).
    #[error(transparent)]
    Follow(#[from] FollowError),
    /// Private notes (`matches/notes.rs`).
    #[error(transparent)]
    Note(#[from] NoteError),
    /// Reports (`matches/reports.rs`).
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Operators' actions (`matches/moderation.rs`).
    #[error(transparent)]
    Moderation(#[from] ModerationError),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored match cannot be read back: a bug or a corrupt database.
    #[error("the stored match is corrupt: {0}")]
    Corrupt(String),
}

impl MatchError {
    /// The sort of a feature's own refusal; `None` for the refusals every feature may meet and
    /// for failures.
    pub fn feature_refusal(&self) -> Option<Sort> {
        match self {
            MatchError::Seating(refused) => Some(refused.sort()),
            MatchError::Invitation(refused) => Some(refused.sort()),
            MatchError::Rematch(refused) => Some(refused.sort()),
            MatchError::Table(refused) => Some(refused.sort()),
            MatchError::Clock(refused) => Some(refused.sort()),
            MatchError::Talk(refused) => Some(refused.sort()),
            MatchError::Hint(refused) => Some(refused.sort()),
            MatchError::Seek(refused) => Some(refused.sort()),
            MatchError::Vacation(refused) => Some(refused.sort()),
            MatchError::Block(refused) => Some(refused.sort()),
            MatchError::Note(refused) => Some(refused.sort()),
            MatchError::Follow(refused) => Some(refused.sort()),
            MatchError::Report(refused) => Some(refused.sort()),
            MatchError::Moderation(refused) => Some(refused.sort()),
            _ => None,
        }
    }

    /// The stable, machine-readable code of a refusal (`internal_error` or
    /// `service_unavailable` for failures).
    pub fn code(&self) -> &'static str {
        match self {
            MatchError::NotFound => "not_found",
            MatchError::NoSuchPlayer => "player_not_found",
            MatchError::NoSuchPool => "pool_not_found",
            MatchError::AccountNeeded => "missing_token",
            MatchError::NotAPlayer => "not_a_player",
            MatchError::NotStarted => "match_not_started",
            MatchError::NotFinished => "match_not_finished",
            MatchError::VersionConflict { .. } => "version_conflict",
            MatchError::Rule(rule) => rule.code(),
            MatchError::InvalidQuery { .. } => "invalid_query",
            MatchError::InvalidIdempotencyKey => "invalid_idempotency_key",
            MatchError::IdempotencyKeyReused => "idempotency_key_reused",
            MatchError::Seating(refused) => refused.code(),
            MatchError::Invitation(refused) => refused.code(),
            MatchError::Rematch(refused) => refused.code(),
            MatchError::Table(refused) => refused.code(),
            MatchError::Clock(refused) => refused.code(),
            MatchError::Talk(refused) => refused.code(),
            MatchError::Hint(refused) => refused.code(),
            MatchError::Seek(refused) => refused.code(),
            MatchError::Vacation(refused) => refused.code(),
            MatchError::Block(refused) => refused.code(),
            MatchError::Note(refused) => refused.code(),
            MatchError::Follow(refused) => refused.code(),
            MatchError::Report(refused) => refused.code(),
            MatchError::Moderation(refused) => refused.code(),
            MatchError::Store(store) if store.is_unavailable() => "service_unavailable",
            MatchError::Store(_) | MatchError::Corrupt(_) => "internal_error",
        }
    }

    /// The request field or parameter at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            MatchError::InvalidQuery { parameter, .. } => Some(parameter),
            MatchError::IdempotencyKeyReused => Some("Idempotency-Key"),
            MatchError::Seating(refused) => refused.field(),
            MatchError::Invitation(refused) => refused.field(),
            MatchError::Rematch(refused) => refused.field(),
            MatchError::Table(refused) => refused.field(),
            MatchError::Clock(refused) => refused.field(),
            MatchError::Talk(refused) => refused.field(),
            MatchError::Hint(refused) => refused.field(),
            MatchError::Seek(refused) => refused.field(),
            MatchError::Vacation(refused) => refused.field(),
            MatchError::Block(refused) => refused.field(),
            MatchError::Note(refused) => refused.field(),
            MatchError::Follow(refused) => refused.field(),
            MatchError::Report(refused) => refused.field(),
            MatchError::Moderation(refused) => refused.field(),
            _ => None,
        }
    }

    pub(crate) fn invalid_query(parameter: &'static str, detail: impl Into<String>) -> MatchError {
        MatchError::InvalidQuery {
            parameter,
            detail: detail.into(),
        }
    }
}
