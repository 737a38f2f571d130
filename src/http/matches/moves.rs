//! `GET /v1/matches/{id}/view` and `POST /v1/matches/{id}/moves`.

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpRequest, HttpResponse, get, post, web};

use crate::http::body::Json;
use crate::http::error::{ApiError, Problem};
use crate::http::extract::{Caller, Idempotency, Play, Watcher};
use crate::http::headers;
use crate::matches::{LoggedEvent, MatchView, Matches, MoveRequest};
use utoipa_actix_web::service_config::ServiceConfig;

/// The caller's private view (a spectator's view of a public match for others, also for
/// anybody without a token). Supports `ETag` / `If-None-Match`.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = uuid::Uuid, Path, description = "The match's id"),
        ("If-None-Match" = Option<String>, Header, description = "An `ETag` from an earlier answer (or several, comma-separated, or `*`): answers `304` with no body while the view has not changed"),
        ("watch" = Option<String>, Query, description = "A private match's spectator code (its players find it in the summary's `spectator_code`): watch it as a spectator"),
    ),
    responses(
        (status = 200, description = "The view", body = MatchView, headers(("ETag" = String, description = "Changes with every event"))),
        (status = 304, description = "Unchanged since the given ETag"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_started`", body = Problem, content_type = "application/problem+json"),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/view")]
pub async fn get_view(
    request: HttpRequest,
    matches: web::Data<Matches>,
    watcher: Watcher,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let view = matches.view(&id, watcher.viewer()).await?;
    // A late seat becomes claimable with no new event: that changes the tag too.
    let etag = format!(
        "\"v{}-{}{}\"",
        view.version(),
        view.seat().map_or("s".to_owned(), |seat| seat.to_string()),
        if view.claimable() { "-late" } else { "" }
    );
    if headers::unchanged(&request, &etag) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .content_type(ContentType::json())
        .body(view.json()))
}

/// Make a move: any action of `legal_actions` on your turn; `{"type": "resign"}` at any moment;
/// `{"type": "abort"}` while the view's `can_abort`. Nothing is written on any error. With an
/// `Idempotency-Key` header, a retry with the same body gets the first answer again without a
/// second move.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = uuid::Uuid, Path, description = "The match's id"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 128 visible ASCII characters; makes retries safe", pattern = "^[!-~]{1,128}$"),
    ),
    request_body = MoveRequest,
    responses(
        (status = 200, description = "Accepted: the new view", body = MatchView),
        (status = 400, description = "`invalid_idempotency_key`, or malformed JSON (`malformed_json`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: you have no seat in this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict` (with `current_version`) or `match_not_started`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Refused by the rules (the engine's code, e.g. `not_your_turn`, `does_not_fit`, and a sentence), a bad body, or `idempotency_key_reused` with another body", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/moves")]
pub async fn post_move(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
    Idempotency(key): Idempotency,
    body: Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let answer = matches
        .play(&id, caller.player(), body.into_inner(), key)
        .await?;
    let mut response = HttpResponse::Ok();
    if answer.replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(response.content_type("application/json").body(answer.body))
}

/// Claim a late seat: once the seat to move has passed its deadline at a match whose late
/// seats are claimed (`on_timeout: claim`), any other seat still in may forfeit it; play goes
/// on without it (or, with one seat left, that seat wins). Answers the caller's view after.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "The late seat is out: the new view", body = MatchView),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`not_claimable` (no clock that takes claims, the deadline has not passed, or it is your own turn), `match_not_started`, or `version_conflict`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`seat_out` (you are out yourself) or `hand_over`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/claim")]
pub async fn claim(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<web::Json<MatchView>, ApiError> {
    Ok(web::Json(matches.claim(&id, caller.player()).await?))
}

/// Nudge the seat to move: another seat still in reminds it that the table waits, with a
/// `nudged` notification (stream and webhooks) and a `nudged` entry in the log.
///
/// Once a turn, and not before a quarter of the turn's time (an hour at a match without a clock)
/// has passed since the turn began; `Retry-After` says when. It changes nothing at the table: a
/// move whose `expected_version` was read before it is still accepted. Answers the feed item it
/// became.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 201, description = "Nudged: the feed item it became", body = LoggedEvent),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`nudge_too_early` (see `Retry-After`), `already_nudged` (once a turn), `not_nudgeable` (your own turn, or a bot's), `match_not_started`, or `version_conflict`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "With `nudge_too_early`: seconds until the seat may be nudged"))),
        (status = 422, description = "`seat_out` (you are out yourself) or `hand_over`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/nudge")]
pub async fn nudge(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let nudged = matches.nudge(&id, caller.player()).await?;
    Ok(HttpResponse::Created().json(nudged))
}

/// Give the seat to move more time: another seat still in adds the table's time for a turn to
/// its bank, so this turn's deadline moves by as much (what the turn does not use stays in the
/// bank), with a `time_given` entry in the log.
///
/// Once a turn, before its deadline, at a table with a clock; not to a bot. It changes nothing
/// at the table: a move whose `expected_version` was read before it is still accepted. Answers
/// the feed item it became.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 201, description = "Given: the feed item it became", body = LoggedEvent),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`time_given_already` (once a turn), `time_not_givable` (no clock, your own turn, a bot's, or a deadline passed), `match_not_started`, or `version_conflict`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`seat_out` (you are out yourself) or `hand_over`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/give-time")]
pub async fn give_time(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let given = matches.give_time(&id, caller.player()).await?;
    Ok(HttpResponse::Created().json(given))
}

/// Registers the view and the move, the routes a game's traffic is made of, ahead of every
/// other ([`super::configure_hot`]).
pub fn configure_hot(config: &mut ServiceConfig) {
    config.service(get_view).service(post_move);
}

/// Registers this file's other routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config.service(claim).service(nudge).service(give_time);
}
