//! What an account wants to be told away from the table (`alert_settings`), the alerts waiting
//! for a channel (`pending_alerts`) in one queue per account and channel (`alert_queues`), the
//! one-click unsubscribe links (`unsubscribe_tokens`), and whether the owner is watching live
//! (`accounts.watching_until`); migration 0017.
//!
//! The relay writes an alert for each notification an account wants by a channel, unless the
//! account is watching ([`queue_alerts`], in the relay's transaction); a composer claims a due
//! queue with a lease, turns its alerts into one message, and deletes them in the message's
//! transaction, so each alert is sent in exactly one message.

use sqlx::{AnyConnection, Row};

use super::mail::queue_letter;
use super::push::queue_pushes;
use super::work::Claim;
use super::{Db, StoreError};
use crate::store::mail::Letter;
use crate::store::query;

/// An account's alert settings as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlertSettingsRow {
    /// Space-separated notification kinds wanted by email.
    pub email_kinds: String,
    /// The same by push.
    pub push_kinds: String,
    /// `each`, `hourly`, `daily`.
    pub digest: String,
    /// Daily: the local hour.
    pub digest_hour: i64,
    /// Minutes after local midnight.
    pub quiet_from: Option<i64>,
    /// Minutes after local midnight.
    pub quiet_until: Option<i64>,
    /// IANA.
    pub time_zone: String,
}

impl Default for AlertSettingsRow {
    fn default() -> AlertSettingsRow {
        AlertSettingsRow {
            email_kinds: String::new(),
            push_kinds: String::new(),
            digest: "each".to_owned(),
            digest_hour: 8,
            quiet_from: None,
            quiet_until: None,
            time_zone: "UTC".to_owned(),
        }
    }
}

/// A claimed queue.
#[derive(Clone, Debug)]
pub struct AlertQueue {
    /// `account:channel`.
    pub id: String,
    /// Whose.
    pub account_id: String,
    /// `email` or `push`.
    pub channel: String,
    /// When its last message went.
    pub last_sent_at: Option<i64>,
}

/// An alert waiting in a queue.
#[derive(Clone, Debug)]
pub struct PendingAlert {
    /// Its place in the queue.
    pub id: i64,
    /// The notification's public id.
    pub message_id: String,
    /// Its kind.
    pub kind: String,
    /// Its fields (JSON).
    pub data: String,
    /// When it was written (Unix seconds).
    pub created_at: i64,
}

/// What a composer needs about a queue's account.
#[derive(Clone, Debug)]
pub struct Recipient {
    /// The username.
    pub username: String,
    /// Its settings.
    pub settings: AlertSettingsRow,
    /// Its address when verified and mail to it is not stopped.
    pub email: Option<String>,
    /// Until when it was last known to be watching live.
    pub watching_until: Option<i64>,
}

/// What a queue's alerts became.
#[derive(Clone, Copy, Debug)]
pub enum Composed<'a> {
    /// A letter, with the hash of its unsubscribe token and the kinds it turns off.
    Letter {
        /// The letter.
        letter: &'a Letter,
        /// The hash of its one-click unsubscribe token.
        token_hash: &'a str,
        /// Space-separated: the kinds that token turns off.
        kinds: &'a str,
    },
    /// A push message to each of the account's subscriptions.
    Push {
        /// Its JSON.
        payload: &'a str,
    },
}

/// How long an account counts as watching after its stream was last seen open.
pub const WATCHING_SECONDS: i64 = 60;

fn settings_from_row(row: &sqlx::any::AnyRow) -> Result<AlertSettingsRow, sqlx::Error> {
    Ok(AlertSettingsRow {
        email_kinds: row.try_get("email_kinds")?,
        push_kinds: row.try_get("push_kinds")?,
        digest: row.try_get("digest")?,
        digest_hour: row.try_get("digest_hour")?,
        quiet_from: row.try_get("quiet_from")?,
        quiet_until: row.try_get("quiet_until")?,
        time_zone: row.try_get("time_zone")?,
    })
}

