//! Text the database cannot store, refused at the edge: PostgreSQL's `text` holds no NUL
//! character (U+0000), and a statement that binds one fails as a server error. Rather than
//! each handler and query guarding against it, every request is checked here once: its path and
//! query by [`nul_in_uri`] (in the middleware [`super::screen`]), its JSON body by [`json_has_nul`] (read by
//! [`super::body`]). SQLite and PostgreSQL then answer the same: 400 `invalid_text`.
//!
//! The other text PostgreSQL refuses, invalid UTF-8 and lone surrogates, never reaches a
//! handler: extractors read strings as UTF-8 and serde_json refuses a lone `\ud800`.

use actix_web::dev::ServiceRequest;
use actix_web::http::StatusCode;

use super::error::ApiError;

/// The refusal of a request holding a NUL character in `place` (`path`, `query` or `body`).
pub fn nul_refused(place: &str) -> ApiError {
    ApiError::refused(
        StatusCode::BAD_REQUEST,
        "invalid_text",
        format!("The request's {place} holds a NUL character (U+0000), which no text may hold."),
    )
}

/// The refusal of a request whose path or query string decodes to a NUL character, checked
/// (by [`super::screen`]) before any extractor decodes it.
pub fn nul_in_uri(request: &ServiceRequest) -> Option<ApiError> {
    let uri = request.uri();
    if encodes_nul(uri.path()) {
        Some(nul_refused("path"))
    } else if uri.query().is_some_and(encodes_nul) {
        Some(nul_refused("query"))
    } else {
        None
    }
}

/// Whether a raw (percent-encoded) URI part decodes to a NUL: a raw NUL cannot be sent, and a
/// literal `%` is itself encoded (`%25`), so `%00` is the only way to write one.
fn encodes_nul(raw: &str) -> bool {
    raw.contains("%00")
}

/// Whether a JSON text holds a NUL character in a string: the escape `\u0000` (a raw NUL is
/// not valid JSON). A backslash preceded by an odd number of backslashes is itself escaped, so
/// `"\\u0000"` is the six characters `\u0000`, not a NUL.
pub fn json_has_nul(json: &[u8]) -> bool {
    const ESCAPE: &[u8] = b"u0000";
    json.windows(ESCAPE.len())
        .enumerate()
        .filter(|(_, window)| *window == ESCAPE)
        .any(|(at, _)| {
            let backslashes = json[..at]
                .iter()
                .rev()
                .take_while(|byte| **byte == b'\\')
                .count();
            backslashes % 2 == 1
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_escape_is_found_and_an_escaped_backslash_is_not_one() {
        assert!(json_has_nul(br#"{"name": "a\u0000b"}"#));
        assert!(json_has_nul(br#"{"name": "\\\u0000"}"#));
        assert!(!json_has_nul(br#"{"name": "a\\u0000b"}"#));
        assert!(!json_has_nul(br#"{"name": "u0000"}"#));
        assert!(!json_has_nul(br#"{"name": "\u0001"}"#));
    }

    #[test]
    fn only_percent_zero_zero_encodes_a_nul() {
        assert!(encodes_nul("/v1/players/a%00b"));
        assert!(encodes_nul("watch=%00"));
        assert!(!encodes_nul("/v1/players/a%2500b"));
        assert!(!encodes_nul("watch=100"));
    }
}
