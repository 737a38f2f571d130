//! [`FollowError`]: why a follow, or its end, was refused, each refusal with its stable code. Follows (`matches/follows.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a follow or its end was refused (inside a [`MatchError::Follow`](crate::matches::MatchError::Follow)).
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// No person's account has this username.
    #[error("No account has this username.")]
    UnknownUsername,
    /// An account does not follow itself.
    #[error("You cannot follow yourself.")]
    CannotFollowYourself,
    /// The player does not take followers from the caller (it blocks them; the answer does
    /// not say why, docs/community.md).
    #[error("This player does not take you as a follower.")]
    Declined,
    /// The caller does not follow this player.
    #[error("You do not follow this player.")]
    NotFollowing,
    /// The caller follows as many players as it may.
    #[error("An account follows at most {0} players: stop following one first.")]
    TooManyFollows(i64),
}

impl FollowError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            FollowError::UnknownUsername | FollowError::NotFollowing => Sort::Missing,
            FollowError::CannotFollowYourself => Sort::Invalid,
            FollowError::Declined => Sort::NotYours,
            FollowError::TooManyFollows(_) => Sort::Conflict,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            FollowError::UnknownUsername => "unknown_username",
            FollowError::CannotFollowYourself => "cannot_follow_yourself",
            FollowError::Declined => "follow_declined",
            FollowError::NotFollowing => "not_following",
            FollowError::TooManyFollows(_) => "too_many_follows",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            FollowError::UnknownUsername | FollowError::CannotFollowYourself => Some("username"),
            _ => None,
        }
    }
}
