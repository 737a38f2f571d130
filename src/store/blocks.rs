//! The `account_blocks` table (migration 0024): who blocks whom, as spans of time. A span is in
//! force while its `lifted_at` is NULL; lifted spans are kept so that talk written during one
//! stays hidden from the blocker ([`Db::block_spans`]).

use sqlx::Row;

use super::{Db, Owner, StoreError, query};
use crate::rules::Seat;

/// What became of a block.
#[derive(Debug, PartialEq, Eq)]
pub enum Blocked {
    /// In force from now.
    Now,
    /// In force already, since this time: nothing was written.
    Before(i64),
    /// The blocker blocks as many accounts as it may: nothing was written.
    Full,
}

/// A block in force, as its blocker lists it.
#[derive(Debug, PartialEq, Eq)]
pub struct BlockRow {
    /// The blocked account's username.
    pub username: String,
    /// Since when (Unix seconds).
    pub blocked_at: i64,
}

/// One span of a block of the account at a seat of a match: it was blocked from `from` until
/// `until` (`None`: still).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSpan {
    /// The blocked account's seat.
    pub seat: Seat,
    /// When the span began (Unix seconds).
    pub from: i64,
    /// When it was lifted, if it was.
    pub until: Option<i64>,
}

impl BlockSpan {
    /// Whether the span covers the time `at` (a span begun and lifted in one second covers
    /// that second).
    pub fn covers(&self, at: i64) -> bool {
        self.from <= at && self.until.is_none_or(|until| at <= until)
    }
}

/// The most lifted spans kept per blocker: past it, the oldest are forgotten (and talk written
/// during them shows again).
const MOST_LIFTED_SPANS: i64 = 1_000;

impl Db {
    /// Blocks `blocked_id` for `blocker_id` from `now`, unless it is blocked already or the
    /// blocker has `most` blocks in force. The count and the insert are one step under the
    /// blocker's lock.
    pub async fn block(
        &self,
        blocker_id: &str,
        blocked_id: &str,
        most: i64,
        now: i64,
    ) -> Result<Blocked, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            self.lock_row(&mut transaction, Owner::Account, blocker_id)
                .await?;
            let in_force = query(
                "SELECT blocked_at FROM account_blocks \
                 WHERE blocker_id = $1 AND blocked_id = $2 AND lifted_at IS NULL",
            )
            .bind(blocker_id)
            .bind(blocked_id)
            .fetch_optional(&mut *transaction)
            .await?;
            if let Some(row) = in_force {
                return Ok(Blocked::Before(row.try_get("blocked_at")?));
            }
            let count: i64 = query(
                "SELECT COUNT(*) AS n FROM account_blocks \
                 WHERE blocker_id = $1 AND lifted_at IS NULL",
            )
            .bind(blocker_id)
            .fetch_one(&mut *transaction)
            .await?
            .try_get("n")?;
            if count >= most {
                return Ok(Blocked::Full);
            }
            // A span lifted this very second is taken up again rather than begun anew: a new
            // one would have the same key.
            let resumed = query(
                "UPDATE account_blocks SET lifted_at = NULL \
                 WHERE blocker_id = $1 AND blocked_id = $2 AND lifted_at >= $3",
            )
            .bind(blocker_id)
            .bind(blocked_id)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            if resumed.rows_affected() == 0 {
                query(
                    "INSERT INTO account_blocks (blocker_id, blocked_id, blocked_at) \
                     VALUES ($1, $2, $3)",
                )
                .bind(blocker_id)
                .bind(blocked_id)
                .bind(now)
                .execute(&mut *transaction)
                .await?;
            }
            // A blocked account follows the blocker no more.
            query("DELETE FROM follows WHERE follower_id = $1 AND followed_id = $2")
                .bind(blocked_id)
                .bind(blocker_id)
                .execute(&mut *transaction)
                .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(Blocked::Now)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Lifts `blocker_id`'s block of `blocked_id` at `now`; `false`: there was none in force.
    /// Past [`MOST_LIFTED_SPANS`] lifted spans, the blocker's oldest are forgotten.
    pub async fn unblock(
        &self,
        blocker_id: &str,
        blocked_id: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let lifted = query(
                "UPDATE account_blocks SET lifted_at = $3 \
                 WHERE blocker_id = $1 AND blocked_id = $2 AND lifted_at IS NULL",
            )
            .bind(blocker_id)
            .bind(blocked_id)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            if lifted.rows_affected() == 0 {
                return Ok(false);
            }
            query(
                "DELETE FROM account_blocks WHERE blocker_id = $1 AND lifted_at IS NOT NULL \
                 AND blocked_at <= (SELECT blocked_at FROM account_blocks \
                     WHERE blocker_id = $1 AND lifted_at IS NOT NULL \
                     ORDER BY blocked_at DESC LIMIT 1 OFFSET $2)",
            )
            .bind(blocker_id)
            .bind(MOST_LIFTED_SPANS)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(true)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The blocks `blocker_id` holds in force, by username.
    pub async fn blocks_of(&self, blocker_id: &str) -> Result<Vec<BlockRow>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT a.username, b.blocked_at FROM account_blocks b \
                     JOIN accounts a ON a.id = b.blocked_id \
                     WHERE b.blocker_id = $1 AND b.lifted_at IS NULL ORDER BY a.username_key",
                )
                .bind(blocker_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter()
            .map(|row| {
                Ok(BlockRow {
                    username: row.try_get("username")?,
                    blocked_at: row.try_get("blocked_at")?,
                })
            })
            .collect()
    }

