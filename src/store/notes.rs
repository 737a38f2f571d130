//! The `match_notes` table (migration 0025): each player's private notes on a match.

use sqlx::Row;

use super::{Db, StoreError, query};

impl Db {
    /// Writes `account_id`'s notes on `match_id` (an empty text removes them).
    pub async fn put_notes(
        &self,
        match_id: &str,
        account_id: &str,
        text: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        self.single(async |connection| {
            if text.is_empty() {
                query("DELETE FROM match_notes WHERE match_id = $1 AND account_id = $2")
                    .bind(match_id)
                    .bind(account_id)
                    .execute(connection)
                    .await
            } else {
                query(
                    "INSERT INTO match_notes (match_id, account_id, text, updated_at) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (match_id, account_id) \
                     DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
                )
                .bind(match_id)
                .bind(account_id)
                .bind(text)
                .bind(now)
                .execute(connection)
                .await
            }
        })
        .await
        .map_err(StoreError::of_write)?;
        Ok(())
    }

    /// `account_id`'s notes on `match_id` and when they were written, if it has any.
    pub async fn notes(
        &self,
        match_id: &str,
        account_id: &str,
    ) -> Result<Option<(String, i64)>, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT text, updated_at FROM match_notes \
                     WHERE match_id = $1 AND account_id = $2",
                )
                .bind(match_id)
                .bind(account_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        row.map(|row| Ok((row.try_get("text")?, row.try_get("updated_at")?)))
            .transpose()
    }
}
