//! `POST /v1/matches`, `GET /v1/matches`, `GET /v1/matches/{id}`, `POST …/join`, `POST …/leave`,
//! `POST …/invitations`.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};

use crate::http::body::{Json, OptionalJson};
use crate::http::error::{ApiError, Problem};
use crate::http::extract::{Caller, Play, Watcher};
use crate::matches::{
    CreateMatch, Invitation, InvitationView, JoinMatch, ListQuery, MatchPage, MatchSummary, Matches,
};
use utoipa_actix_web::service_config::ServiceConfig;

/// Create a match; the creator takes seat 0, and any `bots` asked for the seats after it. A
/// table the bots fill starts at once (solo play).
#[utoipa::path(
    tag = "matches",
    request_body = CreateMatch,
    responses(
        (status = 201, description = "Created", body = MatchSummary, headers(("Location" = String, description = "The new match: `/v1/matches/{id}`"))),
        (status = 422, description = "Invalid rules (`invalid_rules`, naming the option in `field`), `invalid_clock`, `too_many_bots`, or body; a `rated` table that cannot be rated: `rated_needs_clock`, `rated_needs_claim_or_forfeit`, `rated_needs_people`, `rated_needs_preset_rules`, `rated_without_hints` (docs/ratings.md)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches")]
pub async fn create_match(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    body: Json<CreateMatch>,
) -> Result<HttpResponse, ApiError> {
    let created = matches.create(caller.player(), body.into_inner()).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/matches/{}", created.id)))
        .json(created))
}

/// List the open public lobby (default), the public matches being played (`status=playing`), the caller's matches (`mine=true`), their inbox (`turn=mine`) or the public matches of the players they follow (`followed=true`).
///
/// A player looking for the matches they sit in must send `mine=true` (with a token): the
/// default lists only public matches waiting for players, for anybody, also without a token;
/// `status` picks other public ones (`playing`: tables to watch). `followed=true` (with a
/// token) lists the public matches, open and being played, of the players you follow
/// (`GET /v1/me/follows`). Pages are cursor-based: pass `next_cursor` as `cursor`.
#[utoipa::path(
    tag = "matches",
    params(ListQuery),
    responses(
        (status = 200, description = "A page", body = MatchPage),
        (status = 401, description = "`mine`, `turn` or `followed` without a token (`missing_token`), or an invalid token", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad cursor, limit or filter", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/matches")]
pub async fn list_matches(
    matches: web::Data<Matches>,
    watcher: Watcher,
    query: web::Query<ListQuery>,
) -> Result<web::Json<MatchPage>, ApiError> {
    Ok(web::Json(
        matches.list(watcher.viewer(), query.into_inner()).await?,
    ))
}

/// The public summary of a match (of a public one, also for anybody without a token).
///
/// Its rules, seats, status, clock and, once over, its result; never a hand. A private match
/// answers only its players (others get `404`, as if it did not exist).
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id"), ("watch" = Option<String>, Query, description = "A private match's spectator code (its players find it in the summary's `spectator_code`): watch it as a spectator")),
    responses(
        (status = 200, description = "The summary", body = MatchSummary),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}")]
pub async fn get_match(
    matches: web::Data<Matches>,
    watcher: Watcher,
    id: web::Path<String>,
) -> Result<web::Json<MatchSummary>, ApiError> {
    Ok(web::Json(matches.summary(&id, watcher.viewer()).await?))
}

/// Take the lowest free seat; the match starts by itself when every seat is taken. Joining a
/// match you already sit in answers the same again (with or without the invite code), so a
/// retry after an unclear failure is safe.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    request_body = JoinMatch,
    responses(
        (status = 200, description = "Seated (also when you already were)", body = MatchSummary),
        (status = 404, description = "No such match, or a wrong invite code", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_in_rematch`: the seats of a rematch are kept for the players of the match before it; `seat_declined`: the table's creator does not take you (docs/community.md)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_full`: every seat is taken, or the match has started", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/join")]
pub async fn join_match(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
    body: OptionalJson<JoinMatch>,
) -> Result<web::Json<MatchSummary>, ApiError> {
    let request = body.0.unwrap_or_default();
    Ok(web::Json(
        matches.join(&id, caller.player(), request).await?,
    ))
}

/// Give up a seat: before the match starts the seat is freed; once it has started, leaving is
/// resigning (the seat is out, docs/rules.md §7).
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 204, description = "Left, or resigned"),
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_started`: the match is over", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`seat_out`: you have left already", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/leave")]
pub async fn leave_match(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    matches.leave(&id, caller.player()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Invite an account to your private match, waiting for players: they are told (`invited`,
/// with the invite code) on their notification stream and webhooks. Inviting the same account
/// again answers the first invitation (200) and tells them nothing twice.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    request_body = Invitation,
    responses(
        (status = 201, description = "Invited", body = InvitationView),
        (status = 200, description = "Invited before: the first invitation", body = InvitationView),
        (status = 403, description = "`not_match_creator`; `invitation_declined`: the account does not take invitations from you (docs/community.md)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_private`, `match_started`, `already_seated`, `too_many_invitations` (20 a match)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_username`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/invitations")]
pub async fn invite(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
    body: Json<Invitation>,
) -> Result<HttpResponse, ApiError> {
    let (invitation, now) = matches
        .invite(&id, caller.player(), body.into_inner())
        .await?;
    let mut response = match now {
        true => HttpResponse::Created(),
        false => HttpResponse::Ok(),
    };
    Ok(response.json(invitation))
}

/// Offer the players of an ended match a rematch: the same rules, clock and settings, every
/// player one seat on, and the deal moved on.
///
/// You sit down at once (bots too); each other player is told (`rematch_offered`) and accepts
/// by joining it (`POST /v1/matches/{id}/join`, no invite code needed); nobody else may join,
/// and it stays out of the lobby. Once everyone has joined, the first hand is dealt. The ended
/// match's `next_match_id` points to it, and offering again answers the same rematch (`200`).
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The ended match's id")),
    responses(
        (status = 201, description = "Offered: the rematch", body = MatchSummary, headers(("Location" = String, description = "The rematch: `/v1/matches/{id}`"))),
        (status = 200, description = "It had been offered already: the rematch", body = MatchSummary),
        (status = 403, description = "`not_a_player`: you did not play this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_over`: it has not ended; `player_gone`: one of its players has deleted their account", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/rematch")]
pub async fn rematch(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let rematch = matches.rematch(&id, caller.player()).await?;
    Ok(match rematch.created {
        true => HttpResponse::Created()
            .insert_header((
                header::LOCATION,
                format!("/v1/matches/{}", rematch.summary.id),
            ))
            .json(rematch.summary),
        false => HttpResponse::Ok().json(rematch.summary),
    })
}

/// Registers this file's routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(create_match)
        .service(list_matches)
        .service(get_match)
        .service(join_match)
        .service(leave_match)
        .service(invite)
        .service(rematch);
}
