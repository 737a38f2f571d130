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
        let request_id = request
            .extensions()
            .get::<RequestId>()
            .map(ToString::to_string)
            .unwrap_or_default();
        let peer = request
            .peer_addr()
            .map(|peer| peer.ip().to_string())
            .unwrap_or_default();
        let client = super::client::address_of(request.request())
            .map(|address| address.to_string())
            .unwrap_or_default();
        tracing::info_span!(
            "request",
            method = %request.method(),
            path = %logged_path(request.path()),
            peer = %peer,
            client = %client,
            request_id = %request_id,
            status = tracing::field::Empty,
        )
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