/// Writes the alerts the notifications `ids` cause (in the relay's transaction): by email for
/// accounts that want the kind, have a verified address mail to which is not stopped, and are
/// not watching at `now`; and marks their queues to be looked at again. Returns how many. An
/// alert is as old as its notification (a digest's hour counts from what happened, however
/// soon the relay came to it).
pub(super) async fn queue_alerts(
    connection: &mut AnyConnection,
    ids: &[i64],
    now: i64,
) -> Result<u64, sqlx::Error> {
    let list: Vec<String> = (0..ids.len())
        .map(|index| format!("${}", index + 2))
        .collect();
    let list = list.join(", ");
    let sql = format!(
        "INSERT INTO pending_alerts (account_id, channel, message_id, kind, data, created_at) \
         SELECT n.account_id, 'email', n.message_id, n.kind, n.data, n.created_at FROM notifications n \
         JOIN alert_settings s ON s.account_id = n.account_id \
         JOIN accounts a ON a.id = n.account_id \
         WHERE n.id IN ({list}) \
         AND (' ' || s.email_kinds || ' ') LIKE ('% ' || n.kind || ' %') \
         AND a.email_verified_at IS NOT NULL AND a.email_stopped_at IS NULL \
         AND (a.watching_until IS NULL OR a.watching_until < $1) \
         ORDER BY n.id"
    );
    let mut statement = query(&sql).bind(now);
    for id in ids {
        statement = statement.bind(*id);
    }
    let mut written = statement.execute(&mut *connection).await?.rows_affected();
    let sql = format!(
        "INSERT INTO pending_alerts (account_id, channel, message_id, kind, data, created_at) \
         SELECT n.account_id, 'push', n.message_id, n.kind, n.data, n.created_at FROM notifications n \
         JOIN alert_settings s ON s.account_id = n.account_id \
         JOIN accounts a ON a.id = n.account_id \
         WHERE n.id IN ({list}) \
         AND (' ' || s.push_kinds || ' ') LIKE ('% ' || n.kind || ' %') \
         AND EXISTS (SELECT 1 FROM push_subscriptions ps WHERE ps.account_id = n.account_id) \
         AND (a.watching_until IS NULL OR a.watching_until < $1) \
         ORDER BY n.id"
    );
    let mut statement = query(&sql).bind(now);
    for id in ids {
        statement = statement.bind(*id);
    }
    written += statement.execute(&mut *connection).await?.rows_affected();
    if written > 0 {
        // The alerts just written: a notification is fanned out once.
        let list: Vec<String> = (1..=ids.len()).map(|index| format!("${index}")).collect();
        let sql = format!(
            "INSERT INTO alert_queues (id, account_id, channel, due_at, waiting) \
             SELECT DISTINCT p.account_id || ':' || p.channel, p.account_id, p.channel, \
             CAST(NULL AS BIGINT), 1 \
             FROM pending_alerts p JOIN notifications n ON n.message_id = p.message_id \
             WHERE n.id IN ({}) \
             ON CONFLICT (id) DO UPDATE SET due_at = NULL, waiting = 1",
            list.join(", ")
        );
        let mut statement = query(&sql);
        for id in ids {
            statement = statement.bind(*id);
        }
        statement.execute(&mut *connection).await?;
    }
    Ok(written)
}

