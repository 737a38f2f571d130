//! The `accounts` table.

use sqlx::Row;

use super::{Db, StoreError};
use crate::store::query;

/// A stored account.
#[derive(Clone, Debug)]
pub struct Account {
    /// UUID.
    pub id: String,
    /// As registered.
    pub username: String,
    /// argon2id PHC string.
    pub password_hash: String,
    /// Unix seconds.
    pub created_at: i64,
}

fn from_row(row: &sqlx::any::AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        id: row.try_get("id")?,
        username: row.try_get("username")?,
        password_hash: row.try_get("password_hash")?,
        created_at: row.try_get("created_at")?,
    })
}

/// The name a deleted account keeps in the matches it played (no registration can take it).
pub const DELETED_USERNAME: &str = "[deleted]";

impl Db {
    /// Inserts an account; [`StoreError::Conflict`] when the username is taken (any case).
    pub async fn insert_account(&self, account: &Account) -> Result<(), StoreError> {
        self.single(async |connection| query(
            "INSERT INTO accounts (id, username, username_key, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&account.id)
        .bind(&account.username)
        .bind(account.username.to_lowercase())
        .bind(&account.password_hash)
        .bind(account.created_at)
        .execute(connection).await)
        .await?;
        Ok(())
    }

    /// The person's account with this username, compared without regard to case. A deleted
    /// account or a bot account (migration 0008; ids `bot:n`) is nobody's: no login, no
    /// invitation and no player page reaches one.
    pub async fn account_by_username(&self, username: &str) -> Result<Option<Account>, StoreError> {
        let row = self
            .single(async |connection| {
                query(
                    "SELECT id, username, password_hash, created_at FROM accounts \
             WHERE username_key = $1 AND deleted_at IS NULL AND id NOT LIKE 'bot:%'",
                )
                .bind(username.to_lowercase())
                .fetch_optional(connection)
                .await
            })
            .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// The living account with this id (not a deleted one).
    pub async fn account_by_id(&self, id: &str) -> Result<Option<Account>, StoreError> {
        let row = self.single(async |connection| query(
                    "SELECT id, username, password_hash, created_at FROM accounts WHERE id = $1 AND deleted_at IS NULL",
                )
                .bind(id)
                .fetch_optional(connection).await)
            .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// Deletes an account, leaving a tombstone (see migration 0005) named
    /// [`DELETED_USERNAME`] so its matches keep their history, and everything else it had; in
    /// one transaction.
    pub async fn tombstone_account(&self, id: &str, now: i64) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query(
                "UPDATE accounts SET username = $3, username_key = $3 || ':' || id, \
                 password_hash = '', deleted_at = $2, email = NULL, email_verified_at = NULL, \
                 email_stopped_at = NULL, email_stopped_reason = NULL \
                 WHERE id = $1 AND deleted_at IS NULL",
            )
            .bind(id)
            .bind(now)
            .bind(DELETED_USERNAME)
            .execute(&mut *transaction)
            .await?;
            // Its tokens and stream tickets, webhooks (their deliveries with them),
            // notifications, invitations, talk mutes, notes and seeks go too; so do its address's tokens, its
            // unsent letters and its alert settings and queues.
            for table in [
                "stream_tickets",
                "refresh_tokens",
                "personal_tokens",
                "webhooks",
                "notifications",
                "match_invitations",
                "talk_mutes",
                "match_notes",
                "seeks",
                "email_tokens",
                "outgoing_mail",
                "alert_settings",
                "pending_alerts",
                "alert_queues",
                "unsubscribe_tokens",
                "outgoing_pushes",
                "push_subscriptions",
            ] {
                query(&format!("DELETE FROM {table} WHERE account_id = $1"))
                    .bind(id)
                    .execute(&mut *transaction)
                    .await?;
            }
            // The reports it made go; those about it stay with the operators.
            query("DELETE FROM reports WHERE reporter_id = $1")
                .bind(id)
                .execute(&mut *transaction)
                .await?;
            // Its blocks and follows go both ways: a tombstone neither blocks nor is blocked,
            // neither follows nor is followed.
            for statement in [
                "DELETE FROM account_blocks WHERE blocker_id = $1 OR blocked_id = $1",
                "DELETE FROM follows WHERE follower_id = $1 OR followed_id = $1",
            ] {
                query(statement).bind(id).execute(&mut *transaction).await?;
            }
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }
}
