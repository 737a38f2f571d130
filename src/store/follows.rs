//! The `follows` table (migration 0028): which players each account follows.

use sqlx::Row;

use super::{Db, Owner, StoreError, query};

/// What became of a follow.
#[derive(Debug, PartialEq, Eq)]
pub enum Followed {
    /// Followed from now.
    Now,
    /// Followed already, since this time: nothing was written.
    Before(i64),
    /// The follower follows as many players as it may: nothing was written.
    Full,
    /// The player blocks the follower: nothing was written.
    Blocked,
}

/// A player followed, as its follower lists it.
#[derive(Debug, PartialEq, Eq)]
pub struct FollowRow {
    /// The player's username.
    pub username: String,
    /// Since when (Unix seconds).
    pub followed_at: i64,
}

impl Db {
    /// `follower_id` follows `followed_id` from `now`, unless it does already, follows `most`
    /// players, or is blocked by the player. The checks and the insert are one step under the
    /// follower's lock (a block removes the follow in its own transaction, `store/blocks.rs`).
    pub async fn follow(
        &self,
        follower_id: &str,
        followed_id: &str,
        most: i64,
        now: i64,
    ) -> Result<Followed, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            self.lock_row(&mut transaction, Owner::Account, follower_id)
                .await?;
            let blocked = query(
                "SELECT 1 AS one FROM account_blocks \
                 WHERE blocker_id = $1 AND blocked_id = $2 AND lifted_at IS NULL",
            )
            .bind(followed_id)
            .bind(follower_id)
            .fetch_optional(&mut *transaction)
            .await?;
            if blocked.is_some() {
                return Ok(Followed::Blocked);
            }
            let before = query(
                "SELECT followed_at FROM follows WHERE follower_id = $1 AND followed_id = $2",
            )
            .bind(follower_id)
            .bind(followed_id)
            .fetch_optional(&mut *transaction)
            .await?;
            if let Some(row) = before {
                return Ok(Followed::Before(row.try_get("followed_at")?));
            }
            let count: i64 = query("SELECT COUNT(*) AS n FROM follows WHERE follower_id = $1")
                .bind(follower_id)
                .fetch_one(&mut *transaction)
                .await?
                .try_get("n")?;
            if count >= most {
                return Ok(Followed::Full);
            }
            query(
                "INSERT INTO follows (follower_id, followed_id, followed_at) VALUES ($1, $2, $3)",
            )
            .bind(follower_id)
            .bind(followed_id)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(Followed::Now)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Ends `follower_id`'s follow of `followed_id`; `false`: there was none.
    pub async fn unfollow(&self, follower_id: &str, followed_id: &str) -> Result<bool, StoreError> {
        let done = self
            .single(async |connection| {
                query("DELETE FROM follows WHERE follower_id = $1 AND followed_id = $2")
                    .bind(follower_id)
                    .bind(followed_id)
                    .execute(connection)
                    .await
            })
            .await
            .map_err(StoreError::of_write)?;
        Ok(done.rows_affected() > 0)
    }

    /// The players `follower_id` follows, by username.
    pub async fn follows_of(&self, follower_id: &str) -> Result<Vec<FollowRow>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT a.username, f.followed_at FROM follows f \
                     JOIN accounts a ON a.id = f.followed_id \
                     WHERE f.follower_id = $1 ORDER BY a.username_key",
                )
                .bind(follower_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter()
            .map(|row| {
                Ok(FollowRow {
                    username: row.try_get("username")?,
                    followed_at: row.try_get("followed_at")?,
                })
            })
            .collect()
    }
}
