//! The request log: every request in a span with its method, path, TCP peer, client address
//! (see [`super::client`]) and request id; a line when it ends: ERROR for a 5xx (its cause was
//! logged where it happened, once, without a backtrace), WARN for a 503 (the database was away:
//! the cause is logged beside it), DEBUG otherwise.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

/// The [`RootSpanBuilder`] of the request log.
pub struct RequestLog;

impl RootSpanBuilder for RequestLog {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let span = tracing::info_span!(
            "request",
            method = %request.method(),
            path = %logged_path(request.path()),
            peer = tracing::field::Empty,
            client = tracing::field::Empty,
            request_id = tracing::field::Empty,
            status = tracing::field::Empty,
        );
        // The fields that take work to find are found only for a span someone records: at
        // `LOG_LEVEL=warn` or quieter every request would pay for them and log none.
        if !span.is_disabled() {
            if let Some(peer) = request.peer_addr() {
                span.record("peer", tracing::field::display(peer.ip()));
            }
            if let Some(client) = super::client::address_of(request.request()) {
                span.record("client", tracing::field::display(client));
            }
            if let Some(id) = request.extensions().get::<RequestId>() {
                span.record("request_id", tracing::field::display(id));
            }
        }
        span
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let status = match outcome {
            Ok(response) => response.status(),
            Err(error) => error.as_response_error().status_code(),
        };
        span.record("status", status.as_u16());
        let _entered = span.enter();
        match status.as_u16() {
            503 => tracing::warn!(status = 503, "answered: service unavailable"),
            500.. => tracing::error!(status = status.as_u16(), "answered with a server error"),
            code => tracing::debug!(status = code, "answered"),
        }
    }
}

/// The path as logged. An alert letter's unsubscribe link works without a login, so its token
/// stays out of the log as a password would.
fn logged_path(path: &str) -> &str {
    if path.starts_with("/v1/alerts/unsubscribe/") {
        "/v1/alerts/unsubscribe/…"
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use super::logged_path;

    #[test]
    fn an_unsubscribe_token_never_reaches_the_log() {
        assert_eq!(
            logged_path("/v1/alerts/unsubscribe/q2V0m3n1bW9y"),
            "/v1/alerts/unsubscribe/…"
        );
        assert_eq!(logged_path("/v1/matches/abc/view"), "/v1/matches/abc/view");
    }
}
