//! The one Server-Sent Events responder behind both streams (a match's and the account's):
//! the headers, the frames, the held connection's place under the cap, and the end of a
//! stream held for as long as the server holds one (`MAX_HOLD_SECONDS`), after which the
//! client resumes with `Last-Event-ID` as after any dropped connection.

use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::Bytes;
use futures_util::{Stream, StreamExt};

use super::held::Held;
use crate::follow::Followed;

/// One item of a log as an event of the stream.
pub struct Frame {
    /// Its number, which `Last-Event-ID` resumes after.
    pub id: i64,
    /// Its type's name.
    pub event: String,
    /// Its JSON.
    pub data: String,
}

impl Frame {
    fn bytes(followed: Followed<Frame>) -> Bytes {
        match followed {
            // A comment that keeps the connection open while nothing happens.
            Followed::KeepAlive => Bytes::from_static(b": keep-alive\n\n"),
            Followed::Item(Frame { id, event, data }) => {
                Bytes::from(format!("id: {id}\nevent: {event}\ndata: {data}\n\n"))
            }
        }
    }
}

/// A `text/event-stream` response of a followed log, each item sent as `frame` makes it,
/// holding `held` until it ends.
pub fn respond<T>(
    followed: impl Stream<Item = Followed<T>> + 'static,
    frame: impl Fn(T) -> Frame + 'static,
    held: Held,
) -> HttpResponse {
    let frames = followed.map(move |followed| match followed {
        Followed::Item(item) => Followed::Item(frame(item)),
        Followed::KeepAlive => Followed::KeepAlive,
    });
    let closes = tokio::time::sleep(held.longest());
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(frames.take_until(closes).map(move |frame| {
            // The stream keeps its place under the cap for as long as it lasts.
            let _keep = &held;
            Ok::<_, actix_web::Error>(Frame::bytes(frame))
        }))
}
