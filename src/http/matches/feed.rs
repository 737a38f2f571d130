//! `GET /v1/matches/{id}/events` (long-poll) and `GET /v1/matches/{id}/stream` (Server-Sent
//! Events).

use actix_web::{HttpResponse, get, web};

use crate::http::error::{ApiError, Problem};
use crate::http::extract::{LastEventId, StreamQuery, Watcher};
use crate::http::held::Held;
use crate::http::sse::{self, Frame};
use crate::matches::{EventsPage, FeedQuery, LoggedEvent, Matches};
use crate::notifications::Notifications;
use utoipa_actix_web::service_config::ServiceConfig;

/// The caller's redacted feed of the log, long-polling up to `wait` seconds.
///
/// Every event after `after`, as the caller's seat may see it: other seats' draws carry no
/// cards, and nobody sees the stock's order. Spectators of a public match see the same as a
/// seat without a hand. Ask again from the last `seq` to follow the match.
#[utoipa::path(
    tag = "matches",
    params(("id" = uuid::Uuid, Path, description = "The match's id"), FeedQuery, ("watch" = Option<String>, Query, description = "A private match's spectator code (its players find it in the summary's `spectator_code`): watch it as a spectator")),
    responses(
        (status = 200, description = "Events after `after`", body = EventsPage),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad `after` or `wait`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`too_many_held_connections` (see `Retry-After`), or the database is unreachable (`service_unavailable`)", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds to wait (with `too_many_held_connections`)"))),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/events")]
pub async fn get_events(
    matches: web::Data<Matches>,
    watcher: Watcher,
    id: web::Path<String>,
    query: web::Query<FeedQuery>,
    _held: Held,
) -> Result<web::Json<EventsPage>, ApiError> {
    Ok(web::Json(
        matches
            .events(&id, watcher.viewer(), query.into_inner())
            .await?,
    ))
}

/// The same feed as Server-Sent Events (`id` = seq, `event` = the event's type), resumable
/// with `Last-Event-ID`; a comment every 15 seconds keeps the connection open.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = uuid::Uuid, Path, description = "The match's id"),
        StreamQuery,
        ("watch" = Option<String>, Query, description = "A private match's spectator code (its players find it in the summary's `spectator_code`): watch it as a spectator"),
        ("Last-Event-ID" = Option<i64>, Header, nullable = false, description = "Resume after this sequence number", minimum = 0),
    ),
    responses(
        (status = 200, description = "`text/event-stream`; each `data:` is a `LoggedEvent`", content_type = "text/event-stream", body = String),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_query`: `after` (or `Last-Event-ID`) below 0", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`too_many_held_connections` (see `Retry-After`), or the database is unreachable (`service_unavailable`)", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds to wait (with `too_many_held_connections`)"))),
    ),
    security((), ("bearer" = ["read"]))
)]
#[get("/v1/matches/{id}/stream")]
pub async fn stream_events(
    matches: web::Data<Matches>,
    watcher: Watcher,
    id: web::Path<String>,
    query: web::Query<StreamQuery>,
    LastEventId(last): LastEventId,
    held: Held,
    notifications: web::Data<Notifications>,
) -> Result<HttpResponse, ApiError> {
    let after = query.start(last)?.unwrap_or(0);
    let feed = matches
        .into_inner()
        .follow(&id, watcher.viewer(), after)
        .await?;
    // A player watching a table is told nothing by email meanwhile (notifications::presence).
    if let Watcher::Account(account_id) = &watcher {
        let feed = notifications.presence().while_open(account_id, feed).await;
        return Ok(sse::respond(feed, frame, held));
    }
    Ok(sse::respond(feed, frame, held))
}

/// One event of the feed as a Server-Sent Events frame.
fn frame(logged: LoggedEvent) -> Frame {
    let data = serde_json::to_value(&logged).expect("events serialise");
    Frame {
        id: logged.seq,
        event: data["event"]["type"].as_str().unwrap_or("event").to_owned(),
        data: data.to_string(),
    }
}

/// Registers this file's routes (called by [`super::configure`]).
pub fn configure(config: &mut ServiceConfig) {
    config.service(get_events).service(stream_events);
}