    /// Whether `blocker_id` blocks `blocked_id` now.
    pub async fn blocks(&self, blocker_id: &str, blocked_id: &str) -> Result<bool, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT 1 AS one FROM account_blocks \
                     WHERE blocker_id = $1 AND blocked_id = $2 AND lifted_at IS NULL",
                )
                .bind(blocker_id)
                .bind(blocked_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        Ok(row.is_some())
    }

    /// Whether the creator of match `match_id` blocks `account_id` now.
    pub async fn creator_blocks(
        &self,
        match_id: &str,
        account_id: &str,
    ) -> Result<bool, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT 1 AS one FROM account_blocks b \
                     JOIN matches m ON m.created_by = b.blocker_id \
                     WHERE m.id = $1 AND b.blocked_id = $2 AND b.lifted_at IS NULL",
                )
                .bind(match_id)
                .bind(account_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        Ok(row.is_some())
    }

    /// The blocks in force between accounts that hold open seeks, as (blocker, blocked): the
    /// pairing round keeps each such pair apart.
    pub async fn blocks_among_seekers(&self) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT DISTINCT b.blocker_id, b.blocked_id FROM account_blocks b \
                     JOIN seeks one ON one.account_id = b.blocker_id AND one.status = 'open' \
                     JOIN seeks other ON other.account_id = b.blocked_id \
                         AND other.status = 'open' \
                     WHERE b.lifted_at IS NULL",
                )
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("blocker_id")?, row.try_get("blocked_id")?)))
            .collect()
    }

    /// Every span, in force or lifted, in which `blocker_id` blocked one of the accounts
    /// seated at `match_id`, by seat: what the feed hides from the blocker.
    pub async fn block_spans(
        &self,
        blocker_id: &str,
        match_id: &str,
    ) -> Result<Vec<BlockSpan>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT s.seat, b.blocked_at, b.lifted_at FROM account_blocks b \
                     JOIN match_seats s ON s.account_id = b.blocked_id \
                     WHERE b.blocker_id = $1 AND s.match_id = $2",
                )
                .bind(blocker_id)
                .bind(match_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter()
            .map(|row| {
                let seat: i64 = row.try_get("seat")?;
                Ok(BlockSpan {
                    seat: Seat::try_from(seat)
                        .map_err(|_| StoreError::Corrupt(format!("seat {seat} out of range")))?,
                    from: row.try_get("blocked_at")?,
                    until: row.try_get("lifted_at")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_covers_its_ends() {
        let lifted = BlockSpan {
            seat: 1,
            from: 10,
            until: Some(20),
        };
        assert!(!lifted.covers(9));
        assert!(lifted.covers(10) && lifted.covers(20));
        assert!(!lifted.covers(21));
        let in_force = BlockSpan {
            until: None,
            ..lifted
        };
        assert!(in_force.covers(1_000_000));
    }
}
