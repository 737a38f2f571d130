//! `POST /v1/accounts` and `GET /v1/me`.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};

use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller, Read};
use crate::accounts::{AccountView, Accounts, DeleteAccount, NewAccount};
use crate::http::body::Json;
use crate::matches::Matches;

/// Register an account.
///
/// A username is 3–32 characters of `A–Z a–z 0–9 _ -`, unique without regard to case; a
/// password 8–256 characters. Log in afterwards with `POST /v1/auth/login`.
#[utoipa::path(
    tag = "accounts",
    request_body = NewAccount,
    responses(
        (status = 201, description = "Created", body = AccountView),
        (status = 409, description = "Username taken (`username_taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid username or password (`invalid_username`, `weak_password`, `invalid_body`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many registrations from this address; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(())
)]
#[post("/v1/accounts")]
pub async fn register(
    request: HttpRequest,
    accounts: web::Data<Accounts>,
    body: Json<NewAccount>,
) -> Result<HttpResponse, ApiError> {
    let client = super::client::address_of(&request);
    let account = accounts.register(body.into_inner(), client).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", "/v1/me"))
        .json(account))
}

/// The caller's account.
///
/// Its id, username and creation time; the same id is the `sub` of its access tokens.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The account", body = AccountView),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me")]
pub async fn me(
    accounts: web::Data<Accounts>,
    caller: Caller<Read>,
) -> Result<web::Json<AccountView>, ApiError> {
    Ok(web::Json(accounts.profile(&caller.account_id).await?))
}

/// Delete the caller's account, confirmed with its password. The matches it played keep their
/// history under the name `[deleted]`; its seats in matches not yet started are given up; it
/// can no longer log in, and every token it had stops working.
#[utoipa::path(
    tag = "accounts",
    request_body = DeleteAccount,
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "`wrong_password`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["account"]))
)]
#[delete("/v1/me")]
pub async fn delete_me(
    accounts: web::Data<Accounts>,
    matches: web::Data<Matches>,
    caller: Caller<AccountScope>,
    body: Json<DeleteAccount>,
) -> Result<HttpResponse, ApiError> {
    let account_id = &caller.account_id;
    accounts
        .delete(account_id, body.into_inner().password)
        .await?;
    // The account is gone. Its open seats are given up now or, should this fail or the
    // process stop first, by the next look of any process (matches::deletions).
    if let Err(error) = matches.leave_open_matches(caller.player()).await {
        tracing::warn!(%error, "a deleted account's open seats wait for the next look");
    }
    Ok(HttpResponse::NoContent().finish())
}
