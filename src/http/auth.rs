//! `POST /v1/auth/login`, `/refresh` and `/logout`.

use actix_web::http::header::{CACHE_CONTROL, PRAGMA};
use actix_web::{HttpRequest, HttpResponse, post, web};

use super::error::{ApiError, Problem};
use crate::accounts::{Accounts, Login, RefreshRequest, TokenPair};
use crate::http::body::Json;

/// Log in: exchange a username and password for tokens.
#[utoipa::path(
    tag = "auth",
    request_body = Login,
    responses(
        (status = 200, description = "Logged in", body = TokenPair),
        (status = 401, description = "Wrong username or password (`invalid_credentials`); the same answer for both", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many attempts; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(())
)]
#[post("/v1/auth/login")]
pub async fn login(
    request: HttpRequest,
    accounts: web::Data<Accounts>,
    body: Json<Login>,
) -> Result<HttpResponse, ApiError> {
    let client = super::client::address_of(&request);
    let pair = accounts.login(body.into_inner(), client).await?;
    Ok(token_answer(pair))
}

/// Exchange a refresh token for a new pair; the old one is spent. Presenting a spent token
/// revokes every token descended from the same login.
#[utoipa::path(
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens", body = TokenPair),
        (status = 401, description = "Unknown or expired (`invalid_refresh_token`), or reused (`refresh_token_reused`: the whole family is revoked)", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/auth/refresh")]
pub async fn refresh_tokens(
    accounts: web::Data<Accounts>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    Ok(token_answer(accounts.refresh(body.into_inner()).await?))
}

/// Log out: revoke the refresh token and every token of its login. Always 204.
#[utoipa::path(
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 204, description = "Logged out (also for an unknown token)"),
    ),
    security(())
)]
#[post("/v1/auth/logout")]
pub async fn logout(
    accounts: web::Data<Accounts>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    accounts.logout(body.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Tokens, never to be kept by a cache on the way.
fn token_answer(pair: TokenPair) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CACHE_CONTROL, "no-store"))
        .insert_header((PRAGMA, "no-cache"))
        .json(pair)
}
