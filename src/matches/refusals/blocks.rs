//! [`BlockError`]: why a block, or its lifting, was refused, each refusal with its stable code. Blocks (`matches/blocks.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a block or its lifting was refused (inside a [`MatchError::Block`](crate::matches::MatchError::Block)).
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// No person's account has this username (bots and deleted accounts have none to block).
    #[error("No account has this username.")]
    UnknownUsername,
    /// An account does not block itself.
    #[error("You cannot block yourself.")]
    CannotBlockYourself,
    /// The caller does not block this account.
    #[error("You do not block this account.")]
    NotBlocked,
    /// The caller blocks as many accounts as it may.
    #[error("An account blocks at most {0} others: lift a block first.")]
    TooManyBlocks(i64),
}

impl BlockError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            BlockError::UnknownUsername | BlockError::NotBlocked => Sort::Missing,
            BlockError::CannotBlockYourself => Sort::Invalid,
            BlockError::TooManyBlocks(_) => Sort::Conflict,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            BlockError::UnknownUsername => "unknown_username",
            BlockError::CannotBlockYourself => "cannot_block_yourself",
            BlockError::NotBlocked => "not_blocked",
            BlockError::TooManyBlocks(_) => "too_many_blocks",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            BlockError::UnknownUsername | BlockError::CannotBlockYourself => Some("username"),
            _ => None,
        }
    }
}
