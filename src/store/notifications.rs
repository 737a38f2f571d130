//! The `notifications` table: what each account is told, in its account's stream (migrations
//! 0007 and 0020).
//!
//! A notification is inserted in the transaction of what causes it, with its place in its
//! account's stream (`seq`) taken from the account's counter in that transaction ([`insert`];
//! the batched append does the same in its statement, `append/append_batch.sql`). The
//! counter's row stays locked until the commit, so an account's notifications are numbered in
//! the order they commit: the stream is dense (1, 2, 3, …) and a reader who has seen one `seq`
//! has seen every one before it. Counters are taken in the order of the accounts' ids, so two
//! transactions telling the same accounts do not deadlock.
//!
//! What the relay still does for a notification, the webhook deliveries and alerts it causes,
//! is queued in `notification_fanout`, only for accounts that have an enabled webhook or alert
//! settings ([`Db::fan_out_queued`]). A server from before migration 0020 writes notifications
//! without a place; [`Db::number_leftovers`] numbers those as it did. One relay runs at a time
//! (on PostgreSQL under an advisory lock, across every server process).

use std::collections::{BTreeMap, HashSet};

use sqlx::{AnyConnection, Row};

use super::{Backend, Db, StoreError};
use crate::store::{query, query_as};

/// The advisory lock the relays of every server process take in turn (PostgreSQL).
const RELAY_LOCK: i64 = 0x6b63_7265_6c61_7900; // "kcrelay\0"

