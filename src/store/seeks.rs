//! The `seeks` table (migration 0015): quick pairing's requests for a table. A seek leaves
//! `open` once, by a conditional update: to `matched` in the transaction that creates its
//! match ([`Db::pair_seeks`]), to `cancelled` by its seeker, to `expired` by any process's
//! pairing round. Whichever comes first wins and the others change nothing, so however many
//! processes pair at once no seek is seated twice, and a cancelled one is never seated.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::matches::{NewMatch, insert_in};
use super::rows::{named, named_or_none, small};
use super::{Db, Owner, StoreError, query};
use crate::model::{ClockSettings, Level, Named, OnTimeout, SeekStatus};
use crate::ratings::Rating;
use crate::rules::Preset;

/// A stored seek.
#[derive(Clone, Debug, PartialEq)]
pub struct SeekRow {
    /// Its id (a UUID).
    pub id: String,
    /// The seeker.
    pub account_id: String,
    /// The table it asks for.
    pub table: SeekTable,
    /// The lowest shown rating (in the pool of its preset) it accepts at the table.
    pub rating_min: Option<i64>,
    /// The highest.
    pub rating_max: Option<i64>,
    /// Seconds after which bots of `bot_level` may take the seats nobody came for.
    pub bots_after: Option<i64>,
    /// The level of those bots.
    pub bot_level: Option<Level>,
    /// Where it is in its life.
    pub status: SeekStatus,
    /// Once matched: the match it was seated in.
    pub match_id: Option<String>,
    /// When it was made (Unix seconds).
    pub created_at: i64,
    /// When it expires if still open.
    pub expires_at: i64,
    /// When it left `open`.
    pub ended_at: Option<i64>,
}

/// The kind of table a seek asks for: seeks pair only with seeks of the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeekTable {
    /// The preset's rules.
    pub preset: Preset,
    /// The number of seats.
    pub seats: u8,
    /// The clock, if any.
    pub clock: Option<ClockSettings>,
    /// What a passed deadline means.
    pub on_timeout: OnTimeout,
    /// Whether the match is rated.
    pub rated: bool,
}

/// An open seek as the pairing round sees it: with its seeker's rating in the pool.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenSeek {
    /// The seek.
    pub seek: SeekRow,
    /// The seeker's rating in the pool of the seek's preset (the start for a newcomer).
    pub rating: Rating,
}

const SEEK_COLUMNS: &str = "s.id, s.account_id, s.preset, s.seats, s.turn_seconds, s.bank_seconds, \
     s.on_timeout, s.rated, s.rating_min, s.rating_max, s.bots_after, s.bot_level, s.status, \
     s.match_id, s.created_at, s.expires_at, s.ended_at";

/// How many ended seeks an account's list shows.
pub const ENDED_SHOWN: i64 = 50;

fn seek_from_row(row: &AnyRow) -> Result<SeekRow, StoreError> {
    let preset: String = row.try_get("preset")?;
    Ok(SeekRow {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        table: SeekTable {
            preset: Preset::from_name(&preset)
                .ok_or_else(|| StoreError::Corrupt(format!("seek preset = {preset}")))?,
            seats: small(row.try_get("seats")?, "seats")?,
            clock: match (
                row.try_get::<Option<i64>, _>("turn_seconds")?,
                row.try_get::<Option<i64>, _>("bank_seconds")?,
            ) {
                (Some(turn), Some(bank)) => Some(ClockSettings {
                    turn_seconds: small(turn, "turn_seconds")?,
                    bank_seconds: small(bank, "bank_seconds")?,
                }),
                _ => None,
            },
            on_timeout: named(row, "on_timeout")?,
            rated: row.try_get::<i64, _>("rated")? != 0,
        },
        rating_min: row.try_get("rating_min")?,
        rating_max: row.try_get("rating_max")?,
        bots_after: row.try_get("bots_after")?,
        bot_level: named_or_none(row, "bot_level")?,
        status: named(row, "status")?,
        match_id: row.try_get("match_id")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        ended_at: row.try_get("ended_at")?,
    })
}

