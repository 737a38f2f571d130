//! Headers every answer carries: its request id (`x-request-id`, the id of its line in the
//! log, for a client to quote), `X-Content-Type-Options: nosniff`, and on the Swagger UI pages
//! a content security policy that lets them load only their own files and never be framed.
//! And [`unchanged`]: whether a request's `If-None-Match` names an answer's `ETag`.

use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::header::{
    CONTENT_SECURITY_POLICY, HeaderName, HeaderValue, IF_NONE_MATCH, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use actix_web::{HttpMessage, HttpRequest};
use tracing_actix_web::RequestId;

/// The Swagger UI loads its own scripts and styles (and sets inline styles) and the API's
/// description from this origin.
const DOCS_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                           img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// Middleware (for `App::wrap_fn`) adding the headers.
pub fn add<S>(
    request: ServiceRequest,
    service: &S,
) -> impl std::future::Future<Output = Result<ServiceResponse, actix_web::Error>> + use<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse, Error = actix_web::Error>,
{
    let request_id = request.extensions().get::<RequestId>().copied();
    let docs = request.path().starts_with("/docs");
    let response = service.call(request);
    async move {
        let mut response = response.await?;
        let headers = response.headers_mut();
        if let Some(id) = request_id {
            let mut text = [0; uuid::fmt::Hyphenated::LENGTH];
            let text = id.hyphenated().encode_lower(&mut text);
            if let Ok(value) = HeaderValue::from_str(text) {
                headers.insert(HeaderName::from_static("x-request-id"), value);
            }
        }
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        if docs {
            headers.insert(
                CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(DOCS_POLICY),
            );
            headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        }
        Ok(response)
    }
}

/// Whether `If-None-Match` names `etag` (or `*`).
pub fn unchanged(request: &HttpRequest, etag: &str) -> bool {
    request
        .headers()
        .get(IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|tag| tag.trim() == etag || tag.trim() == "*")
        })
}
