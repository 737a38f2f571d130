//! `POST /v1/auth/login`, `/refresh` and `/logout`.

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
) -> Result<web::Json<TokenPair>, ApiError> {
    // The direct peer, not a forwarded header a client could forge.
    let client = request.peer_addr().map(|peer| peer.ip());
    Ok(web::Json(accounts.login(body.into_inner(), client).await?))
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
) -> Result<web::Json<TokenPair>, ApiError> {
    Ok(web::Json(accounts.refresh(body.into_inner()).await?))
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
