//! [`HintError`]: why a hint was refused, each refusal with its stable code. Hints (`matches/bots.rs`, paced by `matches/hints.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a hint was refused (inside a [`MatchError::Hint`](crate::matches::MatchError::Hint)).
#[derive(Debug, thiserror::Error)]
pub enum HintError {
    /// A hint at a table that wants none.
    #[error("This table plays without hints.")]
    HintsOff,
    /// An account that had as many new hints computed in the last minute as it may.
    #[error("You asked for {per_minute} new hints in the last minute: wait {retry_after} s.")]
    TooManyHints {
        /// Seconds until the account may ask again.
        retry_after: u64,
        /// The most new hints an account may have computed in a minute.
        per_minute: u32,
    },
}

impl HintError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            HintError::HintsOff => Sort::Conflict,
            HintError::TooManyHints { retry_after, .. } => Sort::TooMany {
                retry_after: *retry_after,
            },
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            HintError::HintsOff => "hints_off",
            HintError::TooManyHints { .. } => "too_many_hints",
        }
    }

    /// The request field at fault: none.
    pub fn field(&self) -> Option<&str> {
        None
    }
}
