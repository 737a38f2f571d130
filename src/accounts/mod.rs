//! The account service: registration, the caller's account, and sessions (login, refreshing
//! and revoking tokens). Credentials themselves (argon2id hashes, signed access tokens, opaque
//! refresh tokens, the login rate limiter) are [`crate::auth`]'s.
//!
//! # Layout
//! - this file: [`Accounts`], registration and the caller's account;
//! - [`sessions`]: login, refresh and logout, and the [`TokenPair`] they answer with;
//! - [`personal_tokens`]: long-lived, scoped tokens for bots and integrations;
//! - [`stream_tickets`]: single-use tickets that open a stream from a browser;
//! - [`email`]: the account's address and its verification;
//! - [`password_reset`]: a new password by a link mailed to that address;
//! - `liveness`: whether the account behind a valid access token still exists (and was not
//!   signed out by a reset since it was issued);
//! - [`error`] holds [`AccountError`].

pub mod email;
pub mod error;
mod liveness;
pub mod password_reset;
pub mod personal_tokens;
pub mod sessions;
pub mod stream_tickets;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use std::net::IpAddr;
use std::sync::Arc;

use crate::auth::{Passwords, RateLimiter, Scopes, TokenKeys, personal};
use crate::mail::Mail;
use crate::store::accounts::Account;
use crate::store::{Db, StoreError};
use crate::time_source::Clock;
pub use email::{EmailTokenRequest, EmailView, NewEmail, RemoveEmail};
pub use error::AccountError;
use liveness::Standing;
pub use password_reset::{NewPassword, ResetRequest, ResetRequested};
pub use personal_tokens::{CreatedToken, NewToken, TokenList, TokenView};
pub use sessions::{Login, RefreshRequest, TokenPair};
pub use stream_tickets::StreamTicket;

/// Who a request speaks for, and what it may do.
#[derive(Clone, Debug)]
pub struct Credentials {
    /// The account.
    pub account_id: String,
    /// Every scope for a password session; a personal access token's own.
    pub scopes: Scopes,
    /// The personal access token that authenticated the request, if one did: what it mints
    /// (a stream ticket) is revoked with it.
    pub token_id: Option<String>,
}

/// Confirmation of an account's deletion.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "correct horse battery"}))]
pub struct DeleteAccount {
    /// The account's password, once more.
    pub password: String,
}

/// A new account.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "maya", "password": "correct horse battery"}))]
pub struct NewAccount {
    /// 3–32 characters of `A–Z a–z 0–9 _ -`, unique without regard to case.
    #[schema(min_length = 3, max_length = 32, pattern = "^[A-Za-z0-9_-]{3,32}$")]
    pub username: String,
    /// 8–256 characters.
    #[schema(min_length = 8, max_length = 256)]
    pub password: String,
}

/// An account as its owner sees it.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0b6f7c1e-8a8e-4c35-9a55-3c1f3f0b9d11", "username": "maya", "created_at": "2026-11-18T11:06:40Z", "email": null}))]
pub struct AccountView {
    /// The account's id (a UUID): the `sub` of its access tokens.
    #[schema(format = Uuid)]
    pub id: String,
    /// As registered, in its case.
    pub username: String,
    /// When (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    /// The account's email address, shown to its owner only; `null` when none is set
    /// (`PUT /v1/me/email`).
    pub email: Option<EmailView>,
}

impl From<Account> for AccountView {
    fn from(account: Account) -> AccountView {
        AccountView {
            id: account.id,
            username: account.username,
            created_at: account.created_at,
            email: None,
        }
    }
}

/// The account service.
#[derive(Debug)]
pub struct Accounts {
    db: Db,
    keys: TokenKeys,
    refresh_ttl_seconds: i64,
    passwords: Passwords,
    limits: Limits,
    liveness: liveness::Liveness,
    personal: personal_tokens::Remembered,
    /// The time accounts and their tokens go by (the same clock as the matches').
    clock: Arc<dyn Clock>,
    /// The outbox's handle: verification and reset letters.
    mail: Mail,
}

/// How often a client may try what costs a password hash.
#[derive(Debug)]
pub struct Limits {
    /// Logins, per client address and per username.
    pub logins: RateLimiter,
    /// Registrations, per client address.
    pub registrations: RateLimiter,
    /// Letters an account's requests send (verification links, reset links), per account
    /// and per address, hourly.
    pub letters: RateLimiter,
    /// Requests for a reset link, per client address and per address or username asked for.
    pub resets: RateLimiter,
}

impl Accounts {
    /// The service: tokens signed with `keys`, refresh tokens living `refresh_ttl_seconds`,
    /// passwords hashed by `passwords`, attempts limited by `limits`, time told by `clock`.
    pub fn new(
        db: Db,
        keys: TokenKeys,
        refresh_ttl_seconds: u64,
        passwords: Passwords,
        limits: Limits,
        clock: Arc<dyn Clock>,
        mail: Mail,
    ) -> Accounts {
        Accounts {
            clock,
            mail,
            db,
            keys,
            refresh_ttl_seconds: refresh_ttl_seconds as i64,
            passwords,
            limits,
            liveness: liveness::Liveness::default(),
            personal: personal_tokens::Remembered::default(),
        }
    }

