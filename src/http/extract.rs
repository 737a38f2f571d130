//! Extractors: a handler's signature says who may call it and what it needs from the headers.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;

use super::error::ApiError;
use crate::accounts::Accounts;
use crate::matches::IdempotencyKey;

/// The account behind the request's `Authorization: Bearer` access token: a handler that takes
/// one can only be called with a valid access token of an account that still exists.
#[derive(Clone, Debug)]
pub struct AuthUser {
    /// The account id (the token's `sub`).
    pub account_id: String,
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<AuthUser, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let accounts = request
            .app_data::<web::Data<Accounts>>()
            .expect("Accounts are registered")
            .clone();
        let token = request
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| {
                value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
            })
            .map(|token| token.trim().to_owned());
        Box::pin(async move {
            let token = token.ok_or(ApiError::unauthorized(
                "missing_token",
                "Send an access token: Authorization: Bearer <token>.",
            ))?;
            let account_id = accounts.authenticate(&token).await?;
            Ok(AuthUser { account_id })
        })
    }
}

/// The request's `Idempotency-Key` header, checked; absent when the client sent none.
pub struct Idempotency(pub Option<IdempotencyKey>);

impl FromRequest for Idempotency {
    type Error = ApiError;
    type Future = Ready<Result<Idempotency, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(match request.headers().get("idempotency-key") {
            None => Ok(Idempotency(None)),
            Some(value) => std::str::from_utf8(value.as_bytes())
                .map_err(|_| crate::matches::MatchError::InvalidIdempotencyKey)
                .and_then(IdempotencyKey::parse)
                .map(|key| Idempotency(Some(key)))
                .map_err(ApiError::from),
        })
    }
}

/// The `Last-Event-ID` a reconnecting event stream resumes after (0 when absent or unreadable).
pub struct LastEventId(pub i64);

impl FromRequest for LastEventId {
    type Error = ApiError;
    type Future = Ready<Result<LastEventId, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let after = request
            .headers()
            .get("last-event-id")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        ready(Ok(LastEventId(after)))
    }
}
