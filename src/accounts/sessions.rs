//! Sessions: a login issues an access token and a refresh token; each refresh spends its token
//! and issues the next of the same family; a token presented twice revokes its whole family.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{AccountError, Accounts};
use crate::auth::refresh;
use crate::store::tokens::{RefreshToken, Rotation};

/// Credentials.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "maya", "password": "correct horse battery"}))]
pub struct Login {
    /// In any case.
    pub username: String,
    /// As registered.
    pub password: String,
}

/// A refresh token presented for rotation or logout.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "q2V0m3n1bW9yZS1yYW5kb20tYnl0ZXMtaGVyZQ"}))]
pub struct RefreshRequest {
    /// The refresh token from the last login or refresh (base64url, as the server gave it).
    #[schema(pattern = "^[A-Za-z0-9_-]+$")]
    pub refresh_token: String,
}

/// A new pair of tokens.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "access_token": "eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.e30.sig",
    "token_type": "Bearer",
    "expires_in": 900,
    "refresh_token": "q2V0m3n1bW9yZS1yYW5kb20tYnl0ZXMtaGVyZQ",
    "refresh_expires_in": 2592000
}))]
pub struct TokenPair {
    /// JWT for `Authorization: Bearer`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// Opaque; use once with `POST /v1/auth/refresh`.
    pub refresh_token: String,
    /// Seconds until the refresh token expires.
    pub refresh_expires_in: i64,
}

impl Accounts {
    /// Logs in: a new token pair starting a new family. Attempts are limited per client
    /// address and per username; an unknown username and a wrong password answer alike, in
    /// the same time.
    pub async fn login(
        &self,
        request: Login,
        client: Option<IpAddr>,
    ) -> Result<TokenPair, AccountError> {
        let Login { username, password } = request;
        let address = client.map(|ip| format!("ip:{ip}")).unwrap_or_default();
        let user_key = format!("user:{}", username.to_lowercase());
        self.limits
            .logins
            .check(&[&address, &user_key])
            .map_err(|retry_after| AccountError::TooManyAttempts { retry_after })?;
        let account = self.db.account_by_username(&username).await?;
        let stored_hash = account
            .as_ref()
            .map(|account| account.password_hash.clone());
        let valid = self
            .passwords
            .verify(password, stored_hash)
            .await
            .map_err(AccountError::Hashing)?;
        let account = match account {
            Some(account) if valid => account,
            _ => return Err(AccountError::InvalidCredentials),
        };
        let (pair, stored) = self.issue_pair(&account.id, uuid::Uuid::new_v4().to_string());
        self.db
            .insert_refresh_token(&stored, self.clock.now())
            .await?;
        Ok(pair)
    }

    /// Spends a refresh token for a new pair of the same family.
    pub async fn refresh(&self, request: RefreshRequest) -> Result<TokenPair, AccountError> {
        let Some(old) = self
            .db
            .refresh_token(&refresh::hash(&request.refresh_token))
            .await?
        else {
            return Err(AccountError::InvalidRefreshToken);
        };
        let (pair, next) = self.issue_pair(&old.account_id, old.family_id.clone());
        match self
            .db
            .rotate_refresh_token(&old, &next, self.clock.now())
            .await?
        {
            Rotation::Rotated => Ok(pair),
            Rotation::Invalid => Err(AccountError::InvalidRefreshToken),
            Rotation::Reused => {
                tracing::warn!(family = %old.family_id, "refresh token reused: family revoked");
                Err(AccountError::RefreshTokenReused)
            }
        }
    }

    /// Revokes the family of a refresh token (nothing happens for an unknown token).
    pub async fn logout(&self, request: RefreshRequest) -> Result<(), AccountError> {
        if let Some(token) = self
            .db
            .refresh_token(&refresh::hash(&request.refresh_token))
            .await?
        {
            self.db
                .revoke_family(&token.family_id, self.clock.now())
                .await?;
        }
        Ok(())
    }

    fn issue_pair(&self, account_id: &str, family_id: String) -> (TokenPair, RefreshToken) {
        let now = self.clock.now();
        let token = refresh::generate();
        let stored = RefreshToken {
            token_hash: refresh::hash(&token),
            account_id: account_id.to_owned(),
            family_id,
            expires_at: now + self.refresh_ttl_seconds,
            used_at: None,
            revoked_at: None,
        };
        let pair = TokenPair {
            access_token: self.keys.issue(account_id, now),
            token_type: "Bearer",
            expires_in: self.keys.ttl_seconds(),
            refresh_token: token,
            refresh_expires_in: self.refresh_ttl_seconds,
        };
        (pair, stored)
    }
}
