//! The `personal_tokens` table: long-lived tokens for bots and integrations (see migration
//! 0007). Only a token's hash is stored.

use sqlx::Row;

use super::{Db, Owner, StoreError};
use crate::store::query;

/// A stored personal access token.
#[derive(Clone, Debug)]
pub struct PersonalToken {
    /// UUID.
    pub id: String,
    /// Whose it is.
    pub account_id: String,
    /// Its owner's name for it.
    pub name: String,
    /// Hex SHA-256 of the token.
    pub token_hash: String,
    /// Its scopes, space-separated.
    pub scopes: String,
    /// Unix seconds.
    pub created_at: i64,
    /// When it stops working (Unix seconds); `None`: when revoked.
    pub expires_at: Option<i64>,
    /// When it was last used (to the minute).
    pub last_used_at: Option<i64>,
}

const COLUMNS: &str =
    "id, account_id, name, token_hash, scopes, created_at, expires_at, last_used_at";

fn from_row(row: &sqlx::any::AnyRow) -> Result<PersonalToken, sqlx::Error> {
    Ok(PersonalToken {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        name: row.try_get("name")?,
        token_hash: row.try_get("token_hash")?,
        scopes: row.try_get("scopes")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        last_used_at: row.try_get("last_used_at")?,
    })
}

impl Db {
    /// Stores a new token unless its account has `most` tokens already (`false`: nothing was
    /// stored; see [`Db::begin_capped`]).
    pub async fn insert_personal_token(
        &self,
        token: &PersonalToken,
        most: usize,
    ) -> Result<bool, StoreError> {
        self.timed(async {
            let capped =
                self.begin_capped(Owner::Account, &token.account_id, "personal_tokens", most);
            let Some(mut transaction) = capped.await? else {
                return Ok(false);
            };
            query(&format!(
                "INSERT INTO personal_tokens ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
            ))
            .bind(&token.id)
            .bind(&token.account_id)
            .bind(&token.name)
            .bind(&token.token_hash)
            .bind(&token.scopes)
            .bind(token.created_at)
            .bind(token.expires_at)
            .bind(token.last_used_at)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(true)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The token with this hash.
    pub async fn personal_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<PersonalToken>, StoreError> {
        let row = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {COLUMNS} FROM personal_tokens WHERE token_hash = $1"
                ))
                .bind(token_hash)
                .fetch_optional(connection)
                .await
            })
            .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// An account's tokens, newest first.
    pub async fn personal_tokens_of(
        &self,
        account_id: &str,
    ) -> Result<Vec<PersonalToken>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {COLUMNS} FROM personal_tokens WHERE account_id = $1 \
                     ORDER BY created_at DESC, id"
                ))
                .bind(account_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
    }

    /// Deletes one of an account's tokens; whether it existed.
    pub async fn delete_personal_token(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<bool, StoreError> {
        let deleted = self
            .single(async |connection| {
                query("DELETE FROM personal_tokens WHERE account_id = $1 AND id = $2")
                    .bind(account_id)
                    .bind(id)
                    .execute(connection)
                    .await
            })
            .await
            .map_err(StoreError::of_write)?;
        Ok(deleted.rows_affected() == 1)
    }

    /// Records that a token was used now.
    pub async fn touch_personal_token(&self, id: &str, now: i64) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("UPDATE personal_tokens SET last_used_at = $2 WHERE id = $1")
                .bind(id)
                .bind(now)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }
}
