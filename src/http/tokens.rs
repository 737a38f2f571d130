//! `POST /v1/me/tokens`, `GET /v1/me/tokens` and `DELETE /v1/me/tokens/{id}`: personal access
//! tokens; `POST /v1/me/stream-tickets`: single-use tickets that open a stream.

use actix_web::http::header::{CACHE_CONTROL, LOCATION};
use actix_web::{HttpResponse, delete, get, post, web};

use super::body::Json;
use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller, Read};
use crate::accounts::{Accounts, CreatedToken, NewToken, StreamTicket, TokenList};

/// Create a personal access token for a bot, a command-line client or an integration: send it
/// as `Authorization: Bearer kcp_…`. It may do what its scopes name, never more than the token
/// creating it. The token is in this answer only; the server keeps a hash.
#[utoipa::path(
    tag = "accounts",
    request_body = NewToken,
    responses(
        (status = 201, description = "Created; `token` is shown this once", body = CreatedToken, headers(("Location" = String, description = "The list of your tokens, `/v1/me/tokens`"))),
        (status = 403, description = "`insufficient_scope`: a scope asked for that the caller's token lacks", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_tokens` (50 an account)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_token_request`, naming the field", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[post("/v1/me/tokens")]
pub async fn create_token(
    accounts: web::Data<Accounts>,
    caller: Caller<AccountScope>,
    body: Json<NewToken>,
) -> Result<HttpResponse, ApiError> {
    let created = accounts
        .create_token(&caller.credentials, body.into_inner())
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, "/v1/me/tokens"))
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(created))
}

/// The caller's personal access tokens, with their scopes and last use (never the tokens).
///
/// Revoke one with `DELETE /v1/me/tokens/{id}`: it leaves this list at once.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "Newest first", body = TokenList),
    ),
    security(("bearer" = ["account"]))
)]
#[get("/v1/me/tokens")]
pub async fn list_tokens(
    accounts: web::Data<Accounts>,
    caller: Caller<AccountScope>,
) -> Result<web::Json<TokenList>, ApiError> {
    Ok(web::Json(accounts.tokens(&caller.account_id).await?))
}

/// Revoke a personal access token: it stops working at once on this server process, and
/// within 5 seconds on every other. The stream tickets it asked for and has not used stop
/// working at once.
#[utoipa::path(
    tag = "accounts",
    params(("id" = uuid::Uuid, Path, description = "The token's id")),
    responses(
        (status = 204, description = "Revoked"),
        (status = 404, description = "No such token of yours (`not_found`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[delete("/v1/me/tokens/{id}")]
pub async fn revoke_token(
    accounts: web::Data<Accounts>,
    caller: Caller<AccountScope>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    accounts.revoke_token(&caller.account_id, &id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A stream ticket: for a browser, whose `EventSource` cannot send an `Authorization` header.
/// Open `GET /v1/matches/{id}/stream?ticket=…` or `GET /v1/me/stream?ticket=…` with it within
/// a minute; it works once, and only for reading. To reconnect, ask for a new one and pass the
/// last event's id as `after`.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 201, description = "Issued; valid for a minute, once", body = StreamTicket),
    ),
    security(("bearer" = ["read"]))
)]
#[post("/v1/me/stream-tickets")]
pub async fn create_stream_ticket(
    accounts: web::Data<Accounts>,
    caller: Caller<Read>,
) -> Result<HttpResponse, ApiError> {
    let ticket = accounts.issue_stream_ticket(&caller.credentials).await?;
    Ok(HttpResponse::Created()
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(ticket))
}
