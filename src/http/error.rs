//! [`ApiError`]: every error the API answers, as `application/problem+json` (RFC 9457) with a
//! stable machine-readable `code`. The services' errors become HTTP statuses here, in one place.
//! A 500 reveals nothing internal and logs the cause chain.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError, error::QueryPayloadError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::accounts::AccountError;
use crate::matches::MatchError;
use crate::matches::error::Sort;
use crate::notifications::NotificationError;
use crate::store::StoreError;

/// The body of every error response.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:kings-corner:problem:invalid_credentials",
    "title": "Unauthorized",
    "status": 401,
    "detail": "The username or password is wrong.",
    "code": "invalid_credentials"
}))]
pub struct Problem {
    /// `urn:kings-corner:problem:<code>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    /// The HTTP status's reason phrase.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong, in words.
    pub detail: String,
    /// Stable machine-readable code.
    pub code: String,
    /// For `invalid_*` errors: the field, option or parameter at fault, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// For `version_conflict`: the match's current version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
}

/// A refusal the client can act on: a 4xx status with a stable code.
#[derive(Debug)]
pub struct Refusal {
    status: StatusCode,
    code: &'static str,
    detail: String,
    field: Option<String>,
    current_version: Option<i64>,
    retry_after: Option<u64>,
}

/// An error answer of the API.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A 4xx refusal.
    #[error("{}", .0.detail)]
    Refused(Box<Refusal>),
    /// 503: the database cannot be used now; nothing was written.
    #[error("The service is temporarily unavailable: try again shortly.")]
    Unavailable,
    /// 503: the database did not confirm a write; it may or may not have been made.
    #[error(
        "The database did not confirm the write: it may or may not have been made. Send a move \
         again with the same Idempotency-Key (or read the view) to learn which."
    )]
    Unconfirmed,
    /// 500: a bug; logged in full, shown as nothing.
    #[error("An internal error occurred.")]
    Internal(#[source] anyhow::Error),
}

impl Refusal {
    fn of(status: StatusCode, code: &'static str, detail: String, field: Option<&str>) -> Refusal {
        Refusal {
            status,
            code,
            detail,
            field: field.map(str::to_owned),
            current_version: None,
            retry_after: None,
        }
    }
}

impl ApiError {
    /// A refusal with this status, code and sentence.
    pub fn refused(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError::Refused(Box::new(Refusal::of(status, code, detail.into(), None)))
    }

    /// The same refusal, telling the client when to try again (`Retry-After`).
    pub fn retry_after(mut self, seconds: u64) -> ApiError {
        if let ApiError::Refused(refusal) = &mut self {
            refusal.retry_after = Some(seconds);
        }
        self
    }

    /// 401 with this code and sentence.
    pub fn unauthorized(code: &'static str, detail: &'static str) -> ApiError {
        ApiError::refused(StatusCode::UNAUTHORIZED, code, detail)
    }

    /// 404: nothing at this path.
    pub fn not_found() -> ApiError {
        ApiError::refused(
            StatusCode::NOT_FOUND,
            "not_found",
            "There is nothing at this path.",
        )
    }

    fn code(&self) -> &'static str {
        match self {
            ApiError::Refused(refusal) => refusal.code,
            ApiError::Unavailable | ApiError::Unconfirmed => "service_unavailable",
            ApiError::Internal(_) => "internal_error",
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::Unavailable(source) => {
                tracing::warn!(error = %source, "database unavailable");
                ApiError::Unavailable
            }
            StoreError::TimedOut => {
                tracing::warn!("the database did not answer within the statement timeout");
                ApiError::Unavailable
            }
            StoreError::Unconfirmed(source) => {
                let cause = source.map_or_else(
                    || "no answer within the statement timeout".to_owned(),
                    |error| error.to_string(),
                );
                tracing::warn!(%cause, "a write was not confirmed");
                ApiError::Unconfirmed
            }
            other => ApiError::Internal(other.into()),
        }
    }
}

impl From<MatchError> for ApiError {
    fn from(error: MatchError) -> ApiError {
        if let Some(sort) = error.feature_refusal() {
            return feature_refusal(sort, &error);
        }
        let status = match &error {
            MatchError::NotFound | MatchError::NoSuchPlayer | MatchError::NoSuchPool => {
                StatusCode::NOT_FOUND
            }
            MatchError::AccountNeeded => StatusCode::UNAUTHORIZED,
            MatchError::NotAPlayer => StatusCode::FORBIDDEN,
            MatchError::NotStarted
            | MatchError::NotFinished
            | MatchError::VersionConflict { .. } => StatusCode::CONFLICT,
            MatchError::InvalidIdempotencyKey => StatusCode::BAD_REQUEST,
            MatchError::Rule(_)
            | MatchError::InvalidQuery { .. }
            | MatchError::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            MatchError::Store(_) | MatchError::Corrupt(_) => {
                return match error {
                    MatchError::Store(store) => store.into(),
                    corrupt => ApiError::Internal(corrupt.into()),
                };
            }
            // Answered above, by their sort.
            MatchError::Seating(_)
            | MatchError::Invitation(_)
            | MatchError::Rematch(_)
            | MatchError::Table(_)
            | MatchError::Clock(_)
            | MatchError::Talk(_)
            | MatchError::Hint(_)
            | MatchError::Seek(_)
            | MatchError::Vacation(_)
            | MatchError::Block(_)
            | MatchError::Note(_)
            | MatchError::Follow(_)
            | MatchError::Report(_)
            | MatchError::Moderation(_) => unreachable!("a feature's refusal has a sort"),
        };
        let mut refusal = Refusal::of(status, error.code(), error.to_string(), error.field());
        if let MatchError::VersionConflict { current, .. } = error {
            refusal.current_version = Some(current);
        }
        ApiError::Refused(Box::new(refusal))
    }
}

