//! [`RematchError`]: why a rematch was refused, each refusal with its stable code. Rematches (`matches/rematch.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a rematch was refused (inside a [`MatchError::Rematch`](crate::matches::MatchError::Rematch)).
#[derive(Debug, thiserror::Error)]
pub enum RematchError {
    /// A rematch of a match still being played (or waiting for players).
    #[error("A rematch is offered once the match has ended.")]
    NotOver,
    /// A rematch of a match one of whose players has deleted their account: it could never
    /// fill.
    #[error("A player of this match has deleted their account: a rematch could never fill.")]
    PlayerGone,
}

impl RematchError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        Sort::Conflict
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            RematchError::NotOver => "match_not_over",
            RematchError::PlayerGone => "player_gone",
        }
    }

    /// The request field at fault: none.
    pub fn field(&self) -> Option<&str> {
        None
    }
}
