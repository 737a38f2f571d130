//! The checks a request passes before routing hands it to a handler, on its URI alone: a NUL
//! character in the path or query ([`super::text`]), then a query parameter the operation does
//! not take ([`super::query_names`]). The first that fails answers; nothing runs after it.
//!
//! They share one middleware layer: every layer costs each request a boxed future and a
//! service call, and a move pays for every layer it passes.

use actix_web::ResponseError;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

use super::{query_names, text};

/// Middleware (for `middleware::from_fn`): refuses a request one of the checks refuses.
pub async fn refuse_malformed(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let refusal = text::nul_in_uri(&request).or_else(|| query_names::unknown_in(&request));
    if let Some(refusal) = refusal {
        let response = refusal.error_response();
        return Ok(request.into_response(response));
    }
    Ok(next.call(request).await?.map_into_boxed_body())
}
