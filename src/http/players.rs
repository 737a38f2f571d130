//! `GET /v1/players/{username}`: a player's page.

use actix_web::{get, web};

use super::error::{ApiError, Problem};
use super::extract::Watcher;
use crate::matches::Matches;
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
