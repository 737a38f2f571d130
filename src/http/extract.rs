//! Extractors: a handler's signature says who may call it and what it needs from the headers.

use std::future::{Ready, ready};
use std::marker::PhantomData;

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;

use super::error::ApiError;
use crate::accounts::{Accounts, Credentials};
use crate::auth::Scope;
use crate::matches::IdempotencyKey;

/// The scope a handler needs, named by a type: a handler that takes a `Caller<Play>` can only
/// be called with a valid token of a living account that may play.
pub trait Needs {
    /// The scope.
    const SCOPE: Scope;
}

/// Needs the `play` scope.
pub struct Play;
/// Needs the `read` scope.
pub struct Read;
/// Needs the `webhooks` scope.
pub struct Webhooks;
/// Needs the `account` scope.
pub struct AccountScope;

impl Needs for Play {
    const SCOPE: Scope = Scope::Play;
}
impl Needs for Read {
    const SCOPE: Scope = Scope::Read;
}
impl Needs for Webhooks {
    const SCOPE: Scope = Scope::Webhooks;
}
impl Needs for AccountScope {
    const SCOPE: Scope = Scope::Account;
}

/// Who the request's `Authorization: Bearer` token (an access token or a personal access
/// token) speaks for, once it is found valid, of a living account, and holding `S`'s scope.
#[derive(Debug)]
pub struct Caller<S> {
    /// The account id.
    pub account_id: String,
    /// Everything the token may do (every scope for a password session).
    pub credentials: Credentials,
    needs: PhantomData<S>,
}

impl<S: Needs> FromRequest for Caller<S> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Caller<S>, ApiError>>;

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
            let credentials = accounts.authenticate(&token, S::SCOPE).await?;
            Ok(Caller {
                account_id: credentials.account_id.clone(),
                credentials,
                needs: PhantomData,
            })
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

/// The `Last-Event-ID` a reconnecting event stream resumes after (`None` when absent or
/// unreadable).
pub struct LastEventId(pub Option<i64>);

impl FromRequest for LastEventId {
    type Error = ApiError;
    type Future = Ready<Result<LastEventId, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let after = request
            .headers()
            .get("last-event-id")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse().ok());
        ready(Ok(LastEventId(after)))
    }
}
