//! `GET` and `PUT /v1/matches/{id}/notes`: a player's private notes on a match.

use actix_web::{get, put, web};

use crate::http::body::Json;
use crate::http::error::{ApiError, Problem};
use crate::http::extract::{Caller, Play, Read};
use crate::matches::Matches;
use crate::matches::notes::{NewNotes, NotesView};
use utoipa_actix_web::service_config::ServiceConfig;

/// Your private notes on a match you have a seat in: nobody else ever reads them, and they are
/// kept after the match ends (never in its export).
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    responses(
        (status = 200, description = "Your notes (empty text: none)", body = NotesView),
        (status = 403, description = "`not_a_player`: you have no seat in this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/notes")]
pub async fn get_notes(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
    id: web::Path<String>,
) -> Result<web::Json<NotesView>, ApiError> {
    Ok(web::Json(matches.notes(&id, caller.player()).await?))
}

/// Write your private notes on a match you have a seat in, replacing what they held (an empty
/// text removes them). At most 10,000 characters.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id")),
    request_body = NewNotes,
    responses(
        (status = 200, description = "Kept", body = NotesView),
        (status = 403, description = "`not_a_player`: you have no seat in this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`notes_too_long`, or a bad body", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[put("/v1/matches/{id}/notes")]
pub async fn put_notes(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
    body: Json<NewNotes>,
) -> Result<web::Json<NotesView>, ApiError> {
    let notes = matches
        .put_notes(&id, caller.player(), body.into_inner())
        .await?;
    Ok(web::Json(notes))
}

/// Registers this file's routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config.service(get_notes).service(put_notes);
}
