//! The `refresh_tokens` and `signing_keys` tables.

use sqlx::Row;

use super::{Db, StoreError};
use crate::store::query;

/// A stored refresh token (its hash and family).
#[derive(Clone, Debug)]
pub struct RefreshToken {
    /// Hex SHA-256 of the opaque token.
    pub token_hash: String,
    /// Whose it is.
    pub account_id: String,
    /// The login it descends from.
    pub family_id: String,
    /// Unix seconds.
    pub expires_at: i64,
    /// Set once rotated.
    pub used_at: Option<i64>,
    /// Set once its family was revoked.
    pub revoked_at: Option<i64>,
}

/// What happened to a refresh token presented for rotation.
#[derive(Debug)]
pub enum Rotation {
    /// Rotated: the new token is stored.
    Rotated,
    /// Unknown or expired.
    Invalid,
    /// Already used or revoked: the family is now revoked.
    Reused,
}

impl Db {
    /// Stores a new refresh token.
    pub async fn insert_refresh_token(
        &self,
        token: &RefreshToken,
        now: i64,
    ) -> Result<(), StoreError> {
        self.single(async |connection| insert_token(connection, token, now).await)
            .await
    }

    /// The stored token with this hash.
    pub async fn refresh_token(
        &self,
        token_hash: &str,
    ) -> Result<Option<RefreshToken>, StoreError> {
        let row = self.read(async |connection| query(
            "SELECT token_hash, account_id, family_id, expires_at, used_at, revoked_at FROM refresh_tokens WHERE token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(connection).await)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(RefreshToken {
            token_hash: row.try_get("token_hash")?,
            account_id: row.try_get("account_id")?,
            family_id: row.try_get("family_id")?,
            expires_at: row.try_get("expires_at")?,
            used_at: row.try_get("used_at")?,
            revoked_at: row.try_get("revoked_at")?,
        }))
    }

    /// Marks `old` used and stores `next` in one transaction. If `old` was already used or
    /// revoked (a replay, or a race lost to another rotation), its whole family is revoked.
    pub async fn rotate_refresh_token(
        &self,
        old: &RefreshToken,
        next: &RefreshToken,
        now: i64,
    ) -> Result<Rotation, StoreError> {
        if old.expires_at <= now {
            return Ok(Rotation::Invalid);
        }
        let rotated = self
            .timed(async {
                let mut transaction = self.begin_write().await?;
                let marked = query(
                    "UPDATE refresh_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND revoked_at IS NULL",
                )
                .bind(now)
                .bind(&old.token_hash)
                .execute(&mut *transaction)
                .await?;
                if marked.rows_affected() != 1 {
                    transaction.rollback().await?;
                    return Ok::<_, StoreError>(false);
                }
                insert_token(&mut *transaction, next, now).await?;
                transaction.commit().await?;
                Ok(true)
            })
            .await?;
        if !rotated {
            self.revoke_family(&old.family_id, now).await?;
            return Ok(Rotation::Reused);
        }
        Ok(Rotation::Rotated)
    }

    /// Revokes every token of a family.
    pub async fn revoke_family(&self, family_id: &str, now: i64) -> Result<(), StoreError> {
        self.single(async |connection| {
            query(
            "UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(family_id)
        .execute(connection).await
        })
        .await?;
        Ok(())
    }

    /// Stores a signing key unless one with this `kid` exists (several processes may race at
    /// first start; all of them then read the same key back).
    pub async fn insert_signing_key_if_absent(
        &self,
        kid: &str,
        secret: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        self.single(async |connection| query("INSERT INTO signing_keys (kid, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING")
            .bind(kid)
            .bind(secret)
            .bind(now)
            .execute(connection).await)
            .await?;
        Ok(())
    }

    /// Stores a signing key anew (sealed where it was in the clear).
    pub async fn replace_signing_key(&self, kid: &str, secret: &str) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("UPDATE signing_keys SET secret = $2 WHERE kid = $1")
                .bind(kid)
                .bind(secret)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }

    /// Every signing key, newest first: `(kid, stored form)`.
    pub async fn signing_keys(&self) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self
            .read(async |connection| {
                query("SELECT kid, secret FROM signing_keys ORDER BY created_at DESC, kid DESC")
                    .fetch_all(connection)
                    .await
            })
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("kid")?, row.try_get("secret")?)))
            .collect::<Result<Vec<_>, sqlx::Error>>()
            .map_err(StoreError::from)
    }
}

async fn insert_token<'e, E>(executor: E, token: &RefreshToken, now: i64) -> Result<(), StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    query(
        "INSERT INTO refresh_tokens (token_hash, account_id, family_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&token.token_hash)
    .bind(&token.account_id)
    .bind(&token.family_id)
    .bind(now)
    .bind(token.expires_at)
    .execute(executor)
    .await?;
    Ok(())
}
