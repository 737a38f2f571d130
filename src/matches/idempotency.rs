//! Safe retries of moves: a client that sends a move with an `Idempotency-Key` and gets no
//! answer (a timeout, a dropped connection) sends it again with the same key, and gets the first
//! answer again without a second move.
//!
//! The answer is kept in the same transaction as the move's events, so a move and its kept
//! answer exist together or not at all. A retry that arrives while the first attempt is still
//! being written loses the version race, finds the kept answer, and returns it too.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::access::Player;
use super::{MatchError, Matches};
use crate::store::append::KeptResponse;

/// Longest key, in characters.
const MAX_KEY: usize = 128;

/// A client's `Idempotency-Key`: 1 to 128 visible ASCII characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// Checks a key as the client sent it.
    pub fn parse(key: &str) -> Result<IdempotencyKey, MatchError> {
        let visible = |c: char| c.is_ascii_graphic() || c == ' ';
        if key.is_empty() || key.len() > MAX_KEY || !key.chars().all(visible) {
            return Err(MatchError::InvalidIdempotencyKey);
        }
        Ok(IdempotencyKey(key.to_owned()))
    }

    /// The key as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The answer to a move: the new view as JSON, or the one kept from the first attempt.
#[derive(Debug)]
pub struct MoveAnswer {
    /// The body: a `MatchView` as JSON (a move is answered `200`, a replay too).
    pub body: String,
    /// Whether this is the kept answer of an earlier attempt.
    pub replayed: bool,
}

/// A move sent with a key: who sent it, the key, and a fingerprint of what it asked.
pub(super) struct Idempotent {
    account_id: String,
    key: IdempotencyKey,
    request_hash: String,
}

impl Idempotent {
    pub(super) fn new(
        player: Player<'_>,
        key: IdempotencyKey,
        request: &impl Serialize,
    ) -> Idempotent {
        let request_hash = hex::encode(Sha256::digest(
            serde_json::to_vec(request).expect("requests serialise"),
        ));
        Idempotent {
            account_id: player.id().to_owned(),
            key,
            request_hash,
        }
    }

    /// The answer to keep for this request.
    pub(super) fn keep(&self, body: &str) -> KeptResponse {
        KeptResponse {
            account_id: self.account_id.clone(),
            key: self.key.as_str().to_owned(),
            request_hash: self.request_hash.clone(),
            body: body.to_owned(),
        }
    }
}

impl Matches {
    /// The answer kept for an earlier attempt of this request, if there was one; refuses a key
    /// already used for a different request.
    pub(super) async fn kept_answer(
        &self,
        match_id: &str,
        request: &Idempotent,
    ) -> Result<Option<MoveAnswer>, MatchError> {
        let Some(kept) = self
            .db
            .kept_response(&request.account_id, match_id, request.key.as_str())
            .await?
        else {
            return Ok(None);
        };
        if kept.request_hash != request.request_hash {
            return Err(MatchError::IdempotencyKeyReused);
        }
        Ok(Some(MoveAnswer {
            body: kept.body,
            replayed: true,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_one_to_128_visible_characters() {
        assert!(IdempotencyKey::parse("move-1 of maya").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(128)).is_ok());
        for bad in ["", "tab\there", "é", &"k".repeat(129)] {
            assert!(
                matches!(
                    IdempotencyKey::parse(bad),
                    Err(MatchError::InvalidIdempotencyKey)
                ),
                "{bad:?}"
            );
        }
    }
}
