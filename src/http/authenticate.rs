//! Authentication, as middleware: a request's bearer token is checked (see
//! [`crate::accounts::Accounts::authenticate`]) before any extractor runs, and the outcome left
//! for the [`super::extract::Caller`] extractor, which checks the scope the handler needs.
//!
//! Checking the token inside the extractor would race the handler's other extractors: a body
//! that fails to parse could be refused before a token that fails to authenticate, telling a
//! caller without the right token how the request is checked.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
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
    if let Some(bearer) = bearer
        && let Some(accounts) = request.app_data::<web::Data<Accounts>>().cloned()
    {
        let outcome = accounts.authenticate(&bearer).await;
        request.extensions_mut().insert(Authenticated(outcome));
    }
    Ok(next.call(request).await?.map_into_boxed_body())
}
