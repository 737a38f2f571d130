//! The newest version of many topics at once, for the notifier's catch-up (`live.rs`): the
//! versions of matches and the newest notification of accounts that readers wait on, a few
//! hundred ids per query.

use sqlx::Row;

use super::{Db, StoreError, query};

impl Db {
    /// The version of each of these matches that exists, as `(id, version)`.
    pub async fn match_versions(&self, ids: &[String]) -> Result<Vec<(String, i64)>, StoreError> {
        self.value_per_id("SELECT id, version FROM matches WHERE id IN", ids)
            .await
    }

    /// The `seq` of the newest notification of each of these accounts that exists.
    pub async fn notification_seqs(
        &self,
        ids: &[String],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        self.value_per_id("SELECT id, notification_seq FROM accounts WHERE id IN", ids)
            .await
    }

    /// `select` (`… WHERE id IN`) over the ids, as `(id, value)`.
    async fn value_per_id(
        &self,
        select: &str,
        ids: &[String],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders: Vec<String> = (1..=ids.len()).map(|index| format!("${index}")).collect();
        let sql = format!("{select} ({})", placeholders.join(", "));
        let mut query = query(&sql);
        for id in ids {
            query = query.bind(id);
        }
        let rows = self
            .single(async |connection| query.fetch_all(connection).await)
            .await?;
        Ok(rows
            .iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect::<Result<_, sqlx::Error>>()?)
    }
}