/// A feature's refusal, by its sort: every sort has one status; the two that say when to try
/// again carry `Retry-After`.
fn feature_refusal(sort: Sort, error: &MatchError) -> ApiError {
    let (status, retry_after) = match sort {
        Sort::Missing => (StatusCode::NOT_FOUND, None),
        Sort::NotYours => (StatusCode::FORBIDDEN, None),
        Sort::Conflict => (StatusCode::CONFLICT, None),
        Sort::TooEarly { retry_after } => (StatusCode::CONFLICT, Some(retry_after)),
        Sort::TooMany { retry_after } => (StatusCode::TOO_MANY_REQUESTS, Some(retry_after)),
        Sort::Invalid => (StatusCode::UNPROCESSABLE_ENTITY, None),
    };
    let mut refusal = Refusal::of(status, error.code(), error.to_string(), error.field());
    refusal.retry_after = retry_after;
    ApiError::Refused(Box::new(refusal))
}

impl From<AccountError> for ApiError {
    fn from(error: AccountError) -> ApiError {
        let status = match &error {
            AccountError::InvalidUsername | AccountError::WeakPassword => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            AccountError::UsernameTaken(_) => StatusCode::CONFLICT,
            AccountError::InvalidCredentials
            | AccountError::InvalidRefreshToken
            | AccountError::RefreshTokenReused
            | AccountError::InvalidToken
            | AccountError::InvalidStreamTicket
            | AccountError::AccountNotFound => StatusCode::UNAUTHORIZED,
            AccountError::WrongPassword | AccountError::InsufficientScope(_) => {
                StatusCode::FORBIDDEN
            }
            AccountError::InvalidTokenRequest { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            AccountError::TooManyTokens(_) => StatusCode::CONFLICT,
            AccountError::TokenNotFound => StatusCode::NOT_FOUND,
            AccountError::InvalidEmail(_) | AccountError::InvalidResetRequest => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            AccountError::InvalidEmailToken => StatusCode::NOT_FOUND,
            AccountError::MailUnavailable | AccountError::NoEmail => StatusCode::CONFLICT,
            AccountError::TooManyAttempts { .. } => StatusCode::TOO_MANY_REQUESTS,
            AccountError::Store(_) | AccountError::Hashing(_) | AccountError::Corrupt(_) => {
                return match error {
                    AccountError::Store(store) => store.into(),
                    other => ApiError::Internal(other.into()),
                };
            }
        };
        let mut refusal = Refusal::of(status, error.code(), error.to_string(), error.field());
        if let AccountError::TooManyAttempts { retry_after } = error {
            refusal.retry_after = Some(retry_after);
        }
        ApiError::Refused(Box::new(refusal))
    }
}

impl From<NotificationError> for ApiError {
    fn from(error: NotificationError) -> ApiError {
        let status = match &error {
            NotificationError::InvalidQuery { .. }
            | NotificationError::InvalidWebhook { .. }
            | NotificationError::InvalidAlertSettings { .. }
            | NotificationError::InvalidSubscription { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            NotificationError::TooManyWebhooks(_) => StatusCode::CONFLICT,
            NotificationError::WebhookNotFound
            | NotificationError::UnknownUnsubscribeLink
            | NotificationError::SubscriptionNotFound => StatusCode::NOT_FOUND,
            NotificationError::TooManySubscriptions(_) => StatusCode::CONFLICT,
            NotificationError::EmailNotVerified | NotificationError::MailUnavailable => {
                StatusCode::CONFLICT
            }
            NotificationError::Store(_) | NotificationError::Corrupt(_) => {
                return match error {
                    NotificationError::Store(store) => store.into(),
                    corrupt => ApiError::Internal(corrupt.into()),
                };
            }
        };
        let refusal = Refusal::of(status, error.code(), error.to_string(), error.field());
        ApiError::Refused(Box::new(refusal))
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Refused(refusal) => refusal.status,
            ApiError::Unavailable | ApiError::Unconfirmed => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(error) = self {
            // The cause chain on one line; a backtrace would repeat with every occurrence.
            tracing::error!(error = format!("{error:#}"), "internal error");
        }
        let status = self.status_code();
        let refusal = match self {
            ApiError::Refused(refusal) => Some(refusal),
            _ => None,
        };
        let problem = Problem {
            problem_type: format!("urn:kings-corner:problem:{}", self.code()),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: self.to_string(),
            code: self.code().to_owned(),
            field: refusal.and_then(|refusal| refusal.field.clone()),
            current_version: refusal.and_then(|refusal| refusal.current_version),
        };
        let mut response = HttpResponse::build(status);
        response.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        let retry_after = match self {
            ApiError::Unavailable | ApiError::Unconfirmed => Some(1),
            _ => refusal.and_then(|refusal| refusal.retry_after),
        };
        if let Some(retry_after) = retry_after {
            response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
        }
        response.body(serde_json::to_string(&problem).unwrap_or_default())
    }
}

/// Maps actix's query-string errors (a parameter that does not parse, a required one missing)
/// to 400 `malformed_query`; values that parse but are out of range are the services' 422.
pub fn query_error(error: QueryPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    ApiError::refused(
        StatusCode::BAD_REQUEST,
        "malformed_query",
        format!("The query string does not fit this operation: {error}."),
    )
    .into()
}
