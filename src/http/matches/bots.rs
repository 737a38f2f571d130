//! `POST /v1/matches/{id}/bots` and `GET /v1/matches/{id}/hint`.

use actix_web::{get, post, web};

use crate::http::body::Json;
use crate::http::error::{ApiError, Problem};
use crate::http::extract::{Caller, Play};
use crate::matches::bots::BotRequest;
use crate::matches::hints::Hint;
use crate::matches::{MatchSummary, Matches};
use utoipa_actix_web::service_config::ServiceConfig;

/// Seat a bot in the lowest free seat of a match waiting for players (you must be seated in
/// it). The last seat taken deals the first hand. Bots see only their own seat and move
/// through the same checked moves as people, within about a second of their turn.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    request_body = BotRequest,
    responses(
        (status = 200, description = "Seated", body = MatchSummary),
        (status = 403, description = "`not_a_player`: only a seated player adds bots", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_full`, `match_started`, `seats_kept` (a rematch's free seats are kept for the players of the match before it)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Body (an unknown `level`), or `rated_needs_people`: a rated table seats people only", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/bots")]
pub async fn add_bot(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
    body: Json<BotRequest>,
) -> Result<web::Json<MatchSummary>, ApiError> {
    Ok(web::Json(
        matches
            .add_bot(&id, caller.player(), body.into_inner())
            .await?,
    ))
}

/// What the `expert` bot would play in your seat now, and why: computed from what your seat
/// may know, nothing more. Only on your turn, at a table that allows hints. Asking again for
/// the same position gives the same hint at no cost; at most 10 new hints a minute per account.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "A suggestion", body = Hint),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_started`, `hints_off`: the table plays without hints", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`not_your_turn`, `hand_over`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_hints`: 10 new hints in the last minute; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["play"]))
)]
#[get("/v1/matches/{id}/hint")]
pub async fn get_hint(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<web::Json<Hint>, ApiError> {
    Ok(web::Json(matches.hint(&id, caller.player()).await?))
}

/// Registers this file's routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config.service(add_bot).service(get_hint);
}
