//! [`TalkError`]: why table talk was refused, each refusal with its stable code. Table talk (`matches/talk.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why table talk was refused (inside a [`MatchError::Talk`](crate::matches::MatchError::Talk)).
#[derive(Debug, thiserror::Error)]
pub enum TalkError {
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
}

impl TalkError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            TalkError::InvalidMessage { .. } => Sort::Invalid,
            TalkError::TooManyMessages { retry_after, .. } => Sort::TooMany {
                retry_after: *retry_after,
            },
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            TalkError::InvalidMessage { .. } => "invalid_message",
            TalkError::TooManyMessages { .. } => "too_many_messages",
        }
    }

    /// The request field at fault: none.
    pub fn field(&self) -> Option<&str> {
        None
    }
}