/// A notification to write, in the transaction of what causes it.
#[derive(Clone, Debug)]
pub struct NewNotification {
    /// Its public id (the `webhook-id` of its deliveries).
    pub message_id: String,
    /// Who is told.
    pub account_id: String,
    /// Its type (`your_turn`, …).
    pub kind: &'static str,
    /// Its fields (JSON).
    pub data: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// A notification in its account's stream.
#[derive(Clone, Debug)]
pub struct StoredNotification {
    /// Its place in the account's stream, from 1.
    pub seq: i64,
    /// Its public id.
    pub message_id: String,
    /// Its type.
    pub kind: String,
    /// Its fields (JSON).
    pub data: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// What waits for the relay.
#[derive(Clone, Copy, Debug, Default)]
pub struct Waiting {
    /// Notifications written without a place (by a server from before migration 0020).
    pub unnumbered: bool,
    /// Notifications queued to be fanned out.
    pub queued: bool,
}

/// What one run of the relay did.
#[derive(Debug, Default)]
pub struct Relayed {
    /// Notifications numbered or fanned out.
    pub notifications: usize,
    /// Each account whose notifications were numbered, with its newest `seq`.
    pub accounts: Vec<(String, i64)>,
    /// Webhook deliveries written.
    pub deliveries: u64,
    /// Alerts written (by email or push).
    pub alerts: u64,
}

/// Moves account `$2`'s counter on by `$1` notifications, returning the newest place and
/// whether the relay must fan them out (1: the account has an enabled webhook or alert
/// settings; 0: not). The batched append says the same of each notification in SQL
/// (`append/append_batch.sql`).
const TAKE_PLACES: &str = "UPDATE accounts SET notification_seq = notification_seq + $1 \
     WHERE id = $2 RETURNING notification_seq, \
     CASE WHEN EXISTS (SELECT 1 FROM webhooks w \
         WHERE w.account_id = accounts.id AND w.disabled_at IS NULL) \
     OR EXISTS (SELECT 1 FROM alert_settings s WHERE s.account_id = accounts.id) \
     THEN 1 ELSE 0 END";

/// Writes notifications inside the caller's transaction, each numbered in its account's
/// stream, and queues those the relay must fan out: an update per account told, the insert,
/// and the queue's insert only when one of the accounts wants fan-out (most have no webhook
/// and no alerts).
pub(super) async fn insert(
    connection: &mut AnyConnection,
    notifications: &[NewNotification],
) -> Result<(), StoreError> {
    if notifications.is_empty() {
        return Ok(());
    }
    // Each account's counter moved on by its notifications, in the order of the accounts' ids
    // (two writers telling the same accounts do not deadlock on PostgreSQL).
    let mut told: BTreeMap<&str, i64> = BTreeMap::new();
    for notification in notifications {
        *told.entry(&notification.account_id).or_default() += 1;
    }
    let mut next: BTreeMap<&str, i64> = BTreeMap::new();
    let mut fanned_out: HashSet<&str> = HashSet::new();
    for (account_id, count) in told {
        let counted: Option<(i64, i64)> = query_as(TAKE_PLACES)
            .bind(count)
            .bind(account_id)
            .fetch_optional(&mut *connection)
            .await?;
        let (newest, wants_fan_out) = counted.ok_or_else(|| {
            StoreError::Corrupt("a notification for an account that does not exist".into())
        })?;
        next.insert(account_id, newest - count + 1);
        if wants_fan_out == 1 {
            fanned_out.insert(account_id);
        }
    }
    let sql = format!(
        "INSERT INTO notifications (message_id, account_id, kind, data, created_at, seq) \
         VALUES {}{}",
        crate::store::value_rows(notifications.len(), 6),
        if fanned_out.is_empty() {
            ""
        } else {
            " RETURNING id, account_id"
        }
    );
    let mut statement = query(&sql);
    for notification in notifications {
        let place = next
            .get_mut(notification.account_id.as_str())
            .expect("every account was counted");
        statement = statement
            .bind(&notification.message_id)
            .bind(&notification.account_id)
            .bind(notification.kind)
            .bind(&notification.data)
            .bind(notification.created_at)
            .bind(*place);
        *place += 1;
    }
    if fanned_out.is_empty() {
        statement.execute(&mut *connection).await?;
        return Ok(());
    }
    let mut queued = Vec::new();
    for row in statement.fetch_all(&mut *connection).await? {
        let account_id: String = row.try_get("account_id")?;
        if fanned_out.contains(account_id.as_str()) {
            queued.push(row.try_get::<i64, _>("id")?);
        }
    }
    let sql = format!(
        "INSERT INTO notification_fanout (notification_id) VALUES {}",
        crate::store::value_rows(queued.len(), 1)
    );
    let mut statement = query(&sql);
    for id in queued {
        statement = statement.bind(id);
    }
    statement.execute(&mut *connection).await?;
    Ok(())
}

impl Db {
    /// What waits for the relay (a cheap look, without its lock).
    pub async fn notifications_waiting(&self) -> Result<Waiting, StoreError> {
        let row = self
            .read(async |connection| {
                // Integers, not `EXISTS`'s boolean: SQLite has none.
                query_as::<(i64, i64)>(
                    "SELECT CASE WHEN EXISTS (SELECT 1 FROM notifications WHERE seq IS NULL) \
                     THEN 1 ELSE 0 END, \
                     CASE WHEN EXISTS (SELECT 1 FROM notification_fanout) THEN 1 ELSE 0 END",
                )
                .fetch_one(connection)
                .await
            })
            .await?;
        Ok(Waiting {
            unnumbered: row.0 == 1,
            queued: row.1 == 1,
        })
    }

