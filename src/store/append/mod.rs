//! Writing an accepted move: its events, the read model after them, the notifications they cause
//! and, when the move came with an idempotency key, the response kept for retries, all or nothing, and only if the match is
//! still at the version the move was decided at. A move that lost that race writes nothing and
//! is told so (`Ok(false)`), as is one whose events or key a unique constraint refuses.
//!
//! One writer task per process gathers concurrent appends and writes them together, each
//! with its own outcome (`batcher`, group commit):
//!
//! - `postgres`: a batch in one statement and one commit; a batch of one is the same
//!   statement;
//! - `sqlite`: a batch in one write transaction, a savepoint around each append that can be
//!   refused after writing (a kept response, a rated end).
//!
//! The end of a rated match also writes its players' ratings, and is refused like a stale
//! version when one of them moved meanwhile; on PostgreSQL it goes alone, in a transaction
//! of its own (a match ends once: the batch statement stays the same for every other move).

mod batcher;
mod postgres;
mod sqlite;

use sqlx::{AnyConnection, Row};

use super::notifications::NewNotification;
use super::ratings::RatingUpdate;
use super::rows::StoredEvent;
use super::{Backend, Db, StoreError};
use crate::model::{MatchStatus, Outcome};
use crate::rules::Seat;
use crate::store::query;
pub use batcher::{Batcher, Statistics};
pub use postgres::APPEND_TOGETHER as POSTGRES_BATCH_STATEMENT;

/// What an accepted move changes in the match's row.
#[derive(Clone, Debug)]
pub struct ReadModel {
    /// The status after the move.
    pub status: MatchStatus,
    /// Whose turn it is now.
    pub turn_seat: Option<Seat>,
    /// Whether the turn changed hands (the inbox orders by when the turn began).
    pub turn_changed: bool,
    /// Whether a bot is to move: its turn waits for a server process to play it.
    pub bot_turn: bool,
    /// Set when the move ended the match.
    pub winners: Option<Vec<Seat>>,
    /// With a clock: when the seat to move runs out of time (Unix seconds).
    pub deadline: Option<i64>,
    /// With a clock: when the seat to move is due its reminder, until it is written.
    pub remind_at: Option<i64>,
    /// Set when the move ended the match: how.
    pub outcome: Option<Outcome>,
    /// Set when the move ended the match: each seat's final total.
    pub final_totals: Option<Vec<u32>>,
}

impl ReadModel {
    /// The winners as stored (JSON).
    pub(super) fn winners_json(&self) -> Option<String> {
        self.winners
            .as_ref()
            .map(|winners| serde_json::to_string(winners).expect("seats serialise"))
    }

    /// The final totals as stored (JSON).
    pub(super) fn final_totals_json(&self) -> Option<String> {
        self.final_totals
            .as_ref()
            .map(|totals| serde_json::to_string(totals).expect("totals serialise"))
    }
}

/// A response kept under an idempotency key, so that a retry of the same request gets it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptResponse {
    /// Keys belong to an account, per match.
    pub account_id: String,
    /// The client's `Idempotency-Key`.
    pub key: String,
    /// Hex SHA-256 of the request it answered: the same key with another request is refused.
    pub request_hash: String,
    /// The body it was answered with (a move's answer is always a `200`).
    pub body: String,
}

/// One accepted move's writes.
#[derive(Debug)]
pub struct Append {
    /// The match.
    pub match_id: String,
    /// The version the move was decided at; the append writes nothing if the match moved on.
    pub expected_version: i64,
    /// Its events, numbered from `expected_version + 1`.
    pub events: Vec<StoredEvent>,
    /// The read model after them.
    pub model: ReadModel,
    /// The response to keep, for a move sent with an idempotency key.
    pub kept: Option<KeptResponse>,
    /// What the move tells the players (written with it: the outbox of their webhooks).
    pub notifications: Vec<NewNotification>,
    /// A move that ends a rated match: its players' new ratings, written with it only if
    /// their ratings are still the ones these were computed from (`store/ratings.rs`).
    pub ratings: Option<RatingUpdate>,
    /// Unix seconds.
    pub now: i64,
}

impl Append {
    /// The match's version once written.
    pub fn new_version(&self) -> i64 {
        self.expected_version + self.events.len() as i64
    }
}

impl Db {
    /// Appends atomically if the match is still at `expected_version`; `Ok(false)`, writing
    /// nothing, when another writer got there first or a unique key refused the write.
    /// A failure after the append was sent is [`StoreError::Unconfirmed`].
    pub async fn append_events(&self, append: Append) -> Result<bool, StoreError> {
        let written = match &self.batcher {
            Some(batcher) => batcher.append(append).await,
            // The writer's own handle (it has no writer of its own to send to).
            None => batcher::alone(self, &append).await,
        }
        .map_err(|error| match error {
            // Abandoned at the statement timeout: sent, and never confirmed.
            StoreError::TimedOut => StoreError::Unconfirmed(None),
            other => other,
        })?;
        // Each backend's writer recorded for the relay what its commit told (`store/told.rs`).
        Ok(written)
    }

    /// The response kept under an idempotency key.
    pub async fn kept_response(
        &self,
        account_id: &str,
        match_id: &str,
        key: &str,
    ) -> Result<Option<KeptResponse>, StoreError> {
        let row = self.read(async |connection| query(
            "SELECT request_hash, response FROM idempotency_keys WHERE account_id = $1 AND match_id = $2 AND key = $3",
        )
        .bind(account_id)
        .bind(match_id)
        .bind(key)
        .fetch_optional(connection).await)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(KeptResponse {
            account_id: account_id.to_owned(),
            key: key.to_owned(),
            request_hash: row.try_get("request_hash")?,
            body: row.try_get("response")?,
        }))
    }
}

/// Appends inside a transaction the caller holds (a match starting as its last seat is taken);
/// the same writes and the same refusals as [`Db::append_events`].
pub(super) async fn append_in(
    connection: &mut AnyConnection,
    backend: Backend,
    append: &Append,
) -> Result<bool, StoreError> {
    match backend {
        Backend::Sqlite => sqlite::write(connection, append).await,
        Backend::Postgres if append.ratings.is_some() => Err(StoreError::Corrupt(
            "a rated match ends by an append of its own, not inside another write".into(),
        )),
        Backend::Postgres => Ok(postgres::write_one(connection, append).await?.is_some()),
    }
}
