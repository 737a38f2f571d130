//! The log's integrity: canonical event bytes and the hash chain
//! `hash = SHA-256(previous hash ‖ canonical event bytes)` (the first event's previous hash is
//! empty). `kings-corner verify` checks the same chain offline.

use sha2::{Digest, Sha256};

use crate::rules::Event;

/// The canonical bytes of an event: its compact JSON (fields in declaration order).
pub fn canonical(event: &Event) -> String {
    serde_json::to_string(event).expect("events serialise")
}

/// The hash of an event given the previous event's hash (hex; `""` for the first event).
pub fn chain(previous: &str, canonical_event: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(hex::decode(previous).unwrap_or_default());
    hasher.update(canonical_event.as_bytes());
    hex::encode(hasher.finalize())
}
