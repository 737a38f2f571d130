//! Web Push (migration 0018): the server's VAPID key pair (`push_keys`), each account's
//! subscriptions (`push_subscriptions`) and the outbox of push messages (`outgoing_pushes`),
//! sent with leases as letters are.

use sqlx::{AnyConnection, Row};

use super::work::Claim;
use super::{Db, Owner, StoreError};
use crate::store::query;

/// A stored subscription.
#[derive(Clone, Debug)]
pub struct SubscriptionRow {
    /// UUID.
    pub id: String,
    /// Whose.
    pub account_id: String,
    /// The device's name.
    pub name: String,
    /// Where its messages go.
    pub endpoint: String,
    /// base64url, the browser's P-256 public key.
    pub p256dh: String,
    /// base64url, 16 bytes.
    pub auth: String,
    /// Unix seconds.
    pub created_at: i64,
    /// The last message its push service took.
    pub last_used_at: Option<i64>,
}

/// A push message to send, with its subscription.
#[derive(Clone, Debug)]
pub struct OutgoingPush {
    /// UUID.
    pub id: String,
    /// Its payload (JSON).
    pub payload: String,
    /// Unix seconds.
    pub created_at: i64,
    /// Failed attempts so far.
    pub attempts: i64,
    /// Where it goes.
    pub subscription: SubscriptionRow,
}

/// What storing a subscription did.
#[derive(Debug, PartialEq, Eq)]
pub enum Subscribed {
    /// A new one.
    Created(String),
    /// The same endpoint again: its keys and name brought up to date.
    Updated(String),
    /// The account has as many as it may.
    TooMany,
}

const SUBSCRIPTION_COLUMNS: &str =
    "id, account_id, name, endpoint, p256dh, auth, created_at, last_used_at";

fn subscription_from_row(row: &sqlx::any::AnyRow) -> Result<SubscriptionRow, sqlx::Error> {
    Ok(SubscriptionRow {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        name: row.try_get("name")?,
        endpoint: row.try_get("endpoint")?,
        p256dh: row.try_get("p256dh")?,
        auth: row.try_get("auth")?,
        created_at: row.try_get("created_at")?,
        last_used_at: row.try_get("last_used_at")?,
    })
}

