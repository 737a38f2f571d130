//! [`TableError`]: why opening a table was refused, each refusal with its stable code. Opening a table: its rules, clock, seed, bots and rating (`matches/lobby.rs`, and the clock and rating of a seek, `matches/seeks.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
use crate::matches::unrateable::Unrateable;
use crate::rules::RulesError;

/// Why opening a table was refused (inside a [`MatchError::Table`](crate::matches::MatchError::Table)).
#[derive(Debug, thiserror::Error)]
pub enum TableError {
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
    /// A client seed longer than [`crate::matches::lobby::MAX_CLIENT_SEED`] characters.
    #[error("A client seed is at most 128 characters.")]
    InvalidClientSeed,
    /// A rated table asked for with a setting ratings cannot be fair under.
    #[error("{0}")]
    NotRateable(Unrateable),
    /// A new match asking for as many bots as it has seats, or more: a person takes seat 0.
    #[error("A match of {seats} seats takes at most {most} bots: you take the first seat.")]
    TooManyBots {
        /// The match's seats.
        seats: u8,
        /// The most bots it takes.
        most: u8,
    },
}

impl TableError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        Sort::Invalid
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            TableError::InvalidRules { .. } => "invalid_rules",
            TableError::InvalidClock { .. } => "invalid_clock",
            TableError::InvalidClientSeed => "invalid_client_seed",
            TableError::NotRateable(why) => why.code(),
            TableError::TooManyBots { .. } => "too_many_bots",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            TableError::InvalidRules { field, .. } => Some(field),
            TableError::InvalidClock { .. } => Some("clock"),
            TableError::InvalidClientSeed => Some("client_seed"),
            TableError::NotRateable(why) => Some(why.field()),
            TableError::TooManyBots { .. } => Some("bots"),
        }
    }
}
