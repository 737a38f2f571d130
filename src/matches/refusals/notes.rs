//! [`NoteError`]: why private notes were refused, each refusal with its stable code. Notes (`matches/notes.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why notes were refused (inside a [`MatchError::Note`](crate::matches::MatchError::Note)).
#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    /// Notes longer than they may be.
    #[error("Notes are at most {0} characters.")]
    TooLong(usize),
}

impl NoteError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            NoteError::TooLong(_) => Sort::Invalid,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            NoteError::TooLong(_) => "notes_too_long",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            NoteError::TooLong(_) => Some("text"),
        }
    }
}