    /// Writes the webhook deliveries and alerts of up to `limit` queued notifications, oldest
    /// first, and takes them off the queue; in one transaction, one relay at a time.
    pub async fn fan_out_queued(&self, limit: i64, now: i64) -> Result<Relayed, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            if self.backend() == Backend::Postgres {
                query("SELECT pg_advisory_xact_lock($1)")
                    .bind(RELAY_LOCK)
                    .execute(&mut *transaction)
                    .await?;
            }
            let queued: Vec<i64> = query_as::<(i64,)>(
                "SELECT notification_id FROM notification_fanout ORDER BY notification_id LIMIT $1",
            )
            .bind(limit)
            .fetch_all(&mut *transaction)
            .await?
            .into_iter()
            .map(|(id,)| id)
            .collect();
            if queued.is_empty() {
                return Ok::<_, StoreError>(Relayed::default());
            }
            // A notification expired meanwhile has nothing left to send: its row just goes.
            let deliveries = fan_out(&mut transaction, &queued, now).await?;
            let alerts = super::alerts::queue_alerts(&mut transaction, &queued, now).await?;
            let list: Vec<String> = (1..=queued.len())
                .map(|index| format!("${index}"))
                .collect();
            let sql = format!(
                "DELETE FROM notification_fanout WHERE notification_id IN ({})",
                list.join(", ")
            );
            let mut statement = query(&sql);
            for id in &queued {
                statement = statement.bind(*id);
            }
            statement.execute(&mut *transaction).await?;
            transaction.commit().await?;
            Ok(Relayed {
                notifications: queued.len(),
                accounts: Vec::new(),
                deliveries,
                alerts,
            })
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Numbers up to `limit` notifications written without a place (by a server from before
    /// migration 0020), oldest first, each in its account's stream, and writes the deliveries
    /// and alerts they cause; in one transaction, one relay at a time.
    pub async fn number_leftovers(&self, limit: i64, now: i64) -> Result<Relayed, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            if self.backend() == Backend::Postgres {
                query("SELECT pg_advisory_xact_lock($1)")
                    .bind(RELAY_LOCK)
                    .execute(&mut *transaction)
                    .await?;
            }
            let waiting = query(
                "SELECT id, account_id FROM notifications WHERE seq IS NULL ORDER BY id LIMIT $1",
            )
            .bind(limit)
            .fetch_all(&mut *transaction)
            .await?;
            if waiting.is_empty() {
                return Ok::<_, StoreError>(Relayed::default());
            }
            let mut by_account: BTreeMap<String, Vec<i64>> = BTreeMap::new();
            for row in &waiting {
                by_account
                    .entry(row.try_get("account_id")?)
                    .or_default()
                    .push(row.try_get("id")?);
            }
            let newest = advance_counters(&mut transaction, &by_account).await?;
            let mut places = Vec::with_capacity(waiting.len());
            for (account_id, ids) in &by_account {
                let last = newest[account_id];
                let first = last - ids.len() as i64 + 1;
                places.extend(ids.iter().zip(first..).map(|(id, seq)| (*id, seq)));
            }
            number(&mut transaction, &places).await?;
            let ids: Vec<i64> = places.iter().map(|(id, _)| *id).collect();
            let deliveries = fan_out(&mut transaction, &ids, now).await?;
            let alerts = super::alerts::queue_alerts(&mut transaction, &ids, now).await?;
            transaction.commit().await?;
            Ok(Relayed {
                notifications: ids.len(),
                accounts: newest.into_iter().collect(),
                deliveries,
                alerts,
            })
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Up to `limit` notifications of an account's stream after `after`, in order.
    pub async fn notifications_after(
        &self,
        account_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredNotification>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT seq, message_id, kind, data, created_at FROM notifications \
                     WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                )
                .bind(account_id)
                .bind(after)
                .bind(limit)
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter()
            .map(|row| {
                Ok(StoredNotification {
                    seq: row.try_get("seq")?,
                    message_id: row.try_get("message_id")?,
                    kind: row.try_get("kind")?,
                    data: row.try_get("data")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// The `seq` of an account's newest notification (0 before the first).
    pub async fn newest_notification(&self, account_id: &str) -> Result<i64, StoreError> {
        let row = self
            .read(async |connection| {
                query("SELECT notification_seq FROM accounts WHERE id = $1")
                    .bind(account_id)
                    .fetch_optional(connection)
                    .await
            })
            .await?;
        Ok(match row {
            Some(row) => row.try_get("notification_seq")?,
            None => 0,
        })
    }

    /// Deletes up to `limit` notifications written before `before` (and their deliveries).
    /// Returns how many went.
    pub async fn forget_notifications(&self, before: i64, limit: i64) -> Result<u64, StoreError> {
        let deleted = self.single(async |connection| query(
                    "DELETE FROM notifications WHERE id IN \
                     (SELECT id FROM notifications WHERE created_at < $1 AND seq IS NOT NULL LIMIT $2)",
                )
                .bind(before)
                .bind(limit)
                .execute(connection).await)
            .await?;
        Ok(deleted.rows_affected())
    }
}

/// Moves each account's counter on by its number of notifications; the counters after.
async fn advance_counters(
    connection: &mut AnyConnection,
    by_account: &BTreeMap<String, Vec<i64>>,
) -> Result<BTreeMap<String, i64>, StoreError> {
    let mut cases = Vec::new();
    let mut ids = Vec::new();
    for index in 0..by_account.len() {
        cases.push(format!("WHEN ${} THEN ${}", 2 * index + 1, 2 * index + 2));
        ids.push(format!("${}", 2 * index + 1));
    }
    let sql = format!(
        "UPDATE accounts SET notification_seq = notification_seq + CASE id {} END \
         WHERE id IN ({}) RETURNING id, notification_seq",
        cases.join(" "),
        ids.join(", ")
    );
    let mut query = query(&sql);
    for (account_id, notifications) in by_account {
        query = query.bind(account_id).bind(notifications.len() as i64);
    }
    let mut newest = BTreeMap::new();
    for row in query.fetch_all(&mut *connection).await? {
        newest.insert(row.try_get("id")?, row.try_get("notification_seq")?);
    }
    if newest.len() != by_account.len() {
        return Err(StoreError::Corrupt(
            "a notification for an account that does not exist".into(),
        ));
    }
    Ok(newest)
}

/// Gives each notification its place: `(id, seq)` pairs, in one statement.
async fn number(connection: &mut AnyConnection, places: &[(i64, i64)]) -> Result<(), StoreError> {
    let mut cases = Vec::new();
    let mut ids = Vec::new();
    for index in 0..places.len() {
        cases.push(format!("WHEN ${} THEN ${}", 2 * index + 1, 2 * index + 2));
        ids.push(format!("${}", 2 * index + 1));
    }
    let sql = format!(
        "UPDATE notifications SET seq = CASE id {} END WHERE id IN ({})",
        cases.join(" "),
        ids.join(", ")
    );
    let mut query = query(&sql);
    for (id, seq) in places {
        query = query.bind(*id).bind(*seq);
    }
    query.execute(&mut *connection).await?;
    Ok(())
}

/// Writes a delivery of each notification to every enabled webhook of its account that wants
/// its type, in stream order, and marks those webhooks due. Returns the deliveries written.
async fn fan_out(connection: &mut AnyConnection, ids: &[i64], now: i64) -> Result<u64, StoreError> {
    let list: Vec<String> = (0..ids.len())
        .map(|index| format!("${}", index + 2))
        .collect();
    let list = list.join(", ");
    let sql = format!(
        "INSERT INTO webhook_deliveries (webhook_id, notification_id, state, attempts, created_at) \
         SELECT w.id, n.id, 'pending', 0, $1 FROM notifications n \
         JOIN webhooks w ON w.account_id = n.account_id AND w.disabled_at IS NULL \
         JOIN webhook_kinds k ON k.webhook_id = w.id AND k.kind = n.kind \
         WHERE n.id IN ({list}) ORDER BY n.account_id, n.seq"
    );
    let mut query = query(&sql).bind(now);
    for id in ids {
        query = query.bind(*id);
    }
    let written = query.execute(&mut *connection).await?.rows_affected();
    if written > 0 {
        let sql = format!(
            "UPDATE webhooks SET next_attempt_at = COALESCE(next_attempt_at, $1) WHERE id IN \
             (SELECT webhook_id FROM webhook_deliveries WHERE notification_id IN ({list}))"
        );
        let mut query = crate::store::query(&sql).bind(now);
        for id in ids {
            query = query.bind(*id);
        }
        query.execute(&mut *connection).await?;
    }
    Ok(written)
}
