//! [`MatchError`]: why the match service refused or failed, each refusal with a stable
//! [`MatchError::code`] and a sentence for the player, as [`RuleError`] has. The HTTP layer
//! maps them to statuses in one place (`http::error`).

pub use super::unrateable::Unrateable;
use crate::rules::{RuleError, RulesError, Seat};
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
    /// Leaving a match the caller has no seat in.
    #[error("You have no seat in this match.")]
    NotSeated,
    /// The match waits for players: there is no table to see or act on yet.
    #[error("The match waits for players.")]
    NotStarted,
    /// The shuffle secret stays secret until the end, so an export waits for it.
    #[error("A match is exported once it has ended.")]
    NotFinished,
    /// Joining a match whose seats are all taken (or that has started).
    #[error("Every seat of this match is taken.")]
    MatchFull,
    /// Leaving a match that has started: seats are fixed.
    #[error("The match has started: seats are fixed.")]
    MatchStarted,
    /// Only the creator of a match invites to it.
    #[error("Only the creator of this match invites to it.")]
    NotCreator,
    /// Invitations are for private matches (anyone may join a public one).
    #[error("Anyone may join a public match: invitations are for private ones.")]
    NotPrivate,
    /// No account has this username.
    #[error("No account has this username.")]
    UnknownUsername,
    /// The account invited already has a seat.
    #[error("This account already has a seat in the match.")]
    AlreadySeated,
    /// The match has sent as many invitations as it may.
    #[error("A match sends at most {0} invitations.")]
    TooManyInvitations(i64),
    /// A new match asking for as many bots as it has seats, or more: a person takes seat 0.
    #[error("A match of {seats} seats takes at most {most} bots: you take the first seat.")]
    TooManyBots {
        /// The match's seats.
        seats: u8,
        /// The most bots it takes.
        most: u8,
    },
    /// Joining a rematch one did not play the match before of.
    #[error("This rematch is for the players of the match before it.")]
    NotInRematch,
    /// A bot for a seat of a rematch: its seats are kept for the players of the match before.
    #[error("The free seats of this rematch are kept for the players of the match before it.")]
    SeatsKept,
    /// A rematch of a match still being played (or waiting for players).
    #[error("A rematch is offered once the match has ended.")]
    NotOver,
    /// A rematch of a match one of whose players has deleted their account: it could never
    /// fill.
    #[error("A player of this match has deleted their account: a rematch could never fill.")]
    PlayerGone,
    /// A hint at a table that wants none.
    #[error("This table plays without hints.")]
    HintsOff,
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
    /// The rules of a new match cannot be played.
    #[error("{error}")]
    InvalidRules {
        /// The request field at fault: an option's name, or `seats`.
        field: String,
        /// What the rules engine refused.
        error: RulesError,
    },
    /// The clock of a new match cannot be used.
    #[error("{detail}")]
    InvalidClock {
        /// What is wrong with it.
        detail: String,
    },
    /// A rated table asked for with a setting ratings cannot be fair under.
    #[error("{0}")]
    NotRateable(Unrateable),
    /// A client seed longer than [`super::lobby::MAX_CLIENT_SEED`] characters.
    #[error("A client seed is at most 128 characters.")]
    InvalidClientSeed,
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
    /// A message that is empty, too long or holds control characters.
    #[error("{detail}")]
    InvalidMessage {
        /// What is wrong with it.
        detail: String,
    },
    /// A seat that talked as much as it may in the last minute.
    #[error("You said {per_minute} messages in the last minute: wait {retry_after} s.")]
    TooManyMessages {
        /// Seconds until the seat may talk again.
        retry_after: u64,
        /// The most messages a seat may send in a minute.
        per_minute: usize,
    },
    /// An account that had as many new hints computed in the last minute as it may.
    #[error("You asked for {per_minute} new hints in the last minute: wait {retry_after} s.")]
    TooManyHints {
        /// Seconds until the account may ask again.
        retry_after: u64,
        /// The most new hints an account may have computed in a minute.
        per_minute: u32,
    },
    /// No seek of the caller's has this id.
    #[error("You have no seek of this id.")]
    SeekNotFound,
    /// Withdrawing a seek that was seated already.
    #[error("This seek was seated already, in match {match_id}.")]
    SeekMatched {
        /// The match it was seated in.
        match_id: String,
    },
    /// An account with as many open seeks as it may have.
    #[error("An account has at most {0} open seeks: withdraw one first.")]
    TooManySeeks(usize),
    /// A seek that cannot be made as asked.
    #[error("{detail}")]
    InvalidSeek {
        /// The request field at fault.
        field: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// A vacation that cannot be taken as asked: its end not in the future, or further than
    /// the longest vacation.
    #[error("{detail}")]
    InvalidVacation {
        /// What is wrong with it.
        detail: String,
    },
    /// A vacation longer than the days the account holds.
    #[error(
        "This vacation takes {needed} days (counted by the day begun) and you hold {held}: come back sooner."
    )]
    NotEnoughVacationDays {
        /// The days the vacation asked for takes.
        needed: i64,
        /// The days the account holds.
        held: i64,
    },
    /// A vacation asked for while one is under way.
    #[error("You are on vacation until {until} already: come back first to change it.")]
    AlreadyOnVacation {
        /// When the vacation under way ends (RFC 3339).
        until: String,
    },
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored match cannot be read back: a bug or a corrupt database.
    #[error("the stored match is corrupt: {0}")]
    Corrupt(String),
}

