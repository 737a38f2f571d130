//! `GET /v1/me/follows`, `POST` and `DELETE /v1/me/follows/{username}`: the players the caller
//! follows (docs/community.md, "Following"); their public matches are
//! `GET /v1/matches?followed=true`.

use actix_web::{HttpResponse, delete, get, post, web};

use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller, Read};
use crate::matches::Matches;
use crate::matches::follows::{FollowList, FollowView};

/// The players you follow, by username.
#[utoipa::path(
    tag = "accounts",
    responses((status = 200, description = "Every player you follow", body = FollowList)),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/follows")]
pub async fn list_follows(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
) -> Result<web::Json<FollowList>, ApiError> {
    Ok(web::Json(matches.players_followed(caller.player()).await?))
}

/// Follow a player: their public matches, open and being played, are listed by
/// `GET /v1/matches?followed=true`. Following a player you follow already answers that follow
/// (200).
#[utoipa::path(
    tag = "accounts",
    params(("username" = String, Path, description = "The player to follow (any case)")),
    responses(
        (status = 201, description = "Followed", body = FollowView),
        (status = 200, description = "Followed before: the follow as it is", body = FollowView),
        (status = 403, description = "`follow_declined`: the player does not take you as a follower (docs/community.md)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`unknown_username`: no person's account has this name (bots and deleted accounts have none)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_follows` (1,000 at once)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`cannot_follow_yourself`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[post("/v1/me/follows/{username}")]
pub async fn follow(
    matches: web::Data<Matches>,
    caller: Caller<AccountScope>,
    username: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (follow, now) = matches.follow_player(caller.player(), &username).await?;
    let mut response = match now {
        true => HttpResponse::Created(),
        false => HttpResponse::Ok(),
    };
    Ok(response.json(follow))
}

/// Stop following a player.
#[utoipa::path(
    tag = "accounts",
    params(("username" = String, Path, description = "The player followed (any case)")),
    responses(
        (status = 204, description = "No longer followed"),
        (status = 404, description = "`unknown_username`, or `not_following`: you do not follow this player", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[delete("/v1/me/follows/{username}")]
pub async fn unfollow(
    matches: web::Data<Matches>,
    caller: Caller<AccountScope>,
    username: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    matches.unfollow_player(caller.player(), &username).await?;
    Ok(HttpResponse::NoContent().finish())
}
