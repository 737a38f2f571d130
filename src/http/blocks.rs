//! `GET /v1/me/blocks`, `POST` and `DELETE /v1/me/blocks/{username}`: the accounts the caller
//! keeps away from their tables (docs/community.md, "Blocking").

use actix_web::{HttpResponse, delete, get, post, web};

use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller, Read};
use crate::matches::Matches;
use crate::matches::blocks::{BlockList, BlockView};

/// The accounts you block, by username.
#[utoipa::path(
    tag = "accounts",
    responses((status = 200, description = "Every block in force", body = BlockList)),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/blocks")]
pub async fn list_blocks(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
) -> Result<web::Json<BlockList>, ApiError> {
    Ok(web::Json(matches.blocks(caller.player()).await?))
}

/// Block an account: it cannot invite you, quick pairing never seats it with you, it cannot
/// join a waiting table you created, and its talk and nudges no longer reach you (they stay in
/// the match's log). It is not told, and nothing it can read changes. Blocking an account you
/// block already answers the block in force (200).
#[utoipa::path(
    tag = "accounts",
    params(("username" = String, Path, description = "The account to block (any case)")),
    responses(
        (status = 201, description = "Blocked", body = BlockView),
        (status = 200, description = "Blocked before: the block in force", body = BlockView),
        (status = 404, description = "`unknown_username`: no person's account has this name (bots and deleted accounts have none)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_blocks` (1,000 at once)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`cannot_block_yourself`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[post("/v1/me/blocks/{username}")]
pub async fn block(
    matches: web::Data<Matches>,
    caller: Caller<AccountScope>,
    username: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (block, now) = matches.block(caller.player(), &username).await?;
    let mut response = match now {
        true => HttpResponse::Created(),
        false => HttpResponse::Ok(),
    };
    Ok(response.json(block))
}

/// Lift a block. What the account says from now on reaches you again; talk written while the
/// block was in force stays hidden from you.
#[utoipa::path(
    tag = "accounts",
    params(("username" = String, Path, description = "The blocked account (any case)")),
    responses(
        (status = 204, description = "Lifted"),
        (status = 404, description = "`unknown_username`, or `not_blocked`: you do not block this account", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[delete("/v1/me/blocks/{username}")]
pub async fn unblock(
    matches: web::Data<Matches>,
    caller: Caller<AccountScope>,
    username: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    matches.unblock(caller.player(), &username).await?;
    Ok(HttpResponse::NoContent().finish())
}
