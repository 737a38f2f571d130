//! `POST /v1/matches/{id}/messages`; `GET`, `PUT` and `DELETE /v1/matches/{id}/mute`: a
//! reader's mute of a table's talk (docs/community.md, "Muting a table").

use actix_web::{HttpResponse, delete, get, post, put, web};

use crate::http::body::Json;
use crate::http::error::{ApiError, Problem};
use crate::http::extract::{Caller, Play, Read};
use crate::matches::mutes::TalkMute;
use crate::matches::{LoggedEvent, Matches, NewMessage};
use utoipa_actix_web::service_config::ServiceConfig;

/// Say something to the table: a seated player's message, written into the match's log as a
/// `table_talk` event while the match is played.
///
/// Everyone who reads the match's feed, stream or export gets it, in order with the play (on a
/// public match, spectators too). It changes nothing at the table, so a move whose
/// `expected_version` was read before it is still accepted. Plain text of 1–500 characters with
/// no control characters but line breaks and no bidirectional embeddings, overrides or isolates,
/// never interpreted as markup; at most 10 messages in any 60 seconds per seat (`Retry-After`
/// says when the next may be said).
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    request_body = NewMessage,
    responses(
        (status = 201, description = "Said: the feed item it became", body = LoggedEvent),
        (status = 403, description = "`not_a_player`: you have no seat in this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_started`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_message` (empty, too long, control characters, bidirectional controls), `hand_over` (the match is over), or a bad body", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_messages`: 10 in the last minute; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/matches/{id}/messages")]
pub async fn post_message(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
    body: Json<NewMessage>,
) -> Result<HttpResponse, ApiError> {
    let said = matches.say(&id, caller.player(), body.into_inner()).await?;
    Ok(HttpResponse::Created().json(said))
}

/// Whether you muted this match's talk.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "Muted or not", body = TalkMute),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/mute")]
pub async fn get_mute(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
    id: web::Path<String>,
) -> Result<web::Json<TalkMute>, ApiError> {
    Ok(web::Json(matches.talk_mute(&id, caller.player()).await?))
}

/// Mute this match's talk for yourself: the other seats' `table_talk` is left out of your feed
/// and stream until you unmute it. Nobody else is told, and the log keeps every word. Muting
/// a muted match answers the mute in force.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "Muted", body = TalkMute),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[put("/v1/matches/{id}/mute")]
pub async fn mute(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<web::Json<TalkMute>, ApiError> {
    Ok(web::Json(matches.mute_talk(&id, caller.player()).await?))
}

/// Hear this match's talk again, what was said while it was muted too.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "Not muted", body = TalkMute),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[delete("/v1/matches/{id}/mute")]
pub async fn unmute(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<web::Json<TalkMute>, ApiError> {
    Ok(web::Json(matches.unmute_talk(&id, caller.player()).await?))
}

/// Registers this file's routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(post_message)
        .service(get_mute)
        .service(mute)
        .service(unmute);
}
