//! CORS: web pages on the origins an operator allows (`CORS_ALLOWED_ORIGINS`) may call the API
//! from a browser. None by default. Requests carry bearer tokens, never cookies, so no origin
//! is ever allowed credentials, and `*` is safe to offer.
//!
//! A preflight from an origin not allowed is refused with a problem (`cors_not_allowed`); a
//! request itself from such an origin is answered as usual, without CORS headers, so that the
//! browser, not the server, keeps the page from reading it.

use actix_cors::Cors;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{
    AUTHORIZATION, CONTENT_TYPE, ETAG, IF_NONE_MATCH, LOCATION, RETRY_AFTER,
};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::{Condition, Next};

use super::error::ApiError;

/// How long a browser may keep a preflight's answer, in seconds.
const PREFLIGHT_MAX_AGE: usize = 3600;

/// The CORS middleware for `origins` (`*` for any); it does nothing when there are none.
pub fn policy(origins: &[String]) -> Condition<Cors> {
    let mut cors = Cors::default()
        .allowed_methods([Method::GET, Method::POST, Method::DELETE])
        .allowed_headers([
            AUTHORIZATION.as_str(),
            CONTENT_TYPE.as_str(),
            IF_NONE_MATCH.as_str(),
            "idempotency-key",
            "last-event-id",
        ])
        .expose_headers([
            ETAG.as_str(),
            LOCATION.as_str(),
            RETRY_AFTER.as_str(),
            "x-request-id",
        ])
        .max_age(PREFLIGHT_MAX_AGE);
    for origin in origins {
        cors = match origin.as_str() {
            "*" => cors.allow_any_origin().send_wildcard(),
            origin => cors.allowed_origin(origin),
        };
    }
    Condition::new(!origins.is_empty(), cors)
}

/// Middleware (for `middleware::from_fn`, outside [`policy`]): mends two of its answers. A
/// refused preflight answers a problem like every other refusal, not the CORS layer's plain
/// text; and `/metrics` answers without CORS headers, so that no page on another origin reads
/// it, nor passes a preflight for it (see [`super::metrics`]).
pub async fn mend_answers(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let preflight = request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key("access-control-request-method");
    let metrics = request.path() == super::metrics::PATH;
    let mut response = next.call(request).await?.map_into_boxed_body();
    if metrics {
        remove_cors_headers(&mut response);
    }
    if !preflight || response.status() != StatusCode::BAD_REQUEST {
        return Ok(response);
    }
    let (request, _) = response.into_parts();
    let refused = ApiError::refused(
        StatusCode::BAD_REQUEST,
        "cors_not_allowed",
        "This origin, method or header is not allowed to call the API from a browser \
         (the server's CORS_ALLOWED_ORIGINS).",
    );
    Ok(ServiceResponse::new(
        request,
        actix_web::ResponseError::error_response(&refused),
    ))
}

/// Takes every `Access-Control-*` header off an answer.
fn remove_cors_headers(response: &mut ServiceResponse<BoxBody>) {
    let headers = response.headers_mut();
    let cors: Vec<_> = headers
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-"))
        .cloned()
        .collect();
    for name in cors {
        headers.remove(name);
    }
}
