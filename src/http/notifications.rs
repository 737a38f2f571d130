//! `GET /v1/me/events` (long-poll) and `GET /v1/me/stream` (Server-Sent Events): the caller's
//! account-wide notifications.

use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{HttpResponse, get, web};
use futures_util::StreamExt;

use super::error::{ApiError, Problem};
use super::extract::{Caller, LastEventId, Read, StreamQuery};
use super::held::Held;
use crate::notifications::{
    Notification, NotificationPage, NotificationQuery, Notifications, StreamItem,
};

/// The caller's notifications after `after`, in order, long-polling up to `wait` seconds:
/// `your_turn`, `match_started`, `match_finished`, `seat_joined`, `seat_left`, `invited`,
/// `deadline_near`, `seat_out`. Kept for at least 30 days: a client that comes back gets what
/// it missed by asking from the last `seq` it saw.
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
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this `seq`", minimum = 0),
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
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        // The stream keeps its place under the cap for as long as it lasts.
        .streaming(stream.map(move |item| {
            let _keep = &held;
            Ok::<_, actix_web::Error>(frame(&item))
        })))
}

/// One Server-Sent Events frame.
fn frame(item: &StreamItem) -> Bytes {
    match item {
        StreamItem::KeepAlive => Bytes::from_static(b": keep-alive\n\n"),
        StreamItem::Notification(notification) => {
            let data = serde_json::to_string::<Notification>(notification)
                .expect("notifications serialise");
            Bytes::from(format!(
                "id: {}\nevent: {}\ndata: {data}\n\n",
                notification.seq,
                notification.notice.kind()
            ))
        }
    }
}