impl Db {
    /// Stores a new open seek, unless its account has `most` open seeks already (`false`:
    /// nothing was stored). The count and the insert are one step under the account's lock
    /// ([`Db::lock_row`]), so concurrent seeks cannot pass the cap together.
    pub async fn insert_seek(&self, seek: &SeekRow, most: usize) -> Result<bool, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            self.lock_row(&mut transaction, Owner::Account, &seek.account_id)
                .await?;
            let open: i64 =
                query("SELECT COUNT(*) AS n FROM seeks WHERE account_id = $1 AND status = 'open'")
                    .bind(&seek.account_id)
                    .fetch_one(&mut *transaction)
                    .await?
                    .try_get("n")?;
            if open >= most as i64 {
                return Ok(false);
            }
            let table = &seek.table;
            query(
                "INSERT INTO seeks (id, account_id, preset, seats, turn_seconds, bank_seconds, \
                 on_timeout, rated, rating_min, rating_max, bots_after, bot_level, status, \
                 created_at, expires_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
            )
            .bind(&seek.id)
            .bind(&seek.account_id)
            .bind(table.preset.name())
            .bind(i64::from(table.seats))
            .bind(table.clock.map(|clock| i64::from(clock.turn_seconds)))
            .bind(table.clock.map(|clock| i64::from(clock.bank_seconds)))
            .bind(table.on_timeout.name())
            .bind(i64::from(table.rated))
            .bind(seek.rating_min)
            .bind(seek.rating_max)
            .bind(seek.bots_after)
            .bind(seek.bot_level.map(Level::name))
            .bind(seek.status.name())
            .bind(seek.created_at)
            .bind(seek.expires_at)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(true)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The seek `id` if `account_id` made it and has not withdrawn it.
    pub async fn seek_of(&self, account_id: &str, id: &str) -> Result<Option<SeekRow>, StoreError> {
        let statement = format!(
            "SELECT {SEEK_COLUMNS} FROM seeks s \
             WHERE s.id = $1 AND s.account_id = $2 AND s.status <> 'cancelled'"
        );
        let row = self
            .read(async |connection| {
                query(&statement)
                    .bind(id)
                    .bind(account_id)
                    .fetch_optional(connection)
                    .await
            })
            .await?;
        row.as_ref().map(seek_from_row).transpose()
    }

    /// An account's open seeks and its newest [`ENDED_SHOWN`] matched or expired ones, newest
    /// first (withdrawn ones are gone).
    pub async fn seeks_of(&self, account_id: &str) -> Result<Vec<SeekRow>, StoreError> {
        let statement = format!(
            "SELECT {SEEK_COLUMNS} FROM seeks s WHERE s.account_id = $1 AND s.status = 'open' \
             UNION ALL \
             SELECT * FROM (SELECT {SEEK_COLUMNS} FROM seeks s \
             WHERE s.account_id = $1 AND s.status IN ('matched', 'expired') \
             ORDER BY s.created_at DESC, s.id DESC LIMIT {ENDED_SHOWN}) AS ended \
             ORDER BY created_at DESC, id DESC"
        );
        let rows = self
            .read(async |connection| {
                query(&statement)
                    .bind(account_id)
                    .fetch_all(connection)
                    .await
            })
            .await?;
        rows.iter().map(seek_from_row).collect()
    }

    /// Cancels `account_id`'s seek `id` if it is still open at `now`, and answers it as it
    /// was cancelled; `None`: it was not open (it is matched, cancelled or expired already, or
    /// not theirs).
    pub async fn cancel_seek(
        &self,
        account_id: &str,
        id: &str,
        now: i64,
    ) -> Result<Option<SeekRow>, StoreError> {
        let returning = SEEK_COLUMNS.replace("s.", "");
        let statement = format!(
            "UPDATE seeks SET status = 'cancelled', ended_at = $3 \
             WHERE id = $1 AND account_id = $2 AND status = 'open' AND expires_at > $3 \
             RETURNING {returning}"
        );
        let row = self
            .single(async |connection| {
                query(&statement)
                    .bind(id)
                    .bind(account_id)
                    .bind(now)
                    .fetch_optional(connection)
                    .await
            })
            .await
            .map_err(StoreError::of_write)?;
        row.as_ref().map(seek_from_row).transpose()
    }

