//! `GET /v1/matches/{id}/replay` and `GET /v1/matches/{id}/export`.

use actix_web::{get, web};

use crate::http::error::{ApiError, Problem};
use crate::http::extract::{Caller, Read, Watcher};
use crate::matches::export::MatchExport;
use crate::matches::{MatchView, Matches, ReplayQuery};
use utoipa_actix_web::service_config::ServiceConfig;

/// The view as it was after event `at`: from the caller's seat while the match runs (a
/// spectator's for others), fully open, every hand shown, once it has ended.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id"), ReplayQuery, ("watch" = Option<String>, Query, description = "A private match's spectator code (its players find it in the summary's `spectator_code`): watch it as a spectator")),
    responses(
        (status = 200, description = "The view at `at`", body = MatchView),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`at` outside 0 … version", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/replay")]
pub async fn get_replay(
    matches: web::Data<Matches>,
    watcher: Watcher,
    id: web::Path<String>,
    query: web::Query<ReplayQuery>,
) -> Result<web::Json<MatchView>, ApiError> {
    Ok(web::Json(
        matches
            .replay(&id, watcher.viewer(), query.into_inner())
            .await?,
    ))
}

/// The whole log of a finished match with its revealed secret and client seeds, for
/// `kings-corner verify` or any re-implementation of docs/rules.md §9. Its players may export any
/// match they played; anyone may export a finished public match (as anyone may replay it).
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "The export", body = MatchExport),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_finished`: the secret stays secret until the end", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/export")]
pub async fn export_match(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
    id: web::Path<String>,
) -> Result<web::Json<MatchExport>, ApiError> {
    Ok(web::Json(
        matches.export(&id, caller.player().viewer()).await?,
    ))
}

/// Registers this file's routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config.service(get_replay).service(export_match);
}
