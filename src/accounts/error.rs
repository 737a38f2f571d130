//! [`AccountError`]: why registration, login or a token exchange was refused.

use crate::auth::Scope;
use crate::store::StoreError;

/// Why an account operation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The username breaks the rules for usernames.
    #[error("A username is 3 to 32 characters of A–Z, a–z, 0–9, _ and -.")]
    InvalidUsername,
    /// The password is too short or too long.
    #[error("A password is 8 to 256 characters.")]
    WeakPassword,
    /// Another account has this username (in any case).
    #[error("The username `{0}` is taken.")]
    UsernameTaken(String),
    /// The same answer for an unknown username and a wrong password.
    #[error("The username or password is wrong.")]
    InvalidCredentials,
    /// Too many login attempts from this address or for this username.
    #[error("Too many attempts: try again in {retry_after} seconds.")]
    TooManyAttempts {
        /// Seconds until the next attempt is allowed.
        retry_after: u64,
    },
    /// A refresh token that is unknown, expired or revoked.
    #[error("The refresh token is invalid or expired.")]
    InvalidRefreshToken,
    /// A refresh token presented a second time: its whole family is now revoked.
    #[error(
        "This refresh token was already used: every session from that login is now signed out."
    )]
    RefreshTokenReused,
    /// An access token that is malformed, forged, expired or of another kind.
    #[error("The access token is invalid or expired.")]
    InvalidToken,
    /// A stream ticket unknown, used already, or older than a minute.
    #[error("The stream ticket is unknown, used already or expired: ask for a new one.")]
    InvalidStreamTicket,
    /// A valid access token whose account no longer exists.
    #[error("The account of this token no longer exists.")]
    AccountNotFound,
    /// The caller's own password, given to confirm something, is wrong.
    #[error("The password is wrong.")]
    WrongPassword,
    /// A personal access token without the scope an operation needs.
    #[error("This token lacks the `{0}` scope.")]
    InsufficientScope(Scope),
    /// A personal access token that cannot be created as asked.
    #[error("{detail}")]
    InvalidTokenRequest {
        /// The field at fault.
        field: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
    /// The account has as many personal access tokens as it may.
    #[error("An account has at most {0} personal access tokens: revoke one first.")]
    TooManyTokens(usize),
    /// No such personal access token among the caller's.
    #[error("You have no such token.")]
    TokenNotFound,
    /// An email address of the wrong shape.
    #[error("{0}")]
    InvalidEmail(crate::mail::BadAddress),
    /// The server sends no mail: its operator has not configured it.
    #[error(
        "This server sends no email (its operator has not set SMTP_URL, MAIL_FROM and PUBLIC_URL)."
    )]
    MailUnavailable,
    /// The account has no address to verify.
    #[error("This account has no email address: set one with PUT /v1/me/email.")]
    NoEmail,
    /// A token from a letter that is unknown, spent, expired, or for an address the account
    /// no longer has.
    #[error(
        "This link is unknown, used already or expired, or its address is no longer the account's: ask for a new one."
    )]
    InvalidEmailToken,
    /// A reset request naming neither an address nor a username, or both.
    #[error("Give either `email` or `username`.")]
    InvalidResetRequest,
    /// A stored value that cannot be read back.
    #[error("a stored value is corrupt: {0}")]
    Corrupt(String),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Hashing failed (a bug, or a panic on the blocking pool).
    #[error("password hashing failed")]
    Hashing(#[source] anyhow::Error),
}

impl AccountError {
    /// The stable, machine-readable code of a refusal.
    pub fn code(&self) -> &'static str {
        match self {
            AccountError::InvalidUsername => "invalid_username",
            AccountError::WeakPassword => "weak_password",
            AccountError::UsernameTaken(_) => "username_taken",
            AccountError::InvalidCredentials => "invalid_credentials",
            AccountError::TooManyAttempts { .. } => "rate_limited",
            AccountError::InvalidRefreshToken => "invalid_refresh_token",
            AccountError::RefreshTokenReused => "refresh_token_reused",
            AccountError::InvalidToken => "invalid_token",
            AccountError::InvalidStreamTicket => "invalid_stream_ticket",
            AccountError::AccountNotFound => "account_not_found",
            AccountError::WrongPassword => "wrong_password",
            AccountError::InsufficientScope(_) => "insufficient_scope",
            AccountError::InvalidTokenRequest { .. } => "invalid_token_request",
            AccountError::TooManyTokens(_) => "too_many_tokens",
            AccountError::TokenNotFound => "not_found",
            AccountError::InvalidEmail(_) => "invalid_email",
            AccountError::MailUnavailable => "mail_unavailable",
            AccountError::NoEmail => "no_email",
            AccountError::InvalidEmailToken => "invalid_email_token",
            AccountError::InvalidResetRequest => "invalid_body",
            AccountError::Store(store) if store.is_unavailable() => "service_unavailable",
            AccountError::Store(_) | AccountError::Hashing(_) | AccountError::Corrupt(_) => {
                "internal_error"
            }
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            AccountError::InvalidUsername => Some("username"),
            AccountError::WeakPassword => Some("password"),
            AccountError::InvalidTokenRequest { field, .. } => Some(field),
            AccountError::InvalidEmail(_) => Some("email"),
            _ => None,
        }
    }
}
