//! `GET /v1/me/events` (long-poll) and `GET /v1/me/stream` (Server-Sent Events): the caller's
//! account-wide notifications.

use actix_web::{HttpResponse, get, web};

use super::error::{ApiError, Problem};
use super::extract::{Caller, LastEventId, Read, StreamQuery};
use super::held::Held;
use super::sse::{self, Frame};
use crate::notifications::{Notification, NotificationPage, NotificationQuery, Notifications};

/// The caller's notifications after `after`, in order, long-polling up to `wait` seconds
///
/// Every `type` a `Notification` has. Kept for at least 30 days: a client that comes back gets
/// what it missed by asking from the last `seq` it saw.
#[utoipa::path(
    tag = "notifications",
    params(NotificationQuery),
    responses(
        (status = 200, description = "Notifications after `after`", body = NotificationPage),
        (status = 422, description = "Bad `after`, `wait` or `limit` (`invalid_query`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`too_many_held_connections` (see `Retry-After`), or the database is unreachable (`service_unavailable`)", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds to wait (with `too_many_held_connections`)"))),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/events")]
pub async fn get_notifications(
    notifications: web::Data<Notifications>,
    caller: Caller<Read>,
    query: web::Query<NotificationQuery>,
    _held: Held,
) -> Result<web::Json<NotificationPage>, ApiError> {
    Ok(web::Json(
        notifications
            .page(&caller.account_id, query.into_inner())
            .await?,
    ))
}

/// The same notifications as Server-Sent Events (`id` = seq, `event` = the type, `data` = the
/// notification), resumable with `Last-Event-ID`; a comment every 15 seconds keeps the
/// connection open.
#[utoipa::path(
    tag = "notifications",
    params(
        StreamQuery,
        ("Last-Event-ID" = Option<i64>, Header, nullable = false, description = "Resume after this `seq`", minimum = 0),
    ),
    responses(
        (status = 200, description = "`text/event-stream`; each `data:` is a `Notification`", content_type = "text/event-stream", body = String),
        (status = 422, description = "`invalid_query`: `after` (or `Last-Event-ID`) below 0", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`too_many_held_connections` (see `Retry-After`), or the database is unreachable (`service_unavailable`)", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds to wait (with `too_many_held_connections`)"))),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/stream")]
pub async fn stream_notifications(
    notifications: web::Data<Notifications>,
    caller: Caller<Read>,
    query: web::Query<StreamQuery>,
    LastEventId(last): LastEventId,
    held: Held,
) -> Result<HttpResponse, ApiError> {
    let after = query.start(last)?;
    let stream = notifications
        .into_inner()
        .follow(&caller.account_id, after)
        .await?;
    Ok(sse::respond(stream, frame, held))
}

/// One notification of the stream as a Server-Sent Events frame.
fn frame(notification: Notification) -> Frame {
    Frame {
        id: notification.seq,
        event: notification.notice.kind().to_owned(),
        data: serde_json::to_string(&notification).expect("notifications serialise"),
    }
}
