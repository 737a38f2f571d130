//! `POST /v1/auth/login`, `/refresh` and `/logout`.

use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, Problem};
use crate::auth::{RateLimiter, TokenKeys, password, refresh};
use crate::config::Settings;
use crate::store::{self, Db, tokens::RefreshToken, tokens::Rotation};

/// Credentials.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "maya", "password": "correct horse battery"}))]
pub struct Login {
    /// Username (any case).
    pub username: String,
    /// Password.
    pub password: String,
}

/// A refresh token presented for rotation or logout.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "q2V0m3n1bW9yZS1yYW5kb20tYnl0ZXMtaGVyZQ"}))]
pub struct RefreshRequest {
    /// The refresh token from the last login or refresh.
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

/// A new access token and refresh token (to be stored by the caller) in a family.
fn issue_pair(
    keys: &TokenKeys,
    settings: &Settings,
    account_id: &str,
    family_id: String,
) -> (TokenPair, RefreshToken) {
    let now = store::now();
    let token = refresh::generate();
    let ttl = settings.refresh_token_ttl_seconds as i64;
    let stored = RefreshToken {
        token_hash: refresh::hash(&token),
        account_id: account_id.to_owned(),
        family_id,
        expires_at: now + ttl,
        used_at: None,
        revoked_at: None,
    };
    let pair = TokenPair {
        access_token: keys.issue(account_id, now),
        token_type: "Bearer",
        expires_in: keys.ttl_seconds(),
        refresh_token: token,
        refresh_expires_in: ttl,
    };
    (pair, stored)
}

/// Log in: exchange a username and password for tokens.
#[utoipa::path(
    tag = "auth",
    request_body = Login,
    responses(
        (status = 200, description = "Logged in", body = TokenPair),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong username or password (`invalid_credentials`); the same answer for both", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Body of the wrong shape", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many attempts; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "Database unavailable", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/auth/login")]
pub async fn login(
    request: HttpRequest,
    db: web::Data<Db>,
    keys: web::Data<TokenKeys>,
    settings: web::Data<Settings>,
    limiter: web::Data<RateLimiter>,
    body: web::Json<Login>,
) -> Result<web::Json<TokenPair>, ApiError> {
    let Login { username, password } = body.into_inner();
    // The direct peer, not a forwarded header a client could forge.
    let address = request
        .peer_addr()
        .map(|peer| format!("ip:{}", peer.ip()))
        .unwrap_or_default();
    let user_key = format!("user:{}", username.to_lowercase());
    limiter
        .check(&[&address, &user_key])
        .map_err(|retry_after| ApiError::TooManyRequests { retry_after })?;
    let account = db.account_by_username(&username).await?;
    let valid = password::verify(
        password,
        account
            .as_ref()
            .map(|account| account.password_hash.clone()),
    )
    .await?;
    let account = match account {
        Some(account) if valid => account,
        _ => {
            return Err(ApiError::Unauthorized(
                "invalid_credentials",
                "The username or password is wrong.",
            ));
        }
    };
    let (pair, stored) = issue_pair(
        &keys,
        &settings,
        &account.id,
        uuid::Uuid::new_v4().to_string(),
    );
    db.insert_refresh_token(&stored, store::now()).await?;
    Ok(web::Json(pair))
}

/// Exchange a refresh token for a new pair; the old one is spent. Presenting a spent token
/// revokes every token descended from the same login.
#[utoipa::path(
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens", body = TokenPair),
        (status = 401, description = "Unknown or expired (`invalid_refresh_token`), or reused (`refresh_token_reused`: the whole family is revoked)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Body of the wrong shape", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Database unavailable", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/auth/refresh")]
pub async fn refresh_tokens(
    db: web::Data<Db>,
    keys: web::Data<TokenKeys>,
    settings: web::Data<Settings>,
    body: web::Json<RefreshRequest>,
) -> Result<web::Json<TokenPair>, ApiError> {
    let invalid = ApiError::Unauthorized(
        "invalid_refresh_token",
        "The refresh token is invalid or expired.",
    );
    let Some(old) = db
        .refresh_token(&refresh::hash(&body.refresh_token))
        .await?
    else {
        return Err(invalid);
    };
    let (pair, next) = issue_pair(&keys, &settings, &old.account_id, old.family_id.clone());
    match db.rotate_refresh_token(&old, &next, store::now()).await? {
        Rotation::Rotated => Ok(web::Json(pair)),
        Rotation::Invalid => Err(invalid),
        Rotation::Reused => {
            tracing::warn!(family = %old.family_id, "refresh token reused: family revoked");
            Err(ApiError::Unauthorized(
                "refresh_token_reused",
                "This refresh token was already used: every session from that login is now signed out.",
            ))
        }
    }
}

/// Log out: revoke the refresh token and every token of its login. Always 204.
#[utoipa::path(
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 204, description = "Logged out (also for an unknown token)"),
        (status = 422, description = "Body of the wrong shape", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Database unavailable", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/auth/logout")]
pub async fn logout(
    db: web::Data<Db>,
    body: web::Json<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    if let Some(token) = db
        .refresh_token(&refresh::hash(&body.refresh_token))
        .await?
    {
        db.revoke_family(&token.family_id, store::now()).await?;
    }
    Ok(HttpResponse::NoContent().finish())
}