    /// Every seek still open at `now`, longest waiting first, each with its seeker's rating
    /// in its pool. Seekers whose accounts were deleted are left out.
    pub async fn open_seeks(&self, now: i64) -> Result<Vec<OpenSeek>, StoreError> {
        let statement = format!(
            "SELECT {SEEK_COLUMNS}, r.mu, r.sigma FROM seeks s \
             JOIN accounts a ON a.id = s.account_id AND a.deleted_at IS NULL \
             LEFT JOIN ratings r ON r.account_id = s.account_id AND r.pool = s.preset \
             WHERE s.status = 'open' AND s.expires_at > $1 \
             ORDER BY s.created_at, s.id"
        );
        let rows = self
            .read(async |connection| query(&statement).bind(now).fetch_all(connection).await)
            .await?;
        rows.iter()
            .map(|row| {
                let rating = match (
                    row.try_get::<Option<f64>, _>("mu")?,
                    row.try_get::<Option<f64>, _>("sigma")?,
                ) {
                    (Some(mu), Some(sigma)) => Rating { mu, sigma },
                    _ => crate::ratings::START,
                };
                Ok(OpenSeek {
                    seek: seek_from_row(row)?,
                    rating,
                })
            })
            .collect()
    }

    /// Seats the open seeks `seek_ids` in the new match `new`, in one transaction: each seek
    /// becomes `matched` with the match's id, and the match is inserted, started. `false`: one
    /// of them was no longer open (matched by another process, cancelled, expired), and
    /// nothing was written.
    pub async fn pair_seeks(
        &self,
        seek_ids: &[&str],
        new: &NewMatch<'_>,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            // The seeks first, in the order of their ids: a round that lost them to another
            // process stops here, before the match's start takes its players' notification
            // counters (store/notifications.rs), which every writer takes after its other rows.
            let lock = self.backend().row_lock();
            let wanted: Vec<String> = (0..seek_ids.len()).map(|i| format!("${}", i + 2)).collect();
            let lock_statement = format!(
                "SELECT id FROM seeks WHERE status = 'open' AND expires_at > $1 AND id IN ({}) \
                 ORDER BY id{lock}",
                wanted.join(", ")
            );
            let mut still_open = query(&lock_statement).bind(now);
            for id in seek_ids {
                still_open = still_open.bind(*id);
            }
            if still_open.fetch_all(&mut *transaction).await?.len() != seek_ids.len() {
                transaction.rollback().await?;
                return Ok(false);
            }
            let ids: Vec<String> = (0..seek_ids.len()).map(|i| format!("${}", i + 3)).collect();
            let statement = format!(
                "UPDATE seeks SET status = 'matched', match_id = $1, ended_at = $2 \
                 WHERE status = 'open' AND expires_at > $2 AND id IN ({})",
                ids.join(", ")
            );
            let mut claim = query(&statement);
            claim = claim.bind(&new.row.id).bind(now);
            for id in seek_ids {
                claim = claim.bind(*id);
            }
            // The match first: the seeks' `match_id` refers to it.
            insert_in(&mut transaction, self.backend(), new).await?;
            let claimed = claim.execute(&mut *transaction).await?.rows_affected();
            if claimed != seek_ids.len() as u64 {
                transaction.rollback().await?;
                return Ok(false);
            }
            transaction.commit().await?;
            if let Some(start) = new.start {
                self.told.record(&start.notifications);
            }
            Ok::<_, StoreError>(true)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Marks every seek still open at `now` past its `expires_at` as expired, and forgets
    /// ended seeks older than `forget_before`; how many expired.
    pub async fn expire_seeks(&self, now: i64, forget_before: i64) -> Result<u64, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let expired = query(
                "UPDATE seeks SET status = 'expired', ended_at = expires_at \
                 WHERE status = 'open' AND expires_at <= $1",
            )
            .bind(now)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
            query("DELETE FROM seeks WHERE status <> 'open' AND ended_at < $1")
                .bind(forget_before)
                .execute(&mut *transaction)
                .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(expired)
        })
        .await
        .map_err(StoreError::of_write)
    }
}
