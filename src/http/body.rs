//! Request bodies, read strictly. A body must be sent as `application/json` and be a JSON
//! object: serde would also take an array for a struct (`[null, null]` would create a match)
//! and actix's own extractor can be told to ignore a body it cannot read. Errors are problems:
//! 413 too large, 415 not JSON, 400 not valid JSON or holding a NUL character
//! ([`super::text`]), 422 not of the operation's shape.

use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::http::header::CONTENT_TYPE;
use actix_web::{FromRequest, HttpRequest};
use futures_util::StreamExt;
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// Largest accepted body, in bytes.
pub const LIMIT: usize = 64 * 1024;

/// A JSON object body of type `T`.
pub struct Json<T>(pub T);

impl<T> Json<T> {
    /// The body.
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// A body that may be left out (sent empty); when sent, it is read as strictly as [`Json`].
pub struct OptionalJson<T>(pub Option<T>);

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Json<T>, ApiError>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if !is_json(request) {
            return Box::pin(async { Err(unsupported()) });
        }
        let read = read(payload.take());
        Box::pin(async move { parse(&read.await?).map(Json) })
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for OptionalJson<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<OptionalJson<T>, ApiError>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let json = is_json(request);
        let read = read(payload.take());
        Box::pin(async move {
            let bytes = read.await?;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(OptionalJson(None));
            }
            if !json {
                return Err(unsupported());
            }
            parse(&bytes).map(|body| OptionalJson(Some(body)))
        })
    }
}

/// Whether the request says its body is JSON (`application/json`, or `application/…+json`).
fn is_json(request: &HttpRequest) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| {
            let essence = essence.trim().to_ascii_lowercase();
            essence == "application/json"
                || (essence.starts_with("application/") && essence.ends_with("+json"))
        })
}

fn unsupported() -> ApiError {
    ApiError::refused(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        "Send the body as application/json.",
    )
}

/// The whole body, at most [`LIMIT`] bytes.
async fn read(mut payload: Payload) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|error| {
            ApiError::refused(
                StatusCode::BAD_REQUEST,
                "bad_body",
                format!("The body could not be read: {error}."),
            )
        })?;
        if body.len() + chunk.len() > LIMIT {
            return Err(ApiError::refused(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("The request body is too large (at most {LIMIT} bytes)."),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A JSON object of type `T`.
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let malformed = |error: serde_json::Error| {
        ApiError::refused(
            StatusCode::BAD_REQUEST,
            "malformed_json",
            format!("The body is not valid JSON: {error}."),
        )
    };
    if super::text::json_has_nul(bytes) {
        // Checked before parsing: which of the body's strings reach the database is the
        // handler's business, and none may hold what PostgreSQL cannot store.
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(malformed)?;
        return Err(super::text::nul_refused("body"));
    }
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
    if first != Some(&b'{') {
        // Valid JSON of another kind is the wrong shape; anything else is not JSON at all.
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(malformed)?;
        return Err(ApiError::refused(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_body",
            "The body must be a JSON object.",
        ));
    }
    serde_json::from_slice(bytes).or_else(|error| {
        // JSON Schema counts `842.0` as the integer 842, as the description's readers do; serde
        // does not. Read again with such numbers written as integers, only when the plain read
        // failed (so a well-formed body costs nothing more).
        if error.is_data()
            && let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes)
            && integral_floats_as_integers(&mut value)
            && let Ok(body) = serde_json::from_value(value)
        {
            return Ok(body);
        }
        Err(if error.is_data() {
            ApiError::refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_body",
                format!("The body does not fit this operation: {error}."),
            )
        } else {
            malformed(error)
        })
    })
}

/// Writes every number with no fractional part (`842.0`) as an integer, throughout; whether it
/// changed any.
fn integral_floats_as_integers(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            let integral = float.fract() == 0.0 && float.abs() < 9.0e15;
            if integral {
                *value = if float < 0.0 {
                    Value::from(float as i64)
                } else {
                    Value::from(float as u64)
                };
            }
            integral
        }
        Value::Array(items) => items.iter_mut().fold(false, |changed, item| {
            integral_floats_as_integers(item) | changed
        }),
        Value::Object(fields) => fields.values_mut().fold(false, |changed, field| {
            integral_floats_as_integers(field) | changed
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Days {
        days: u32,
        seats: Vec<i64>,
    }

    #[test]
    fn an_integral_float_reads_as_the_integer_it_is() {
        let read: Days = parse(br#"{"days": 842.0, "seats": [1, -2.0]}"#).unwrap();
        assert_eq!(
            read,
            Days {
                days: 842,
                seats: vec![1, -2]
            }
        );
        assert!(parse::<Days>(br#"{"days": 842.5, "seats": []}"#).is_err());
    }
}
