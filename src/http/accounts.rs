//! `POST /v1/accounts` and `GET /v1/me`.

use actix_web::{HttpRequest, HttpResponse, get, post, web};

use super::error::{ApiError, Problem};
use super::extract::AuthUser;
use crate::accounts::{AccountView, Accounts, NewAccount};

/// Register an account.
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
    body: web::Json<NewAccount>,
) -> Result<HttpResponse, ApiError> {
    let client = request.peer_addr().map(|peer| peer.ip());
    let account = accounts.register(body.into_inner(), client).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", "/v1/me"))
        .json(account))
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The account", body = AccountView),
    ),
    security(("bearer" = []))
)]
#[get("/v1/me")]
pub async fn me(
    accounts: web::Data<Accounts>,
    user: AuthUser,
) -> Result<web::Json<AccountView>, ApiError> {
    Ok(web::Json(accounts.profile(&user.account_id).await?))
}
