//! The log's integrity: canonical event bytes and the hash chain (the first event's previous
//! hash is empty). `kings-corner verify` checks the same chain offline. Events are encoded for
//! the store here and decoded from it here, nowhere else.
//!
//! - Format 1: `hash = SHA-256(previous hash ‖ canonical event bytes)`.
//! - Format 2 (matches created since clocks exist): `hash = SHA-256(previous hash ‖ canonical
//!   event bytes ‖ "@" ‖ the time it was written, decimal Unix seconds)`, so that the times a
//!   timeout is judged by cannot be changed either.

use sha2::{Digest, Sha256};

use super::MatchError;
use crate::rules::Event;
use crate::store::StoredEvent;

/// The canonical bytes of an event: its compact JSON (fields in declaration order).
pub fn canonical(event: &Event) -> String {
    serde_json::to_string(event).expect("events serialise")
}

/// The log format of new matches.
pub const LOG_FORMAT: u8 = 2;

/// The hash of an event given the previous event's hash (hex; `""` for the first event), in
/// log format `format`, for an event written at `at` (Unix seconds).
pub fn chain(format: u8, previous: &str, canonical_event: &str, at: i64) -> String {
    let mut hasher = Sha256::new();
    hasher.update(hex::decode(previous).unwrap_or_default());
    hasher.update(canonical_event.as_bytes());
    if format >= 2 {
        hasher.update(format!("@{at}").as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// One event of a match's log, read back.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// 1-based position; the match's version after it.
    pub seq: i64,
    /// Its link in the hash chain.
    pub hash: String,
    /// When it was written (Unix seconds).
    pub at: i64,
    /// The event, unredacted.
    pub event: Event,
}

/// Numbers and chains new events, written at `at`, after the one at `version` whose hash is
/// `last_hash`, which moves on to the last new event's hash.
pub fn encode(
    format: u8,
    version: i64,
    last_hash: &mut String,
    events: &[Event],
    at: i64,
) -> Vec<StoredEvent> {
    (version + 1..)
        .zip(events)
        .map(|(seq, event)| {
            let event = canonical(event);
            let hash = chain(format, last_hash, &event, at);
            last_hash.clone_from(&hash);
            StoredEvent {
                seq,
                event,
                hash,
                at,
            }
        })
        .collect()
}

/// Reads a stored event back.
pub fn decode(stored: StoredEvent) -> Result<Recorded, MatchError> {
    let event = serde_json::from_str(&stored.event)
        .map_err(|error| MatchError::Corrupt(format!("event {}: {error}", stored.seq)))?;
    Ok(Recorded {
        seq: stored.seq,
        hash: stored.hash,
        at: stored.at,
        event,
    })
}
