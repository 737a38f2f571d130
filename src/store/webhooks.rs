//! The `webhooks`, `webhook_kinds`, `webhook_deliveries` and `webhook_attempts` tables (see
//! migration 0007): an account's webhooks, and the outbox their deliverer works through.
//!
//! A webhook's deliveries go out one at a time, in the order of the account's stream: its
//! `next_attempt_at` says when its oldest pending delivery is due. A process claims a due
//! webhook with a lease (on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so two processes never
//! claim the same one), sends, records the attempt, and gives the lease up.

use std::collections::HashMap;

use sqlx::Row;

use super::work::Claim;
use super::{Db, Owner, StoreError};
use crate::store::query;

/// A stored webhook.
#[derive(Clone, Debug)]
pub struct WebhookRow {
    /// UUID.
    pub id: String,
    /// Whose it is.
    pub account_id: String,
    /// Where deliveries go.
    pub url: String,
    /// The notification types it wants.
    pub kinds: Vec<String>,
    /// The signing secret as stored (sealed when a key encryption key is set).
    pub secret: String,
    /// Unix seconds.
    pub created_at: i64,
    /// Set after persistent failure.
    pub disabled_at: Option<i64>,
    /// Why it was disabled.
    pub disabled_reason: Option<String>,
    /// The first failed attempt since the last success.
    pub failing_since: Option<i64>,
}

/// A delivery of a notification to a webhook, with its attempts.
#[derive(Clone, Debug)]
pub struct DeliveryRow {
    /// Its id.
    pub id: i64,
    /// The notification's public id.
    pub message_id: String,
    /// The notification's type.
    pub kind: String,
    /// The notification's place in the account's stream.
    pub seq: i64,
    /// `pending`, `delivered` or `failed`.
    pub state: String,
    /// Unix seconds.
    pub created_at: i64,
    /// When it was delivered (or given up).
    pub finished_at: Option<i64>,
    /// Its most recent attempts, oldest first.
    pub attempts: Vec<AttemptRow>,
}

/// One attempt at a delivery.
#[derive(Clone, Debug)]
pub struct AttemptRow {
    /// Unix seconds.
    pub attempted_at: i64,
    /// The receiver's status, when it answered.
    pub status_code: Option<i64>,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// How long it took.
    pub duration_ms: i64,
}

/// The oldest pending delivery of a webhook, to send.
#[derive(Clone, Debug)]
pub struct Outgoing {
    /// The delivery.
    pub delivery_id: i64,
    /// Failed attempts so far.
    pub attempts: i64,
    /// The notification.
    pub notification: super::notifications::StoredNotification,
}

/// What became of an attempt.
#[derive(Debug)]
pub enum AttemptOutcome {
    /// The receiver answered 2xx.
    Delivered,
    /// It failed; try again at `retry_at`.
    Retry {
        /// Unix seconds.
        retry_at: i64,
    },
    /// It failed for too long: the webhook is disabled, for this reason.
    Disable {
        /// In words.
        reason: String,
    },
}

const WEBHOOK_COLUMNS: &str =
    "id, account_id, url, secret, created_at, disabled_at, disabled_reason, failing_since";

fn webhook_from_row(row: &sqlx::any::AnyRow) -> Result<WebhookRow, sqlx::Error> {
    Ok(WebhookRow {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        url: row.try_get("url")?,
        kinds: Vec::new(),
        secret: row.try_get("secret")?,
        created_at: row.try_get("created_at")?,
        disabled_at: row.try_get("disabled_at")?,
        disabled_reason: row.try_get("disabled_reason")?,
        failing_since: row.try_get("failing_since")?,
    })
}

