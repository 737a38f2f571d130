//! Extractors: a handler's signature says who may call it and what it needs from the headers.

use std::future::{Ready, ready};
use std::marker::PhantomData;

use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::authenticate::Authenticated;
use super::error::ApiError;
use crate::accounts::{AccountError, Credentials};
use crate::auth::Scope;
use crate::matches::IdempotencyKey;
use crate::matches::access::{Player, Viewer};

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
/// token) speaks for, once it was found valid, of a living account (by
/// [`super::authenticate`], before any extractor runs), and holding `S`'s scope. Refusals
/// about the token come before any about the request's body.
#[derive(Debug)]
pub struct Caller<S> {
    /// The account id.
    pub account_id: String,
    /// Everything the token may do (every scope for a password session).
    pub credentials: Credentials,
    needs: PhantomData<S>,
}

impl<S> Caller<S> {
    /// The caller as a player at the tables.
    pub fn player(&self) -> Player<'_> {
        Player::new(&self.account_id)
    }
}

impl<S: Needs> FromRequest for Caller<S> {
    type Error = ApiError;
    type Future = Ready<Result<Caller<S>, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let authenticated = request.extensions_mut().remove::<Authenticated>();
        ready(match authenticated {
            None => Err(ApiError::unauthorized(
                "missing_token",
                "Send an access token: Authorization: Bearer <token>.",
            )),
            Some(Authenticated(Err(refused))) => Err(refused.into()),
            Some(Authenticated(Ok(credentials))) if !credentials.scopes.contains(S::SCOPE) => {
                Err(AccountError::InsufficientScope(S::SCOPE).into())
            }
            Some(Authenticated(Ok(credentials))) => Ok(Caller {
                account_id: credentials.account_id.clone(),
                credentials,
                needs: PhantomData,
            }),
        })
    }
}

/// Who watches a match: the holder of the spectator code in `?watch=` (a private match's
/// link), else a caller whose token may read, else, with no token at all, nobody in particular
/// (a spectator without an account, who sees public matches only). A token that is sent and
/// refused is refused, never taken for nobody.
#[derive(Debug)]
pub enum Watcher {
    /// An account whose token may read.
    Account(String),
    /// The holder of a private match's spectator code.
    Spectator(String),
    /// Nobody in particular.
    Anonymous,
}

impl Watcher {
    /// Who watches, as the match service asks.
    pub fn viewer(&self) -> Viewer<'_> {
        match self {
            Watcher::Account(account_id) => Viewer::Account(account_id),
            Watcher::Spectator(code) => Viewer::Spectator { code },
            Watcher::Anonymous => Viewer::Anonymous,
        }
    }
}

impl FromRequest for Watcher {
    type Error = ApiError;
    type Future = Ready<Result<Watcher, ApiError>>;

    /// A request with `?watch=<code>` watches as the holder of that spectator code (a token
    /// it also sends must still be valid); otherwise as the token's account, or as nobody.
    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let code = web::Query::<WatchCode>::from_query(request.query_string())
            .ok()
            .and_then(|query| query.into_inner().watch)
            .filter(|code| !code.is_empty());
        // Bound first: the extensions' borrow must end before the caller is extracted.
        let authenticated = request.extensions().contains::<Authenticated>();
        let caller = match authenticated {
            false => None,
            true => match Caller::<Read>::from_request(request, payload).into_inner() {
                Ok(caller) => Some(caller.account_id),
                Err(refused) => return ready(Err(refused)),
            },
        };
        ready(Ok(match (code, caller) {
            (Some(code), _) => Watcher::Spectator(code),
            (None, Some(account_id)) => Watcher::Account(account_id),
            (None, None) => Watcher::Anonymous,
        }))
    }
}

/// The spectator code of a private match's link.
#[derive(Deserialize)]
struct WatchCode {
    watch: Option<String>,
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

/// Where a stream starts, and, for a browser, the ticket that opens it.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Start after this sequence number (`Last-Event-ID` wins when both are sent). Without
    /// either, the account stream starts with the next notification and a match's stream with
    /// its first event.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// A single-use ticket from `POST /v1/me/stream-tickets`, in place of the `Authorization`
    /// header a browser's `EventSource` cannot send.
    pub ticket: Option<String>,
}

impl StreamQuery {
    /// Where the stream starts: after `Last-Event-ID` when one was sent, else after `after`
    /// (`None`: neither). Either below 0 is refused, whichever wins.
    pub fn start(&self, last: Option<i64>) -> Result<Option<i64>, ApiError> {
        if self.after.is_some_and(|after| after < 0) || last.is_some_and(|last| last < 0) {
            return Err(ApiError::refused(
                actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_query",
                "after (and Last-Event-ID) is 0 or more",
            ));
        }
        Ok(last.or(self.after))
    }
}

/// The `Last-Event-ID` a reconnecting event stream resumes after (`None` when absent).
pub struct LastEventId(pub Option<i64>);

impl FromRequest for LastEventId {
    type Error = ApiError;
    type Future = Ready<Result<LastEventId, ApiError>>;

    /// One that is not a sequence number (0 or more), an empty one included, is refused rather
    /// than ignored, which would restart the stream somewhere the client did not ask for. (A
    /// browser's `EventSource` sends the header only once it has seen an event id.)
    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(value) = request.headers().get("last-event-id") else {
            return ready(Ok(LastEventId(None)));
        };
        let text = value.to_str().map(str::trim).unwrap_or("-");
        ready(match text.parse::<i64>() {
            Ok(after) if after >= 0 => Ok(LastEventId(Some(after))),
            _ => Err(ApiError::refused(
                actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_query",
                "Last-Event-ID is a sequence number, 0 or more",
            )),
        })
    }
}