impl MatchError {
    /// The stable, machine-readable code of a refusal (`internal_error` or
    /// `service_unavailable` for failures).
    pub fn code(&self) -> &'static str {
        match self {
            MatchError::NotFound => "not_found",
            MatchError::NoSuchPlayer => "player_not_found",
            MatchError::NoSuchPool => "pool_not_found",
            MatchError::AccountNeeded => "missing_token",
            MatchError::NotAPlayer => "not_a_player",
            MatchError::NotSeated => "not_seated",
            MatchError::NotStarted => "match_not_started",
            MatchError::NotFinished => "match_not_finished",
            MatchError::MatchFull => "match_full",
            MatchError::MatchStarted => "match_started",
            MatchError::NotClaimable { .. } => "not_claimable",
            MatchError::TooManyBots { .. } => "too_many_bots",
            MatchError::HintsOff => "hints_off",
            MatchError::NotInRematch => "not_in_rematch",
            MatchError::SeatsKept => "seats_kept",
            MatchError::NotOver => "match_not_over",
            MatchError::PlayerGone => "player_gone",
            MatchError::NotCreator => "not_match_creator",
            MatchError::NotPrivate => "match_not_private",
            MatchError::UnknownUsername => "unknown_username",
            MatchError::AlreadySeated => "already_seated",
            MatchError::TooManyInvitations(_) => "too_many_invitations",
            MatchError::VersionConflict { .. } => "version_conflict",
            MatchError::Rule(rule) => rule.code(),
            MatchError::InvalidRules { .. } => "invalid_rules",
            MatchError::InvalidClock { .. } => "invalid_clock",
            MatchError::InvalidClientSeed => "invalid_client_seed",
            MatchError::NotRateable(why) => why.code(),
            MatchError::InvalidQuery { .. } => "invalid_query",
            MatchError::InvalidIdempotencyKey => "invalid_idempotency_key",
            MatchError::IdempotencyKeyReused => "idempotency_key_reused",
            MatchError::InvalidMessage { .. } => "invalid_message",
            MatchError::TooManyMessages { .. } => "too_many_messages",
            MatchError::TooManyHints { .. } => "too_many_hints",
            MatchError::NotNudgeable { .. } => "not_nudgeable",
            MatchError::NudgeTooEarly { .. } => "nudge_too_early",
            MatchError::AlreadyNudged(_) => "already_nudged",
            MatchError::SeekNotFound => "seek_not_found",
            MatchError::SeekMatched { .. } => "seek_matched",
            MatchError::TooManySeeks(_) => "too_many_seeks",
            MatchError::InvalidSeek { .. } => "invalid_seek",
            MatchError::InvalidVacation { .. } => "invalid_vacation",
            MatchError::NotEnoughVacationDays { .. } => "not_enough_vacation_days",
            MatchError::AlreadyOnVacation { .. } => "already_on_vacation",
            MatchError::Store(store) if store.is_unavailable() => "service_unavailable",
            MatchError::Store(_) | MatchError::Corrupt(_) => "internal_error",
        }
    }

    /// The request field or parameter at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            MatchError::InvalidRules { field, .. } => Some(field),
            MatchError::InvalidClientSeed => Some("client_seed"),
            MatchError::InvalidClock { .. } => Some("clock"),
            MatchError::InvalidQuery { parameter, .. } => Some(parameter),
            MatchError::IdempotencyKeyReused => Some("Idempotency-Key"),
            MatchError::UnknownUsername => Some("username"),
            MatchError::TooManyBots { .. } => Some("bots"),
            MatchError::NotRateable(why) => Some(why.field()),
            MatchError::InvalidSeek { field, .. } => Some(field),
            MatchError::InvalidVacation { .. } | MatchError::NotEnoughVacationDays { .. } => {
                Some("until")
            }
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