impl Db {
    /// Stores a new webhook and the types it wants, unless its account has `most` webhooks
    /// already (`false`: nothing was stored; see [`Db::begin_capped`]).
    pub async fn insert_webhook(
        &self,
        webhook: &WebhookRow,
        most: usize,
    ) -> Result<bool, StoreError> {
        self.timed(async {
            let capped = self.begin_capped(Owner::Account, &webhook.account_id, "webhooks", most);
            let Some(mut transaction) = capped.await? else {
                return Ok(false);
            };
            query(
                "INSERT INTO webhooks (id, account_id, url, secret, created_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&webhook.id)
            .bind(&webhook.account_id)
            .bind(&webhook.url)
            .bind(&webhook.secret)
            .bind(webhook.created_at)
            .execute(&mut *transaction)
            .await?;
            for kind in &webhook.kinds {
                query("INSERT INTO webhook_kinds (webhook_id, kind) VALUES ($1, $2)")
                    .bind(&webhook.id)
                    .bind(kind)
                    .execute(&mut *transaction)
                    .await?;
            }
            transaction.commit().await?;
            Ok::<_, StoreError>(true)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// An account's webhooks, oldest first (`id`: only that one).
    pub async fn webhooks_of(
        &self,
        account_id: &str,
        id: Option<&str>,
    ) -> Result<Vec<WebhookRow>, StoreError> {
        let sql = format!(
            "SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 AND ($2 = '' OR id = $2) \
             ORDER BY created_at, id"
        );
        let rows = self
            .read(async |connection| {
                query(&sql)
                    .bind(account_id)
                    .bind(id.unwrap_or_default())
                    .fetch_all(connection)
                    .await
            })
            .await?;
        let mut webhooks = rows
            .iter()
            .map(webhook_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        let kinds = self.read(async |connection| query(
                    "SELECT k.webhook_id, k.kind FROM webhook_kinds k JOIN webhooks w ON w.id = k.webhook_id \
                     WHERE w.account_id = $1 ORDER BY k.kind",
                )
                .bind(account_id)
                .fetch_all(connection).await)
            .await?;
        let mut by_webhook: HashMap<String, Vec<String>> = HashMap::new();
        for row in kinds {
            by_webhook
                .entry(row.try_get("webhook_id")?)
                .or_default()
                .push(row.try_get("kind")?);
        }
        for webhook in &mut webhooks {
            webhook.kinds = by_webhook.remove(&webhook.id).unwrap_or_default();
        }
        Ok(webhooks)
    }

    /// Deletes one of an account's webhooks with its deliveries; whether it existed.
    ///
    /// The deliveries go first, then the webhook: the order a delivery's outcome locks them in
    /// (delivery, then webhook). Deleting the webhook first and its deliveries by cascade took
    /// them the other way round, and PostgreSQL ended a delete racing a delivery as a deadlock.
    pub async fn delete_webhook(&self, account_id: &str, id: &str) -> Result<bool, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query(
                "DELETE FROM webhook_deliveries WHERE webhook_id = $2 \
                 AND webhook_id IN (SELECT id FROM webhooks WHERE account_id = $1)",
            )
            .bind(account_id)
            .bind(id)
            .execute(&mut *transaction)
            .await?;
            let deleted = query("DELETE FROM webhooks WHERE account_id = $1 AND id = $2")
                .bind(account_id)
                .bind(id)
                .execute(&mut *transaction)
                .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(deleted.rows_affected() == 1)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Enables one of an account's webhooks again: its pending deliveries are due at once.
    /// Whether it existed.
    pub async fn enable_webhook(
        &self,
        account_id: &str,
        id: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let updated = self.single(async |connection| query(
                    "UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL, \
                     next_attempt_at = CASE WHEN EXISTS (SELECT 1 FROM webhook_deliveries d \
                       WHERE d.webhook_id = webhooks.id AND d.state = 'pending') THEN $3 ELSE NULL END \
                     WHERE account_id = $1 AND id = $2",
                )
                .bind(account_id)
                .bind(id)
                .bind(now)
                .execute(connection).await)
            .await
            .map_err(StoreError::of_write)?;
        Ok(updated.rows_affected() == 1)
    }

    /// A webhook's most recent deliveries, newest first, each with its last `attempts`.
    pub async fn deliveries_of(
        &self,
        webhook_id: &str,
        limit: i64,
        attempts: usize,
    ) -> Result<Vec<DeliveryRow>, StoreError> {
        let rows = self.read(async |connection| query(
                    "SELECT d.id, d.state, d.created_at, d.finished_at, n.message_id, n.kind, n.seq \
                     FROM webhook_deliveries d JOIN notifications n ON n.id = d.notification_id \
                     WHERE d.webhook_id = $1 ORDER BY d.id DESC LIMIT $2",
                )
                .bind(webhook_id)
                .bind(limit)
                .fetch_all(connection).await)
            .await?;
        let mut deliveries = Vec::with_capacity(rows.len());
        for row in &rows {
            deliveries.push(DeliveryRow {
                id: row.try_get("id")?,
                message_id: row.try_get("message_id")?,
                kind: row.try_get("kind")?,
                seq: row.try_get("seq")?,
                state: row.try_get("state")?,
                created_at: row.try_get("created_at")?,
                finished_at: row.try_get("finished_at")?,
                attempts: Vec::new(),
            });
        }
        let Some(oldest) = deliveries.last().map(|delivery| delivery.id) else {
            return Ok(deliveries);
        };
        let rows = self.read(async |connection| query(
                    "SELECT delivery_id, attempted_at, status_code, error, duration_ms FROM webhook_attempts \
                     WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND id >= $2) \
                     ORDER BY id",
                )
                .bind(webhook_id)
                .bind(oldest)
                .fetch_all(connection).await)
            .await?;
        let mut by_delivery: HashMap<i64, Vec<AttemptRow>> = HashMap::new();
        for row in rows {
            by_delivery
                .entry(row.try_get("delivery_id")?)
                .or_default()
                .push(AttemptRow {
                    attempted_at: row.try_get("attempted_at")?,
                    status_code: row.try_get("status_code")?,
                    error: row.try_get("error")?,
                    duration_ms: row.try_get("duration_ms")?,
                });
        }
        for delivery in &mut deliveries {
            let mut all = by_delivery.remove(&delivery.id).unwrap_or_default();
            delivery.attempts = all.split_off(all.len().saturating_sub(attempts));
        }
        Ok(deliveries)
    }

    /// Claims up to `limit` enabled webhooks whose oldest pending delivery is due, for this
    /// process until `lease_until`.
    pub async fn claim_due_webhooks(
        &self,
        now: i64,
        lease_until: i64,
        limit: i64,
    ) -> Result<Vec<WebhookRow>, StoreError> {
        let claim = Claim {
            table: "webhooks",
            lease: "lease_until",
            due: "disabled_at IS NULL AND next_attempt_at <= $1",
            order: "next_attempt_at",
            returning: WEBHOOK_COLUMNS,
        };
        let rows = self.claim_rows(claim, now, lease_until, limit).await?;
        Ok(rows
            .iter()
            .map(webhook_from_row)
            .collect::<Result<_, _>>()?)
    }

    /// The oldest pending delivery of a webhook.
    pub async fn next_delivery(&self, webhook_id: &str) -> Result<Option<Outgoing>, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT d.id, d.attempts, n.seq, n.message_id, n.kind, n.data, n.created_at \
                     FROM webhook_deliveries d JOIN notifications n ON n.id = d.notification_id \
                     WHERE d.webhook_id = $1 AND d.state = 'pending' ORDER BY d.id LIMIT 1",
                )
                .bind(webhook_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(Outgoing {
            delivery_id: row.try_get("id")?,
            attempts: row.try_get("attempts")?,
            notification: super::notifications::StoredNotification {
                seq: row.try_get("seq")?,
                message_id: row.try_get("message_id")?,
                kind: row.try_get("kind")?,
                data: row.try_get("data")?,
                created_at: row.try_get("created_at")?,
            },
        }))
    }

    /// Records an attempt at a delivery and what follows from it, in one transaction: a
    /// delivered one makes the webhook's next pending delivery due at once; a failed one is
    /// retried at its time; a webhook failing for too long is disabled.
    pub async fn record_attempt(
        &self,
        webhook_id: &str,
        delivery_id: i64,
        attempt: &AttemptRow,
        outcome: &AttemptOutcome,
    ) -> Result<(), StoreError> {
        let now = attempt.attempted_at;
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            // The webhook may have been deleted meanwhile, its deliveries with it.
            query(
                "INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, duration_ms) \
                 SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1)",
            )
            .bind(delivery_id)
            .bind(now)
            .bind(attempt.status_code)
            .bind(attempt.error.as_deref())
            .bind(attempt.duration_ms)
            .execute(&mut *transaction)
            .await?;
            match outcome {
                AttemptOutcome::Delivered => {
                    query(
                        "UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, \
                         finished_at = $2 WHERE id = $1",
                    )
                    .bind(delivery_id)
                    .bind(now)
                    .execute(&mut *transaction)
                    .await?;
                    query(
                        "UPDATE webhooks SET failing_since = NULL, next_attempt_at = CASE WHEN EXISTS \
                         (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = webhooks.id AND d.state = 'pending') \
                         THEN $2 ELSE NULL END WHERE id = $1",
                    )
                    .bind(webhook_id)
                    .bind(now)
                    .execute(&mut *transaction)
                    .await?;
                }
                AttemptOutcome::Retry { retry_at } => {
                    query("UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = $1")
                        .bind(delivery_id)
                        .execute(&mut *transaction)
                        .await?;
                    query(
                        "UPDATE webhooks SET failing_since = COALESCE(failing_since, $2), \
                         next_attempt_at = $3 WHERE id = $1",
                    )
                    .bind(webhook_id)
                    .bind(now)
                    .bind(*retry_at)
                    .execute(&mut *transaction)
                    .await?;
                }
                AttemptOutcome::Disable { reason } => {
                    query("UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = $1")
                        .bind(delivery_id)
                        .execute(&mut *transaction)
                        .await?;
                    query(
                        "UPDATE webhooks SET disabled_at = $2, disabled_reason = $3, next_attempt_at = NULL \
                         WHERE id = $1",
                    )
                    .bind(webhook_id)
                    .bind(now)
                    .bind(reason)
                    .execute(&mut *transaction)
                    .await?;
                }
            }
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Extends this process's claims on these webhooks until `lease_until`; those given up
    /// already stay free.
    pub async fn renew_webhooks(
        &self,
        webhook_ids: &[String],
        lease_until: i64,
    ) -> Result<(), StoreError> {
        self.renew_leases("webhooks", "lease_until", webhook_ids, lease_until)
            .await
    }

    /// Gives up this process's claim on a webhook.
    pub async fn release_webhook(&self, webhook_id: &str) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("UPDATE webhooks SET lease_until = NULL WHERE id = $1")
                .bind(webhook_id)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }
}
