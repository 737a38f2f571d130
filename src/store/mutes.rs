//! The `talk_mutes` table (migration 0024): the matches whose talk a reader muted for itself.

use sqlx::Row;

use super::{Db, StoreError, query};

impl Db {
    /// Mutes the talk of `match_id` for `account_id` from `now`; answers since when it is muted
    /// (the first time, for a mute in force already).
    pub async fn mute_talk(
        &self,
        match_id: &str,
        account_id: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        self.single(async |connection| {
            query(
                "INSERT INTO talk_mutes (match_id, account_id, muted_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (match_id, account_id) DO NOTHING",
            )
            .bind(match_id)
            .bind(account_id)
            .bind(now)
            .execute(&mut *connection)
            .await?;
            query("SELECT muted_at FROM talk_mutes WHERE match_id = $1 AND account_id = $2")
                .bind(match_id)
                .bind(account_id)
                .fetch_one(&mut *connection)
                .await?
                .try_get::<i64, _>("muted_at")
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Lets the talk of `match_id` reach `account_id` again (nothing if it was not muted).
    pub async fn unmute_talk(&self, match_id: &str, account_id: &str) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("DELETE FROM talk_mutes WHERE match_id = $1 AND account_id = $2")
                .bind(match_id)
                .bind(account_id)
                .execute(connection)
                .await
        })
        .await
        .map_err(StoreError::of_write)?;
        Ok(())
    }

    /// Since when `account_id` muted the talk of `match_id`, if it did.
    pub async fn talk_muted(
        &self,
        match_id: &str,
        account_id: &str,
    ) -> Result<Option<i64>, StoreError> {
        let row = self
            .read(async |connection| {
                query("SELECT muted_at FROM talk_mutes WHERE match_id = $1 AND account_id = $2")
                    .bind(match_id)
                    .bind(account_id)
                    .fetch_optional(connection)
                    .await
            })
            .await?;
        Ok(row.map(|row| row.try_get("muted_at")).transpose()?)
    }
}
