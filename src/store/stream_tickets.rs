//! The `stream_tickets` table: single-use tickets that open a stream (see migration 0009).
//! Only a ticket's hash is stored.

use sqlx::Row;

use super::{Db, StoreError};
use crate::store::query;

impl Db {
    /// Stores a ticket for `account_id`, minted by the personal token `token_id` if one, valid
    /// until `expires_at`, and forgets tickets that expired before `now` (nobody can use them
    /// any more). Deleting the token deletes its tickets (`ON DELETE CASCADE`).
    pub async fn insert_stream_ticket(
        &self,
        ticket_hash: &str,
        account_id: &str,
        token_id: Option<&str>,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("DELETE FROM stream_tickets WHERE expires_at <= $1")
                .bind(now)
                .execute(&mut *connection)
                .await?;
            query(
                "INSERT INTO stream_tickets (ticket_hash, account_id, token_id, expires_at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(ticket_hash)
            .bind(account_id)
            .bind(token_id)
            .bind(expires_at)
            .execute(&mut *connection)
            .await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Uses up a ticket: the account it was issued to, if it exists and has not expired by
    /// `now`. A ticket is gone once asked for, valid or not.
    pub async fn redeem_stream_ticket(
        &self,
        ticket_hash: &str,
        now: i64,
    ) -> Result<Option<String>, StoreError> {
        let row = self
            .single(async |connection| {
                query(
                    "DELETE FROM stream_tickets WHERE ticket_hash = $1 \
                     RETURNING account_id, expires_at",
                )
                .bind(ticket_hash)
                .fetch_optional(connection)
                .await
            })
            .await?;
        let Some(row) = row else { return Ok(None) };
        let expires_at: i64 = row.try_get("expires_at")?;
        Ok((expires_at > now)
            .then(|| row.try_get("account_id"))
            .transpose()?)
    }
}
