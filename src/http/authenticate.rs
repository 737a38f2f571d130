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
use actix_web::{HttpMessage, ResponseError, web};

use super::in_flight;
use crate::accounts::{AccountError, Accounts, Credentials};

/// What the request's bearer token was found to be.
pub struct Authenticated(pub Result<Credentials, AccountError>);

/// Middleware (for `middleware::from_fn`): authenticates a request that carries a bearer token,
/// then holds its place under its account's bound on requests in flight ([`super::in_flight`])
/// until it is answered, or refuses it there.
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
    let mut place = None;
    if let Some(accounts) = accounts {
        let outcome = match (bearer, stream_ticket(&request)) {
            (Some(bearer), _) => Some(accounts.authenticate(&bearer).await),
            (None, Some(ticket)) => Some(accounts.redeem_stream_ticket(&ticket).await),
            (None, None) => None,
        };
        if let Some(Ok(credentials)) = &outcome {
            match in_flight::take_place(&request, &credentials.account_id) {
                Ok(taken) => place = taken,
                Err(refusal) => {
                    let response = refusal.error_response();
                    return Ok(request.into_response(response));
                }
            }
        }
        if let Some(outcome) = outcome {
            request.extensions_mut().insert(Authenticated(outcome));
        }
    }
    let answered = next.call(request).await;
    drop(place);
    Ok(answered?.map_into_boxed_body())
}

/// The `ticket` of a request that opens a stream (`GET …/stream?ticket=…`): the one place a
/// ticket stands in for a bearer token.
fn stream_ticket(request: &ServiceRequest) -> Option<String> {
    if request.method() != Method::GET || !opens_a_stream(request.path()) {
        return None;
    }
    url::form_urlencoded::parse(request.query_string().as_bytes())
        .find(|(name, _)| name == "ticket")
        .map(|(_, ticket)| ticket.into_owned())
}

/// Whether `path` is one of the two streams: `/v1/me/stream` or `/v1/matches/{id}/stream`
/// (any other path ending in `/stream` must not use a ticket up).
fn opens_a_stream(path: &str) -> bool {
    path == "/v1/me/stream"
        || path
            .strip_prefix("/v1/matches/")
            .and_then(|rest| rest.strip_suffix("/stream"))
            .is_some_and(|id| !id.is_empty() && !id.contains('/'))
}

#[cfg(test)]
mod tests {
    use super::opens_a_stream;

    #[test]
    fn tickets_open_the_two_streams_only() {
        assert!(opens_a_stream("/v1/me/stream"));
        assert!(opens_a_stream("/v1/matches/0b7e/stream"));
        assert!(!opens_a_stream("/v1/matches//stream"));
        assert!(!opens_a_stream("/v1/matches/a/b/stream"));
        assert!(!opens_a_stream("/v1/players/stream"));
        assert!(!opens_a_stream("/v1/me/webhooks/stream"));
        assert!(!opens_a_stream("/stream"));
    }
}
