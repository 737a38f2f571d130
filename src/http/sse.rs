//! The one Server-Sent Events responder behind both streams (a match's and the account's):
//! the headers, the frames, the held connection's place under the cap, and the end of a
//! stream held for as long as the server holds one (`MAX_HOLD_SECONDS`), after which the
//! client resumes with `Last-Event-ID` as after any dropped connection.

use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::Bytes;
use futures_util::{Stream, StreamExt};

use super::held::Held;

/// What a stream sends next.
pub enum Frame {
    /// A comment that keeps the connection open while nothing happens.
    KeepAlive,
    /// One item of the log.
    Item {
        /// Its number, which `Last-Event-ID` resumes after.
        id: i64,
        /// Its type's name.
        event: String,
        /// Its JSON.
        data: String,
    },
}

impl Frame {
    fn bytes(self) -> Bytes {
        match self {
            Frame::KeepAlive => Bytes::from_static(b": keep-alive\n\n"),
            Frame::Item { id, event, data } => {
                Bytes::from(format!("id: {id}\nevent: {event}\ndata: {data}\n\n"))
            }
        }
    }
}

/// A `text/event-stream` response of `frames`, holding `held` until it ends.
pub fn respond<S>(frames: S, held: Held) -> HttpResponse
where
    S: Stream<Item = Frame> + 'static,
{
    let closes = tokio::time::sleep(held.longest());
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(frames.take_until(closes).map(move |frame| {
            // The stream keeps its place under the cap for as long as it lasts.
            let _keep = &held;
            Ok::<_, actix_web::Error>(frame.bytes())
        }))
}
