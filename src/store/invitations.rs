//! The `match_invitations` table: whom the creator of a private match invited, once each (see
//! migration 0007).

use sqlx::Row;

use super::notifications::{self, NewNotification};
use super::{Db, Owner, StoreError};
use crate::store::query;

/// What became of an invitation.
#[derive(Debug, PartialEq, Eq)]
pub enum Invited {
    /// Written now, with its notification.
    Now,
    /// The account was invited before, at this time: nothing was written.
    Before(i64),
    /// The match has as many invitations as it may: nothing was written.
    Full,
}

impl Db {
    /// Invites `account_id` to a match and writes the notification telling them, in one
    /// transaction, unless they were invited before or the match has `most` invitations.
    pub async fn invite(
        &self,
        match_id: &str,
        account_id: &str,
        most: i64,
        notification: &NewNotification,
    ) -> Result<Invited, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            // The count below and the insert are one step under the match's lock.
            self.lock_row(&mut transaction, Owner::Match, match_id).await?;
            let before = query(
                "SELECT invited_at FROM match_invitations WHERE match_id = $1 AND account_id = $2",
            )
            .bind(match_id)
            .bind(account_id)
            .fetch_optional(&mut *transaction)
            .await?;
            if let Some(row) = before {
                return Ok(Invited::Before(row.try_get("invited_at")?));
            }
            let count =
                Db::count_owned(&mut transaction, Owner::Match, "match_invitations", match_id)
                    .await?;
            if count >= most {
                return Ok(Invited::Full);
            }
            query(
                "INSERT INTO match_invitations (match_id, account_id, invited_at) VALUES ($1, $2, $3)",
            )
            .bind(match_id)
            .bind(account_id)
            .bind(notification.created_at)
            .execute(&mut *transaction)
            .await?;
            notifications::insert(&mut transaction, std::slice::from_ref(notification)).await?;
            transaction.commit().await?;
            self.told.record([notification]);
            Ok::<_, StoreError>(Invited::Now)
        })
        .await
        .map_err(StoreError::of_write)
    }
}
