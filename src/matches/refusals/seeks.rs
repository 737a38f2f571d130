//! [`SeekError`]: why a seek (quick pairing) was refused, each refusal with its stable code. Quick pairing (`matches/seeks.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a seek (quick pairing) was refused (inside a [`MatchError::Seek`](crate::matches::MatchError::Seek)).
#[derive(Debug, thiserror::Error)]
pub enum SeekError {
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
}

impl SeekError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            SeekError::SeekNotFound => Sort::Missing,
            SeekError::SeekMatched { .. } | SeekError::TooManySeeks(_) => Sort::Conflict,
            SeekError::InvalidSeek { .. } => Sort::Invalid,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            SeekError::SeekNotFound => "seek_not_found",
            SeekError::SeekMatched { .. } => "seek_matched",
            SeekError::TooManySeeks(_) => "too_many_seeks",
            SeekError::InvalidSeek { .. } => "invalid_seek",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            SeekError::InvalidSeek { field, .. } => Some(field),
            _ => None,
        }
    }
}
