//! [`InvitationError`]: why an invitation to a private match was refused, each refusal with its stable code. Invitations to private matches (`matches/invitations.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why an invitation to a private match was refused (inside a [`MatchError::Invitation`](crate::matches::MatchError::Invitation)).
#[derive(Debug, thiserror::Error)]
pub enum InvitationError {
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
    /// The account invited does not take invitations from the caller (it blocks them; the
    /// answer does not say why, docs/community.md).
    #[error("This account does not take invitations from you.")]
    Declined,
    /// The match has sent as many invitations as it may.
    #[error("A match sends at most {0} invitations.")]
    TooManyInvitations(i64),
}

impl InvitationError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            InvitationError::NotCreator | InvitationError::Declined => Sort::NotYours,
            InvitationError::NotPrivate
            | InvitationError::AlreadySeated
            | InvitationError::TooManyInvitations(_) => Sort::Conflict,
            InvitationError::UnknownUsername => Sort::Invalid,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            InvitationError::NotCreator => "not_match_creator",
            InvitationError::NotPrivate => "match_not_private",
            InvitationError::UnknownUsername => "unknown_username",
            InvitationError::AlreadySeated => "already_seated",
            InvitationError::TooManyInvitations(_) => "too_many_invitations",
            InvitationError::Declined => "invitation_declined",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            InvitationError::UnknownUsername => Some("username"),
            _ => None,
        }
    }
}