/// Writes a message with `payload` to each subscription of the account (in the caller's
/// transaction); how many.
pub(super) async fn queue_pushes(
    connection: &mut AnyConnection,
    account_id: &str,
    payload: &str,
    now: i64,
) -> Result<u64, sqlx::Error> {
    let subscriptions = query("SELECT id FROM push_subscriptions WHERE account_id = $1")
        .bind(account_id)
        .fetch_all(&mut *connection)
        .await?;
    for row in &subscriptions {
        let subscription: String = row.try_get("id")?;
        query(
            "INSERT INTO outgoing_pushes (id, subscription_id, account_id, payload, created_at, \
             next_attempt_at) VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(subscription)
        .bind(account_id)
        .bind(payload)
        .bind(now)
        .execute(&mut *connection)
        .await?;
    }
    Ok(subscriptions.len() as u64)
}

impl Db {
    /// Stores the VAPID key pair unless one is stored already; then answers the stored one
    /// (private as stored, public).
    pub async fn push_key(
        &self,
        private_key: &str,
        public_key: &str,
        now: i64,
    ) -> Result<(String, String), StoreError> {
        self.single(async |connection| {
            query(
                "INSERT INTO push_keys (id, private_key, public_key, created_at) VALUES ('vapid', $1, $2, $3) \
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(private_key)
            .bind(public_key)
            .bind(now)
            .execute(connection)
            .await
        })
        .await?;
        let row = self
            .single(async |connection| {
                query("SELECT private_key, public_key FROM push_keys WHERE id = 'vapid'")
                    .fetch_one(connection)
                    .await
            })
            .await?;
        Ok((row.try_get("private_key")?, row.try_get("public_key")?))
    }

    /// Stores the VAPID private key anew (sealed where it was in the clear).
    pub async fn replace_push_key(&self, private_key: &str) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("UPDATE push_keys SET private_key = $1 WHERE id = 'vapid'")
                .bind(private_key)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }

    /// Stores a subscription, or brings one of the same endpoint up to date, unless the
    /// account has `most` already.
    pub async fn subscribe_push(
        &self,
        subscription: &SubscriptionRow,
        most: usize,
    ) -> Result<Subscribed, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            self.lock_row(&mut transaction, Owner::Account, &subscription.account_id)
                .await?;
            let existing = query("SELECT id FROM push_subscriptions WHERE account_id = $1 AND endpoint = $2")
                .bind(&subscription.account_id)
                .bind(&subscription.endpoint)
                .fetch_optional(&mut *transaction)
                .await?;
            if let Some(existing) = existing {
                let id: String = existing.try_get("id")?;
                query("UPDATE push_subscriptions SET name = $2, p256dh = $3, auth = $4 WHERE id = $1")
                    .bind(&id)
                    .bind(&subscription.name)
                    .bind(&subscription.p256dh)
                    .bind(&subscription.auth)
                    .execute(&mut *transaction)
                    .await?;
                transaction.commit().await?;
                return Ok::<_, StoreError>(Subscribed::Updated(id));
            }
            let count = Db::count_owned(&mut transaction, Owner::Account, "push_subscriptions", &subscription.account_id).await?;
            if count >= most as i64 {
                return Ok(Subscribed::TooMany);
            }
            query(
                "INSERT INTO push_subscriptions (id, account_id, name, endpoint, p256dh, auth, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&subscription.id)
            .bind(&subscription.account_id)
            .bind(&subscription.name)
            .bind(&subscription.endpoint)
            .bind(&subscription.p256dh)
            .bind(&subscription.auth)
            .bind(subscription.created_at)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok(Subscribed::Created(subscription.id.clone()))
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The account's subscriptions, oldest first.
    pub async fn push_subscriptions(
        &self,
        account_id: &str,
    ) -> Result<Vec<SubscriptionRow>, StoreError> {
        let sql = format!(
            "SELECT {SUBSCRIPTION_COLUMNS} FROM push_subscriptions WHERE account_id = $1 ORDER BY created_at, id"
        );
        let rows = self
            .read(async |connection| query(&sql).bind(account_id).fetch_all(connection).await)
            .await?;
        Ok(rows
            .iter()
            .map(subscription_from_row)
            .collect::<Result<_, _>>()?)
    }

    /// Deletes one of the account's subscriptions (and its unsent messages); whether it existed.
    pub async fn unsubscribe_push(&self, account_id: &str, id: &str) -> Result<bool, StoreError> {
        let deleted = self
            .single(async |connection| {
                query("DELETE FROM push_subscriptions WHERE account_id = $1 AND id = $2")
                    .bind(account_id)
                    .bind(id)
                    .execute(connection)
                    .await
            })
            .await?;
        Ok(deleted.rows_affected() > 0)
    }

    /// Claims, until `lease_until`, up to `limit` push messages due at `now`.
    pub async fn claim_pushes(
        &self,
        now: i64,
        lease_until: i64,
        limit: i64,
    ) -> Result<Vec<OutgoingPush>, StoreError> {
        let claim = Claim {
            table: "outgoing_pushes",
            lease: "lease_until",
            due: "next_attempt_at <= $1",
            order: "next_attempt_at",
            returning: "id, subscription_id, payload, created_at, attempts",
        };
        let claimed = self.claim_rows(claim, now, lease_until, limit).await?;
        let mut pushes = Vec::with_capacity(claimed.len());
        for row in &claimed {
            let subscription_id: String = row.try_get("subscription_id")?;
            let sql =
                format!("SELECT {SUBSCRIPTION_COLUMNS} FROM push_subscriptions WHERE id = $1");
            let Some(subscription) = self
                .read(async |connection| {
                    query(&sql)
                        .bind(&subscription_id)
                        .fetch_optional(connection)
                        .await
                })
                .await?
            else {
                continue;
            };
            pushes.push(OutgoingPush {
                id: row.try_get("id")?,
                payload: row.try_get("payload")?,
                created_at: row.try_get("created_at")?,
                attempts: row.try_get("attempts")?,
                subscription: subscription_from_row(&subscription)?,
            });
        }
        Ok(pushes)
    }

    /// Extends this process's claims on these messages.
    pub async fn renew_pushes(&self, ids: &[String], lease_until: i64) -> Result<(), StoreError> {
        self.renew_leases("outgoing_pushes", "lease_until", ids, lease_until)
            .await
    }

    /// The push service took a message.
    pub async fn push_sent(&self, push: &OutgoingPush, now: i64) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query("UPDATE outgoing_pushes SET sent_at = $2, next_attempt_at = NULL, lease_until = NULL WHERE id = $1")
                .bind(&push.id)
                .bind(now)
                .execute(&mut *transaction)
                .await?;
            query("UPDATE push_subscriptions SET last_used_at = $2 WHERE id = $1")
                .bind(&push.subscription.id)
                .bind(now)
                .execute(&mut *transaction)
                .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// A failed attempt: retried at `retry_at`, or (`None`) given up.
    pub async fn push_failed(
        &self,
        id: &str,
        now: i64,
        retry_at: Option<i64>,
        error: &str,
    ) -> Result<(), StoreError> {
        self.single(async |connection| {
            query(
                "UPDATE outgoing_pushes SET attempts = attempts + 1, next_attempt_at = $3, \
                 failed_at = CASE WHEN $3 IS NULL THEN $2 ELSE NULL END, lease_until = NULL, \
                 last_error = $4 WHERE id = $1",
            )
            .bind(id)
            .bind(now)
            .bind(retry_at)
            .bind(error)
            .execute(connection)
            .await
        })
        .await?;
        Ok(())
    }

    /// The push service says a subscription is gone: it goes, with its messages.
    pub async fn push_subscription_gone(&self, id: &str) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("DELETE FROM push_subscriptions WHERE id = $1")
                .bind(id)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }

    /// Forgets messages sent or given up before `before`.
    pub async fn forget_pushes(&self, before: i64) -> Result<u64, StoreError> {
        let deleted = self
            .single(async |connection| {
                query(
                    "DELETE FROM outgoing_pushes WHERE next_attempt_at IS NULL AND created_at < $1",
                )
                .bind(before)
                .execute(connection)
                .await
            })
            .await?;
        Ok(deleted.rows_affected())
    }
}
