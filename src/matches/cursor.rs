//! The opaque page cursors of listings and leaderboards: the base64url text (no padding) of
//! `KEYS:ID`, where KEYS are the last row's sort keys and ID its UUID.
//!
//! A cursor comes back from a client, so it is input like any other, and a forged one must be
//! refused before any of it reaches a statement (PostgreSQL refuses a NUL in text as a server
//! error, and a key of the wrong shape would page from nowhere). A cursor is taken back only if
//! it is exactly one the server could have written: [`decode`] gives its parts only when their
//! text is what [`encode`] makes of them again, and the caller parses its keys the same way.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The longest cursor the server writes, with room to spare: three 20-digit keys and a UUID,
/// in base64 (the description gives it as `maxLength`, and base64url's alphabet as
/// the `pattern`).
pub const MAX_LENGTH: usize = 256;

/// A row's cursor: its sort keys (already written as text) and its id.
pub(super) fn encode(keys: &str, id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{keys}:{id}"))
}

/// A cursor's keys (as text, for the caller to parse strictly) and its id (a UUID in its
/// canonical form), or `None` when it is not a cursor the server could have written.
pub(super) fn decode(cursor: &str) -> Option<(String, String)> {
    if cursor.is_empty() || cursor.len() > MAX_LENGTH {
        return None;
    }
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(cursor).ok()?).ok()?;
    let (keys, id) = text.rsplit_once(':')?;
    let canonical = uuid::Uuid::try_parse(id).ok()?.hyphenated().to_string();
    (canonical == id && encode(keys, id) == cursor).then(|| (keys.to_owned(), id.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0b6f3c4e-8d3a-4c53-9a8e-3f1f0a7f2b11";

    #[test]
    fn a_cursor_the_server_wrote_decodes_to_its_parts() {
        let cursor = encode("12,-3", ID);
        assert_eq!(decode(&cursor), Some(("12,-3".to_owned(), ID.to_owned())));
    }

    #[test]
    fn a_forged_cursor_is_refused() {
        let forged = |text: &str| URL_SAFE_NO_PAD.encode(text);
        // The finding of issue 35: text ending in a NUL where the id goes.
        assert_eq!(decode("M2ZmMDAwMDAwMDAwMDAwMDoA"), None);
        assert_eq!(decode(&forged(&format!("1:{ID}\0"))), None);
        // An id that is no UUID, or a UUID not written as the server writes one.
        assert_eq!(decode(&forged("1:bob")), None);
        assert_eq!(decode(&forged(&format!("1:{}", ID.to_uppercase()))), None);
        assert_eq!(decode(&forged(&format!("1:{}", ID.replace('-', "")))), None);
        // Not base64url, padded, or not UTF-8.
        assert_eq!(decode("not a cursor!"), None);
        assert_eq!(decode(&format!("{}=", encode("1", ID))), None);
        assert_eq!(decode(&URL_SAFE_NO_PAD.encode([0xff, b':'])), None);
        // Too long, or empty.
        assert_eq!(decode(&"A".repeat(MAX_LENGTH + 1)), None);
        assert_eq!(decode(""), None);
    }
}
