//! [`ModerationError`]: why an operator's action was refused, each refusal with its stable code. Moderation (`matches/moderation.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why an operator's action was refused (inside a [`MatchError::Moderation`](crate::matches::MatchError::Moderation)).
#[derive(Debug, thiserror::Error)]
pub enum ModerationError {
    /// No report has this id.
    #[error("No report has the id {0}.")]
    UnknownReport(String),
    /// The report was resolved already.
    #[error("Report {id} was resolved already, at {at}.")]
    AlreadyResolved {
        /// The report.
        id: String,
        /// When it was resolved (RFC 3339).
        at: String,
    },
    /// An operator's name or words that cannot be recorded as given.
    #[error("{detail}")]
    InvalidAction {
        /// The field at fault.
        field: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
}

impl ModerationError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            ModerationError::UnknownReport(_) => Sort::Missing,
            ModerationError::AlreadyResolved { .. } => Sort::Conflict,
            ModerationError::InvalidAction { .. } => Sort::Invalid,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            ModerationError::UnknownReport(_) => "report_not_found",
            ModerationError::AlreadyResolved { .. } => "report_resolved",
            ModerationError::InvalidAction { .. } => "invalid_action",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            ModerationError::InvalidAction { field, .. } => Some(field),
            _ => None,
        }
    }
}