    /// Who a bearer token (an access token or a personal access token) speaks for and what it
    /// may do, if the token is valid and its account still exists.
    pub async fn authenticate(&self, bearer: &str) -> Result<Credentials, AccountError> {
        let (credentials, issued_at) = if personal::is_personal(bearer) {
            (self.authenticate_personal(bearer).await?, None)
        } else {
            let (account_id, issued_at) = self
                .keys
                .verify_issued(bearer)
                .ok_or(AccountError::InvalidToken)?;
            let credentials = Credentials {
                account_id,
                scopes: Scopes::all(),
                token_id: None,
            };
            (credentials, Some(issued_at))
        };
        self.check_alive(&credentials.account_id, issued_at).await?;
        Ok(credentials)
    }

    /// Whether an account still exists (deleted accounts' tokens stop working) and, for an
    /// access token issued at `issued_at`, whether a password reset since refused it.
    async fn check_alive(
        &self,
        account_id: &str,
        issued_at: Option<i64>,
    ) -> Result<(), AccountError> {
        let standing = match self.liveness.known(account_id, issued_at) {
            Some(standing) => standing,
            None => {
                let valid_from = self
                    .db
                    .tokens_valid_from(account_id)
                    .await?
                    .ok_or(AccountError::AccountNotFound)?;
                self.liveness.found_alive(account_id, valid_from, issued_at)
            }
        };
        match standing {
            Standing::Good => Ok(()),
            Standing::Refused => Err(AccountError::InvalidToken),
            Standing::Deleted => Err(AccountError::AccountNotFound),
        }
    }

    /// Checks the caller's password before something that cannot be undone. Attempts count
    /// against the login limit of the account.
    async fn confirm_password(
        &self,
        account_id: &str,
        password: String,
    ) -> Result<(), AccountError> {
        self.limits
            .logins
            .check(&[&format!("account:{account_id}")])
            .map_err(|retry_after| AccountError::TooManyAttempts { retry_after })?;
        let account = self
            .db
            .account_by_id(account_id)
            .await?
            .ok_or(AccountError::AccountNotFound)?;
        let matches = self
            .passwords
            .verify(password, Some(account.password_hash))
            .await
            .map_err(AccountError::Hashing)?;
        if !matches {
            return Err(AccountError::WrongPassword);
        }
        Ok(())
    }

    /// Deletes the caller's account once `password` is confirmed, in one transaction: it leaves
    /// a tombstone (`[deleted]`) in the matches it played, can no longer log in, and every
    /// token, stream ticket, webhook and notification it had is gone. Its seats in matches not
    /// yet started are given up after (see [`crate::matches::deletions`]).
    pub async fn delete(&self, account_id: &str, password: String) -> Result<(), AccountError> {
        self.confirm_password(account_id, password).await?;
        self.db
            .tombstone_account(account_id, self.clock.now())
            .await?;
        self.liveness.deleted(account_id);
        Ok(())
    }

    /// Registers an account. Registrations are limited per client address: each costs a
    /// password hash.
    pub async fn register(
        &self,
        request: NewAccount,
        client: Option<IpAddr>,
    ) -> Result<AccountView, AccountError> {
        let NewAccount { username, password } = request;
        check_username(&username)?;
        check_password(&password)?;
        let address = client.map(|ip| format!("ip:{ip}")).unwrap_or_default();
        self.limits
            .registrations
            .check(&[&address])
            .map_err(|retry_after| AccountError::TooManyAttempts { retry_after })?;
        let account = Account {
            id: uuid::Uuid::new_v4().to_string(),
            username,
            password_hash: self
                .passwords
                .hash(password)
                .await
                .map_err(AccountError::Hashing)?,
            created_at: self.clock.now(),
        };
        match self.db.insert_account(&account).await {
            Ok(()) => Ok(account.into()),
            Err(StoreError::Conflict(_)) => Err(AccountError::UsernameTaken(account.username)),
            Err(other) => Err(other.into()),
        }
    }

    /// The caller's account, with its address.
    pub async fn profile(&self, account_id: &str) -> Result<AccountView, AccountError> {
        let account = self.account(account_id).await?;
        let mut view = AccountView::from(account);
        view.email = self.email(account_id).await?;
        Ok(view)
    }

    /// The living account with this id.
    async fn account(&self, account_id: &str) -> Result<Account, AccountError> {
        self.db
            .account_by_id(account_id)
            .await?
            .ok_or(AccountError::AccountNotFound)
    }
}

fn check_username(username: &str) -> Result<(), AccountError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !(3..=32).contains(&username.len()) || !username.chars().all(allowed) {
        return Err(AccountError::InvalidUsername);
    }
    Ok(())
}

fn check_password(password: &str) -> Result<(), AccountError> {
    if !(8..=256).contains(&password.chars().count()) {
        return Err(AccountError::WeakPassword);
    }
    Ok(())
}
