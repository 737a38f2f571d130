//! Authentication, as middleware: a request's bearer token is checked (see
//! [`crate::accounts::Accounts::authenticate`]) before any extractor runs, and the outcome left
//! for the [`super::extract::Caller`] extractor, which checks the scope the handler needs.
//!
//! A request that opens a stream may instead carry a single-use `?ticket=` (see
//! [`crate::accounts::stream_tickets`]), for browsers whose `EventSource` sends no header.
//!
//! Checking the token inside the extractor would race the handler's other extractors: a body
//! that fails to parse could be refused before a token that fails to authenticate, telling a
//! caller without the right token how the request is checked.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};

use crate::accounts::{AccountError, Accounts, Credentials};

/// What the request's bearer token was found to be.
pub struct Authenticated(pub Result<Credentials, AccountError>);

/// Middleware (for `middleware::from_fn`): authenticates a request that carries a bearer token.
pub async fn authenticate(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let bearer = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            value
                .strip_prefix("Bearer ")
                .or_else(|| value.strip_prefix("bearer "))
        })
        .map(|token| token.trim().to_owned());
    let accounts = request.app_data::<web::Data<Accounts>>().cloned();
    if let Some(accounts) = accounts {
        let outcome = match (bearer, stream_ticket(&request)) {
            (Some(bearer), _) => Some(accounts.authenticate(&bearer).await),
            (None, Some(ticket)) => Some(accounts.redeem_stream_ticket(&ticket).await),
            (None, None) => None,
        };
        if let Some(outcome) = outcome {
            request.extensions_mut().insert(Authenticated(outcome));
        }
    }
    Ok(next.call(request).await?.map_into_boxed_body())
}

/// The `ticket` of a request that opens a stream (`GET …/stream?ticket=…`): the one place a
/// ticket stands in for a bearer token.
fn stream_ticket(request: &ServiceRequest) -> Option<String> {
    if request.method() != Method::GET || !request.path().ends_with("/stream") {
        return None;
    }
    url::form_urlencoded::parse(request.query_string().as_bytes())
        .find(|(name, _)| name == "ticket")
        .map(|(_, ticket)| ticket.into_owned())
}
