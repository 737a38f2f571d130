//! PostgreSQL: a batch of appends in one statement.
//!
//! The batch (gathered by `batcher.rs`) goes to the database as three JSON arrays in one
//! statement of data-modifying CTEs (`append_batch.sql`), so the database does one commit for
//! many moves. Every append keeps its own outcome: the version check is made row by row
//! (`UPDATE … FROM` with `version = expected`), and a match's events, kept response and
//! notifications are written only if its row was. A batch of one, and an append inside a
//! caller's transaction, run the same statement.

use std::collections::HashSet;

use serde::Serialize;
use sqlx::AnyConnection;

use super::Append;
use crate::model::{Named, Outcome};
use crate::store::log_rows::LogRow;
use crate::store::ratings::{self, RatingUpdate};
use crate::store::{Db, StoreError, query_as};

/// A batch in one statement: the matches whose appends were written. A unique key refusing
/// any append fails the whole statement (`StoreError::Conflict`), and nothing is written.
pub(super) async fn write_batch(db: &Db, batch: &[&Append]) -> Result<HashSet<String>, StoreError> {
    let written = db
        .single(async |connection| append_together(connection, batch).await)
        .await
        .map_err(StoreError::of_write)?;
    Ok(written.committed(db))
}

/// One append alone, as when its batch failed: `Ok(false)` when it was refused.
pub(super) async fn append_alone(db: &Db, append: &Append) -> Result<bool, StoreError> {
    if let Some(update) = &append.ratings {
        return write_rated(db, append, update).await;
    }
    let written = db
        .single(async |connection| write_one(connection, append).await)
        .await
        .map_err(StoreError::of_write)?;
    Ok(written.map(|written| written.committed(db)).is_some())
}

/// The end of a rated match: the append and its players' ratings in one transaction, both or
/// neither; `Ok(false)` when the match moved on or a player's rating did.
async fn write_rated(db: &Db, append: &Append, update: &RatingUpdate) -> Result<bool, StoreError> {
    db.timed(async {
        let mut transaction = db.begin_write().await?;
        let Some(written) = write_one(&mut transaction, append).await? else {
            transaction.rollback().await?;
            return Ok::<bool, StoreError>(false);
        };
        if !ratings::record(&mut transaction, &append.match_id, update, append.now).await? {
            transaction.rollback().await?;
            return Ok(false);
        }
        transaction
            .commit()
            .await
            .map_err(|error| StoreError::from(error).of_write())?;
        written.committed(db);
        Ok(true)
    })
    .await
    .map_err(StoreError::of_write)
}

/// One append on the caller's connection (or in its transaction): the batch statement with a
/// batch of one. A unique key refusing it is a refusal, `Ok(None)`.
pub(super) async fn write_one(
    connection: &mut AnyConnection,
    append: &Append,
) -> Result<Option<Written>, StoreError> {
    match append_together(connection, &[append]).await {
        Ok(written) if written.matches.is_empty() => Ok(None),
        Ok(written) => Ok(Some(written)),
        Err(StoreError::Conflict(_)) => Ok(None),
        Err(other) => Err(other),
    }
}

/// What the batch statement wrote.
pub(super) struct Written {
    /// The matches whose appends were written.
    matches: HashSet<String>,
    /// Each account told, with its counter (its newest notification's `seq`) after the
    /// statement.
    counters: Vec<(String, i64)>,
    /// Whether any notification was queued for the relay's fan-out.
    fan_out: bool,
}

impl Written {
    /// Once the statement's transaction has committed: records for the relay what it told
    /// (`store/told.rs`); the matches written.
    fn committed(self, db: &Db) -> HashSet<String> {
        db.told.record_newest(self.counters, self.fan_out);
        self.matches
    }
}

#[derive(Serialize)]
struct MoveRecord<'a> {
    id: &'a str,
    expected: i64,
    version: i64,
    status: &'a str,
    turn_seat: Option<u8>,
    turn_changed: bool,
    bot_turn: bool,
    winners: Option<String>,
    now: i64,
    deadline: Option<i64>,
    remind_at: Option<i64>,
    outcome: Option<&'static str>,
    final_totals: Option<String>,
    /// The move's log row (`store/log_rows.rs`), keyed by `version`.
    event: Option<&'a str>,
    hash: Option<&'a str>,
    earlier: Option<String>,
}

#[derive(Serialize)]
struct NotificationRecord<'a> {
    match_id: &'a str,
    /// Its order among the batch's notifications: the order they are numbered in.
    ord: usize,
    message_id: &'a str,
    account_id: &'a str,
    kind: &'a str,
    data: &'a str,
}

#[derive(Serialize)]
struct KeptRecord<'a> {
    account_id: &'a str,
    match_id: &'a str,
    key: &'a str,
    request_hash: &'a str,
    response: &'a str,
}

/// Every append of a batch in one statement (see the file's comments). Public for the test
/// that checks its plan finds matches by their key (`tests/api/scale.rs`).
pub const APPEND_TOGETHER: &str = include_str!("append_batch.sql");

/// Runs [`APPEND_TOGETHER`]; returns the matches whose rows were at their expected version and
/// so were written, and what their notifications did.
async fn append_together(
    connection: &mut AnyConnection,
    batch: &[&Append],
) -> Result<Written, StoreError> {
    let mut moves = Vec::with_capacity(batch.len());
    let mut kept = Vec::new();
    let mut notifications = Vec::new();
    for append in batch {
        let log_row = LogRow::of(&append.events);
        moves.push(MoveRecord {
            id: &append.match_id,
            expected: append.expected_version,
            version: append.new_version(),
            status: append.model.status.name(),
            turn_seat: append.model.turn_seat,
            turn_changed: append.model.turn_changed,
            bot_turn: append.model.bot_turn,
            winners: append.model.winners_json(),
            now: append.now,
            deadline: append.model.deadline,
            remind_at: append.model.remind_at,
            outcome: append.model.outcome.map(Outcome::name),
            final_totals: append.model.final_totals_json(),
            event: log_row.as_ref().map(|row| row.event),
            hash: log_row.as_ref().map(|row| row.hash),
            earlier: log_row.and_then(|row| row.earlier),
        });
        for notification in &append.notifications {
            notifications.push(NotificationRecord {
                match_id: &append.match_id,
                ord: notifications.len(),
                message_id: &notification.message_id,
                account_id: &notification.account_id,
                kind: notification.kind,
                data: &notification.data,
            });
        }
        if let Some(response) = &append.kept {
            kept.push(KeptRecord {
                account_id: &response.account_id,
                match_id: &append.match_id,
                key: &response.key,
                request_hash: &response.request_hash,
                response: &response.body,
            });
        }
    }
    let rows: Vec<(String, String, Option<i64>)> = query_as(APPEND_TOGETHER)
        .bind(to_json(&moves))
        .bind(to_json(&kept))
        .bind(to_json(&notifications))
        .fetch_all(&mut *connection)
        .await?;
    let mut written = Written {
        matches: HashSet::with_capacity(batch.len()),
        counters: Vec::new(),
        fan_out: false,
    };
    for (what, id, seq) in rows {
        match (what.as_str(), seq) {
            ("match", _) => {
                written.matches.insert(id);
            }
            ("account", Some(seq)) => written.counters.push((id, seq)),
            ("fan_out", _) => written.fan_out = true,
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "the batch returned {what} {id}"
                )));
            }
        }
    }
    Ok(written)
}

/// Records hold only strings, numbers and booleans: serialising them cannot fail.
fn to_json<T: Serialize>(rows: &[T]) -> String {
    serde_json::to_string(rows).expect("records serialise")
}
