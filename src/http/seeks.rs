//! `POST /v1/seeks`, `GET /v1/me/seeks`, `GET /v1/seeks/{id}`, `DELETE /v1/seeks/{id}`: quick
//! pairing.

use actix_web::http::header::LOCATION;
use actix_web::{HttpResponse, delete, get, post, web};

use super::body::Json;
use super::error::{ApiError, Problem};
use super::extract::{Caller, Play, Read};
use crate::matches::Matches;
use crate::matches::seeks::{NewSeek, SeekList, SeekView};

/// Ask for a table: the server seats compatible seeks together in a new match that starts at
/// once, and tells its players by `match_started`.
///
/// Seeks pair with seeks for the same preset, seats, clock, `on_timeout` and `rated`, from
/// other accounts, each seeker's shown rating within every other's `rating_range`. The seek
/// waiting longest is seated first, with the seekers whose ratings are closest to its own.
/// When enough seeks wait already, this answer is `matched` with the `match_id`; otherwise the
/// seek stays `open` until it is seated, withdrawn (`DELETE`) or expires. An unrated seek with
/// `bots_after_seconds` is seated with bots in the empty seats once it has waited that long.
#[utoipa::path(
    tag = "seeks",
    request_body = NewSeek,
    responses(
        (status = 201, description = "Made: `open`, or `matched` at once", body = SeekView, headers(("Location" = String, description = "The seek: `/v1/seeks/{id}`"))),
        (status = 409, description = "`too_many_seeks` (10 open seeks an account)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_seek` (the field at fault in `field`), `invalid_rules` (`seats`), `invalid_clock`, or a rated seek that cannot be rated: `rated_needs_clock`, `rated_needs_claim_or_forfeit`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/seeks")]
pub async fn create_seek(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    body: Json<NewSeek>,
) -> Result<HttpResponse, ApiError> {
    let seek = matches
        .create_seek(caller.player(), body.into_inner())
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/v1/seeks/{}", seek.id)))
        .json(seek))
}

/// The caller's seeks: every open one and the newest 50 matched or expired ones (kept a
/// week), newest first.
#[utoipa::path(
    tag = "seeks",
    responses((status = 200, description = "Newest first", body = SeekList)),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/seeks")]
pub async fn list_seeks(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
) -> Result<web::Json<SeekList>, ApiError> {
    Ok(web::Json(matches.seeks(caller.player()).await?))
}

/// One of the caller's seeks: whether it is still open, and once matched, its match.
#[utoipa::path(
    tag = "seeks",
    params(("id" = uuid::Uuid, Path, description = "The seek's id")),
    responses(
        (status = 200, description = "The seek", body = SeekView),
        (status = 404, description = "`seek_not_found`: no seek of yours has this id", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/seeks/{id}")]
pub async fn get_seek(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
    id: web::Path<String>,
) -> Result<web::Json<SeekView>, ApiError> {
    Ok(web::Json(matches.seek(caller.player(), &id).await?))
}

/// Withdraw a seek: it is never seated once this answers it `cancelled`, and from then on it
/// is gone (`404 seek_not_found`).
///
/// A seek expired already answers as it is. One seated already is refused with `409
/// seek_matched`, its match named in `detail` (and in `GET /v1/seeks/{id}`).
#[utoipa::path(
    tag = "seeks",
    params(("id" = uuid::Uuid, Path, description = "The seek's id")),
    responses(
        (status = 200, description = "Withdrawn (or expired already)", body = SeekView),
        (status = 404, description = "`seek_not_found`: no seek of yours has this id", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`seek_matched`: it was seated already", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[delete("/v1/seeks/{id}")]
pub async fn cancel_seek(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    id: web::Path<String>,
) -> Result<web::Json<SeekView>, ApiError> {
    Ok(web::Json(matches.cancel_seek(caller.player(), &id).await?))
}
