//! SQLite: a batch of appends in one write transaction, each inside a savepoint of its own.
//!
//! SQLite has one writer at a time, and with `synchronous` at FULL each commit flushes the
//! log to disk: many moves sharing one transaction (gathered by `batcher.rs`) share that
//! flush. An append refused at a stale version has written nothing (the version is its first
//! write's guard); one that can be refused after writing (a kept response's unique key, a
//! player's rating that moved) goes in a savepoint, rolled back alone. Any other failure fails
//! the batch, whose appends the batcher then retries alone.

use std::collections::HashSet;

use sqlx::AnyConnection;

use super::Append;
use crate::model::{Named, Outcome};
use crate::store::log_rows::LogRow;
use crate::store::query;
use crate::store::{Db, StoreError};

/// A batch in one transaction: the matches whose appends were written. A failure other than
/// a refusal fails the whole batch, and nothing of it is written (past the commit: unknown,
/// `Unconfirmed`).
pub(super) async fn write_batch(db: &Db, batch: &[&Append]) -> Result<HashSet<String>, StoreError> {
    db.timed(async {
        let mut transaction = db.begin_write().await?;
        let mut written = HashSet::with_capacity(batch.len());
        for append in batch {
            // Two statements saved on most moves: a savepoint only where it can be needed.
            let guarded = append.kept.is_some() || append.ratings.is_some();
            if guarded {
                query("SAVEPOINT append").execute(&mut *transaction).await?;
            }
            match write(&mut transaction, append).await {
                Ok(true) => {
                    written.insert(append.match_id.clone());
                }
                Ok(false) | Err(StoreError::Conflict(_)) if guarded => {
                    query("ROLLBACK TO append")
                        .execute(&mut *transaction)
                        .await?;
                }
                // Refused by the version guard, before anything was written.
                Ok(false) => {}
                Err(other) => return Err(other),
            }
            if guarded {
                query("RELEASE append").execute(&mut *transaction).await?;
            }
        }
        transaction
            .commit()
            .await
            .map_err(|error| StoreError::from(error).of_write())?;
        // For the relay, which reads the accounts' counters (`store/told.rs`).
        db.told.record(
            batch
                .iter()
                .filter(|append| written.contains(&append.match_id))
                .flat_map(|append| &append.notifications),
        );
        Ok(written)
    })
    .await
}

/// One append in a transaction of its own: a batch of one. A unique key's refusal is a
/// refusal like a stale version's (nothing of the transaction was committed).
pub(super) async fn append_alone(db: &Db, append: &Append) -> Result<bool, StoreError> {
    match write_batch(db, &[append]).await {
        Ok(written) => Ok(!written.is_empty()),
        Err(StoreError::Conflict(_)) => Ok(false),
        Err(other) => Err(other),
    }
}

/// An append's writes inside the caller's transaction; `false` when the match is not at the
/// expected version (nothing written) or a player's rating moved (the caller rolls back).
pub(super) async fn write(
    connection: &mut AnyConnection,
    append: &Append,
) -> Result<bool, StoreError> {
    let Append {
        match_id,
        expected_version,
        events,
        model,
        kept,
        notifications,
        ratings,
        now,
    } = append;
    let updated = query(
        "UPDATE matches SET version = $1, status = $2, turn_seat = $3, \
         turn_since = CASE WHEN $4 = 1 THEN $5 ELSE turn_since END, winners = $6, updated_at = $5, \
         deadline = $9, remind_at = $10, outcome = $11, final_totals = $12, \
         bot_turn_since = CASE WHEN $13 = 1 THEN COALESCE(bot_turn_since, $5) ELSE NULL END \
         WHERE id = $7 AND version = $8",
    )
    .bind(append.new_version())
    .bind(model.status.name())
    .bind(model.turn_seat.map(i64::from))
    .bind(i64::from(model.turn_changed))
    .bind(*now)
    .bind(model.winners_json())
    .bind(match_id)
    .bind(*expected_version)
    .bind(model.deadline)
    .bind(model.remind_at)
    .bind(model.outcome.map(Outcome::name))
    .bind(model.final_totals_json())
    .bind(i64::from(model.bot_turn))
    .execute(&mut *connection)
    .await?;
    if updated.rows_affected() != 1 {
        return Ok(false);
    }
    // The append's events in one row (`store/log_rows.rs`).
    if let Some(row) = LogRow::of(events) {
        query(
            "INSERT INTO match_events (match_id, seq, event, hash, earlier, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(match_id)
        .bind(row.seq)
        .bind(row.event)
        .bind(row.hash)
        .bind(row.earlier)
        .bind(*now)
        .execute(&mut *connection)
        .await?;
    }
    if let Some(kept) = kept {
        crate::store::query(
            "INSERT INTO idempotency_keys (account_id, match_id, key, request_hash, response, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&kept.account_id)
        .bind(match_id)
        .bind(&kept.key)
        .bind(&kept.request_hash)
        .bind(&kept.body)
        .bind(*now)
        .execute(&mut *connection)
        .await?;
    }
    crate::store::notifications::insert(connection, notifications).await?;
    // Refused when a player's rating moved: the caller rolls the whole append back.
    if let Some(update) = ratings
        && !crate::store::ratings::record(connection, match_id, update, *now).await?
    {
        return Ok(false);
    }
    Ok(true)
}