impl Db {
    /// The account's alert settings (the defaults when it never set any).
    pub async fn alert_settings(&self, account_id: &str) -> Result<AlertSettingsRow, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT email_kinds, push_kinds, digest, digest_hour, quiet_from, quiet_until, \
                     time_zone FROM alert_settings WHERE account_id = $1",
                )
                .bind(account_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        Ok(match row {
            Some(row) => settings_from_row(&row)?,
            None => AlertSettingsRow::default(),
        })
    }

    /// Stores the account's alert settings; its queues are worked out again (a new digest or
    /// zone moves when they are due), and waiting alerts of kinds it no longer wants go.
    pub async fn put_alert_settings(
        &self,
        account_id: &str,
        settings: &AlertSettingsRow,
        now: i64,
    ) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query(
                "INSERT INTO alert_settings (account_id, email_kinds, push_kinds, digest, digest_hour, \
                 quiet_from, quiet_until, time_zone, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (account_id) DO UPDATE SET email_kinds = excluded.email_kinds, \
                 push_kinds = excluded.push_kinds, digest = excluded.digest, \
                 digest_hour = excluded.digest_hour, quiet_from = excluded.quiet_from, \
                 quiet_until = excluded.quiet_until, time_zone = excluded.time_zone, \
                 updated_at = excluded.updated_at",
            )
            .bind(account_id)
            .bind(&settings.email_kinds)
            .bind(&settings.push_kinds)
            .bind(&settings.digest)
            .bind(settings.digest_hour)
            .bind(settings.quiet_from)
            .bind(settings.quiet_until)
            .bind(&settings.time_zone)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            query("UPDATE alert_queues SET due_at = NULL WHERE account_id = $1")
                .bind(account_id)
                .execute(&mut *transaction)
                .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Claims, until `lease_until`, up to `limit` queues with alerts waiting that are due at
    /// `now` or must be worked out again.
    pub async fn claim_alert_queues(
        &self,
        now: i64,
        lease_until: i64,
        limit: i64,
    ) -> Result<Vec<AlertQueue>, StoreError> {
        let claim = Claim {
            table: "alert_queues",
            lease: "lease_until",
            due: "waiting = 1 AND (due_at IS NULL OR due_at <= $1)",
            order: "due_at",
            returning: "id, account_id, channel, last_sent_at",
        };
        let rows = self.claim_rows(claim, now, lease_until, limit).await?;
        rows.iter()
            .map(|row| {
                Ok(AlertQueue {
                    id: row.try_get("id")?,
                    account_id: row.try_get("account_id")?,
                    channel: row.try_get("channel")?,
                    last_sent_at: row.try_get("last_sent_at")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// Extends this process's claims on these queues.
    pub async fn renew_alert_queues(
        &self,
        ids: &[String],
        lease_until: i64,
    ) -> Result<(), StoreError> {
        self.renew_leases("alert_queues", "lease_until", ids, lease_until)
            .await
    }

    /// The queue's waiting alerts, oldest first, and what composing them needs of its account.
    pub async fn queued_alerts(
        &self,
        queue: &AlertQueue,
    ) -> Result<(Vec<PendingAlert>, Option<Recipient>), StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT id, message_id, kind, data, created_at FROM pending_alerts \
                     WHERE account_id = $1 AND channel = $2 ORDER BY id LIMIT 200",
                )
                .bind(&queue.account_id)
                .bind(&queue.channel)
                .fetch_all(connection)
                .await
            })
            .await?;
        let alerts = rows
            .iter()
            .map(|row| {
                Ok(PendingAlert {
                    id: row.try_get("id")?,
                    message_id: row.try_get("message_id")?,
                    kind: row.try_get("kind")?,
                    data: row.try_get("data")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        let row = self
            .read(async |connection| {
                query(
                    "SELECT a.username, a.email, a.email_verified_at, a.email_stopped_at, \
                     a.watching_until, s.email_kinds, s.push_kinds, s.digest, s.digest_hour, \
                     s.quiet_from, s.quiet_until, s.time_zone \
                     FROM accounts a JOIN alert_settings s ON s.account_id = a.id \
                     WHERE a.id = $1 AND a.deleted_at IS NULL",
                )
                .bind(&queue.account_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        let recipient = match row {
            Some(row) => {
                let verified: Option<i64> = row.try_get("email_verified_at")?;
                let stopped: Option<i64> = row.try_get("email_stopped_at")?;
                let email: Option<String> = row.try_get("email")?;
                Some(Recipient {
                    username: row.try_get("username")?,
                    settings: settings_from_row(&row)?,
                    email: email.filter(|_| verified.is_some() && stopped.is_none()),
                    watching_until: row.try_get("watching_until")?,
                })
            }
            None => None,
        };
        Ok((alerts, recipient))
    }

    /// Puts a queue back with its next due time (its alerts stay).
    pub async fn alert_queue_due(&self, id: &str, due_at: i64) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("UPDATE alert_queues SET due_at = $2, lease_until = NULL WHERE id = $1")
                .bind(id)
                .bind(due_at)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }

    /// In one transaction: deletes the queue's alerts up to `through` (sent as `composed`, or
    /// dropped when it is `None`), writes the letter with its unsubscribe token or the push
    /// messages, and releases the queue (still waiting if alerts came meanwhile).
    pub async fn alerts_sent(
        &self,
        queue: &AlertQueue,
        through: i64,
        composed: Option<Composed<'_>>,
        now: i64,
    ) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query("DELETE FROM pending_alerts WHERE account_id = $1 AND channel = $2 AND id <= $3")
                .bind(&queue.account_id)
                .bind(&queue.channel)
                .bind(through)
                .execute(&mut *transaction)
                .await?;
            if let Some(Composed::Push { payload }) = composed {
                queue_pushes(&mut transaction, &queue.account_id, payload, now).await?;
            }
            if let Some(Composed::Letter {
                letter,
                token_hash,
                kinds,
            }) = composed
            {
                queue_letter(&mut transaction, letter, now).await?;
                query(
                    "INSERT INTO unsubscribe_tokens (token_hash, account_id, kinds, created_at) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(token_hash)
                .bind(&queue.account_id)
                .bind(kinds)
                .bind(now)
                .execute(&mut *transaction)
                .await?;
            }
            let sent_at = if composed.is_some() { Some(now) } else { None };
            query(
                "UPDATE alert_queues SET lease_until = NULL, due_at = NULL, \
                 last_sent_at = COALESCE($2, last_sent_at), \
                 waiting = CASE WHEN EXISTS (SELECT 1 FROM pending_alerts p \
                   WHERE p.account_id = alert_queues.account_id AND p.channel = alert_queues.channel) \
                   THEN 1 ELSE 0 END \
                 WHERE id = $1",
            )
            .bind(&queue.id)
            .bind(sent_at)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Spends nothing (a link may be followed twice): turns the link's kinds off for email.
    /// `None` for an unknown link; else the kinds turned off.
    pub async fn unsubscribe(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Vec<String>>, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let Some(row) = query("SELECT account_id, kinds FROM unsubscribe_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(&mut *transaction)
                .await?
            else {
                return Ok::<_, StoreError>(None);
            };
            let account_id: String = row.try_get("account_id")?;
            let kinds: String = row.try_get("kinds")?;
            let off: Vec<String> = kinds.split_whitespace().map(str::to_owned).collect();
            let current: Option<String> = query("SELECT email_kinds FROM alert_settings WHERE account_id = $1")
                .bind(&account_id)
                .fetch_optional(&mut *transaction)
                .await?
                .map(|row| row.try_get("email_kinds"))
                .transpose()?;
            if let Some(current) = current {
                let kept: Vec<&str> = current
                    .split_whitespace()
                    .filter(|kind| !off.iter().any(|off| off == kind))
                    .collect();
                query("UPDATE alert_settings SET email_kinds = $2, updated_at = $3 WHERE account_id = $1")
                    .bind(&account_id)
                    .bind(kept.join(" "))
                    .bind(now)
                    .execute(&mut *transaction)
                    .await?;
            }
            transaction.commit().await?;
            Ok(Some(off))
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// These accounts are watching live until `until`.
    pub async fn watching(&self, account_ids: &[String], until: i64) -> Result<(), StoreError> {
        if account_ids.is_empty() {
            return Ok(());
        }
        let places: Vec<String> = (2..account_ids.len() + 2)
            .map(|place| format!("${place}"))
            .collect();
        let sql = format!(
            "UPDATE accounts SET watching_until = $1 WHERE id IN ({})",
            places.join(", ")
        );
        let mut statement = query(&sql).bind(until);
        for id in account_ids {
            statement = statement.bind(id);
        }
        self.single(async |connection| statement.execute(connection).await)
            .await?;
        Ok(())
    }
}
