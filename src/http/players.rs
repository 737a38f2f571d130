//! `GET /v1/players/{username}`: a player's page; `GET /v1/leaderboards/{pool}`: a rating
//! pool's players, best first.

use actix_web::{get, web};

use super::error::{ApiError, Problem};
use super::extract::Watcher;
use crate::matches::Matches;
use crate::matches::leaderboard::{BoardQuery, Leaderboard};
use crate::matches::players::PlayerPage;

/// A player's page: matches played, won, resigned, timed out, aborted and being played,
/// overall and by preset. Anybody may see it, also without a token: counts only, of public
/// matches only. A player reading their own page sees their private matches counted too
/// (`private_included`). Bot seats have no page.
#[utoipa::path(
    tag = "matches",
    params(("username" = String, Path, description = "The player's username (any case)")),
    responses(
        (status = 200, description = "The page", body = PlayerPage),
        (status = 404, description = "`player_not_found`", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/players/{username}")]
pub async fn get_player(
    matches: web::Data<Matches>,
    watcher: Watcher,
    username: web::Path<String>,
) -> Result<web::Json<PlayerPage>, ApiError> {
    Ok(web::Json(
        matches.player(&username, watcher.viewer()).await?,
    ))
}

/// A rating pool's leaderboard: its players by their rating, best first (docs/ratings.md),
/// paged. Established players by default; `provisional=true` gives the board of those whose
/// rating is still provisional. Deleted accounts are left out. Anybody may see it.
#[utoipa::path(
    tag = "matches",
    params(
        ("pool" = String, Path, description = "The pool: `standard`, `draw-first`, `foundations` or `night-one`"),
        BoardQuery,
    ),
    responses(
        (status = 200, description = "A page of the board", body = Leaderboard),
        (status = 404, description = "`pool_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_query`: a `limit` out of 1–100 or a `cursor` of something else", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/leaderboards/{pool}")]
pub async fn get_leaderboard(
    matches: web::Data<Matches>,
    _watcher: Watcher,
    pool: web::Path<String>,
    query: web::Query<BoardQuery>,
) -> Result<web::Json<Leaderboard>, ApiError> {
    Ok(web::Json(
        matches.leaderboard(&pool, query.into_inner()).await?,
    ))
}
