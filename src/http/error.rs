//! [`ApiError`]: every error the API answers, as `application/problem+json` (RFC 9457) with a
//! stable machine-readable `code`. A 500 reveals nothing internal and logs the cause chain.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError, error::JsonPayloadError};
use serde::Serialize;
use utoipa::ToSchema;

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
    /// For `invalid_*` body errors: the field or option at fault, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// For `version_conflict`: the match's current version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
}

/// An error answer of the API.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: a malformed request (bad JSON, wrong content).
    #[error("{detail}")]
    BadRequest {
        /// Stable code.
        code: &'static str,
        /// Words.
        detail: String,
    },
    /// 422: well-formed but invalid input.
    #[error("{detail}")]
    Invalid {
        /// Stable code.
        code: &'static str,
        /// Words.
        detail: String,
        /// The field at fault.
        field: Option<String>,
    },
    /// 401: missing or bad credentials.
    #[error("{1}")]
    Unauthorized(&'static str, &'static str),
    /// 403: authenticated, but not allowed here.
    #[error("{detail}")]
    Forbidden {
        /// Stable code.
        code: &'static str,
        /// Words.
        detail: String,
    },
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 409 for a stale `expected_version`, with the current version.
    #[error("{detail}")]
    VersionConflict {
        /// Words.
        detail: String,
        /// The match's version now.
        current: i64,
    },
    /// 409.
    #[error("{detail}")]
    Conflict {
        /// Stable code.
        code: &'static str,
        /// Words.
        detail: String,
    },
    /// 413.
    #[error("The request body is too large (at most {limit} bytes).")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// 415.
    #[error("Send the body as application/json.")]
    UnsupportedMediaType,
    /// 429, with `Retry-After`.
    #[error("Too many attempts: try again in {retry_after} seconds.")]
    TooManyRequests {
        /// Seconds to wait.
        retry_after: u64,
    },
    /// 503: the database is unreachable now.
    #[error("The service is temporarily unavailable: try again shortly.")]
    Unavailable,
    /// 500: a bug; logged in full, shown as nothing.
    #[error("An internal error occurred.")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    /// A 422 naming the field at fault.
    pub fn invalid(code: &'static str, field: &str, detail: impl Into<String>) -> ApiError {
        ApiError::Invalid {
            code,
            detail: detail.into(),
            field: Some(field.to_owned()),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest { code, .. }
            | ApiError::Invalid { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Forbidden { code, .. } => code,
            ApiError::VersionConflict { .. } => "version_conflict",
            ApiError::Unauthorized(code, _) => code,
            ApiError::NotFound(_) => "not_found",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::TooManyRequests { .. } => "rate_limited",
            ApiError::Unavailable => "service_unavailable",
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
            other => ApiError::Internal(other.into()),
        }
    }
}

impl From<crate::matches::MatchError> for ApiError {
    fn from(error: crate::matches::MatchError) -> ApiError {
        use crate::matches::MatchError;
        match error {
            MatchError::NotFound => ApiError::NotFound(error.to_string()),
            MatchError::Forbidden { code, detail } => ApiError::Forbidden { code, detail },
            MatchError::Conflict { code, detail } => ApiError::Conflict { code, detail },
            MatchError::VersionConflict { current, .. } => ApiError::VersionConflict {
                detail: error.to_string(),
                current,
            },
            MatchError::Rule(rule) => ApiError::Invalid {
                code: rule.code(),
                detail: rule.to_string(),
                field: None,
            },
            MatchError::Invalid {
                code,
                field,
                detail,
            } => ApiError::Invalid {
                code,
                detail,
                field: Some(field),
            },
            MatchError::Store(store) => store.into(),
            MatchError::Corrupt(_) => ApiError::Internal(error.into()),
        }
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(error: anyhow::Error) -> ApiError {
        ApiError::Internal(error)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unauthorized(..) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } | ApiError::VersionConflict { .. } => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Internal(error) = self {
            tracing::error!(error = ?error, "internal error");
        }
        let status = self.status_code();
        let field = match self {
            ApiError::Invalid { field, .. } => field.clone(),
            _ => None,
        };
        let problem = Problem {
            problem_type: format!("urn:kings-corner:problem:{}", self.code()),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: self.to_string(),
            code: self.code().to_owned(),
            field,
            current_version: match self {
                ApiError::VersionConflict { current, .. } => Some(*current),
                _ => None,
            },
        };
        let mut response = HttpResponse::build(status);
        response.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        if let ApiError::TooManyRequests { retry_after } = self {
            response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
        }
        response.body(serde_json::to_string(&problem).unwrap_or_default())
    }
}

/// Largest accepted JSON body, in bytes.
pub const JSON_LIMIT: usize = 64 * 1024;

/// Maps actix's JSON extractor errors to problems: 413, 415, 400 for malformed JSON, 422 for a
/// body of the wrong shape (unknown or missing fields, wrong types).
pub fn json_error(error: JsonPayloadError, _: &actix_web::HttpRequest) -> actix_web::Error {
    let problem = match &error {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => {
            ApiError::PayloadTooLarge { limit: *limit }
        }
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Deserialize(source) if source.is_data() => ApiError::Invalid {
            code: "invalid_body",
            detail: format!("The body does not fit this operation: {source}."),
            field: None,
        },
        JsonPayloadError::Deserialize(source) => ApiError::BadRequest {
            code: "malformed_json",
            detail: format!("The body is not valid JSON: {source}."),
        },
        other => ApiError::BadRequest {
            code: "bad_body",
            detail: format!("The body could not be read: {other}."),
        },
    };
    problem.into()
}
