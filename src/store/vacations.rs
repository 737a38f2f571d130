//! Vacations (migration 0016): an account's vacation days and its current or latest vacation,
//! the weeks it played that earn it more days, and which matches must record a vacation in
//! their logs (`matches.vacation_due`, worked off by the round in `matches/vacations.rs`).
//!
//! A start or an end is one transaction under the account's lock ([`VacationChange`]): the
//! days counted and spent, the seeks withdrawn, and every match of the account marked due, so
//! no match of an account that went away is missed however the process fares afterwards.

use std::time::Duration;

use sqlx::any::AnyRow;
use sqlx::{Any, AnyConnection, Row, Transaction};

use super::{Db, Owner, StoreError, query, within};

/// Seconds from the Unix epoch (a Thursday) back to the Monday that begins its week.
const WEEK_OFFSET: i64 = 3 * 86_400;
/// Seconds in a week.
const WEEK: i64 = 7 * 86_400;

/// The week (a number, weeks beginning on Monday, UTC) that holds the time `at`.
pub fn week_of(at: i64) -> i64 {
    (at + WEEK_OFFSET).div_euclid(WEEK)
}

/// When week `week` begins (Unix seconds).
pub fn week_start(week: i64) -> i64 {
    week * WEEK - WEEK_OFFSET
}

/// An account's vacation record as stored, and what it has played since its days were last
/// counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VacationRow {
    /// The days it holds, as last counted.
    pub days: i64,
    /// The first week whose play was not counted yet.
    pub weeks_from: i64,
    /// The weeks from `weeks_from` on in which one of its turns at a correspondence clock
    /// ended, in order.
    pub played_weeks: Vec<i64>,
    /// Its current or latest vacation: from, until (Unix seconds).
    pub away: Option<(i64, i64)>,
}

/// An account locked for a change of its vacation. Dropping it without
/// [`VacationChange::commit`] changes nothing.
pub struct VacationChange {
    transaction: Transaction<'static, Any>,
    timeout: Duration,
    account_id: String,
    /// The record under the lock.
    pub row: VacationRow,
}

/// The vacation columns of `accounts` and, where no week was counted yet, the week of its
/// creation.
const SELECT_VACATION: &str = "SELECT vacation_days, vacation_weeks_from, created_at, away_from, \
     away_until FROM accounts WHERE id = $1 AND deleted_at IS NULL";

/// The weeks from the time `$2` on in which a turn of account `$1`'s ended at a correspondence
/// clock (a turn of a day or more): the canonical JSON of `turn_ended` begins with its type and
/// seat, as the log row's last event or, in `earlier`, after its hash (`store/log_rows.rs`).
/// Only matches written to since `$2` are read.
const PLAYED_WEEKS: &str = "SELECT DISTINCT (e.created_at + 259200) / 604800 AS week \
     FROM match_seats s \
     JOIN matches m ON m.id = s.match_id \
     JOIN match_events e ON e.match_id = s.match_id \
     WHERE s.account_id = $1 AND m.turn_seconds >= 86400 AND m.updated_at >= $2 \
       AND e.created_at >= $2 \
       AND (e.event LIKE '{\"type\":\"turn_ended\",\"seat\":' || s.seat || ',%' \
         OR e.earlier LIKE '%\",{\"type\":\"turn_ended\",\"seat\":' || s.seat || ',%') \
     ORDER BY week";

/// The record of account `account_id` read on `connection`; `None`: no such live account.
async fn read(
    connection: &mut AnyConnection,
    account_id: &str,
) -> Result<Option<VacationRow>, sqlx::Error> {
    let Some(row) = query(SELECT_VACATION)
        .bind(account_id)
        .fetch_optional(&mut *connection)
        .await?
    else {
        return Ok(None);
    };
    let weeks_from = match row.try_get::<Option<i64>, _>("vacation_weeks_from")? {
        Some(week) => week,
        None => week_of(row.try_get("created_at")?),
    };
    let played_weeks = query(PLAYED_WEEKS)
        .bind(account_id)
        .bind(week_start(weeks_from))
        .fetch_all(&mut *connection)
        .await?
        .iter()
        .map(|row: &AnyRow| row.try_get("week"))
        .collect::<Result<_, _>>()?;
    let away = match (
        row.try_get::<Option<i64>, _>("away_from")?,
        row.try_get::<Option<i64>, _>("away_until")?,
    ) {
        (Some(from), Some(until)) => Some((from, until)),
        _ => None,
    };
    Ok(Some(VacationRow {
        days: row.try_get("vacation_days")?,
        weeks_from,
        played_weeks,
        away,
    }))
}

/// Marks the match `match_id`, just started, to be looked at by the vacation round if it
/// allows vacations: one of its players may be away already.
pub(super) async fn look_at_start(
    connection: &mut AnyConnection,
    match_id: &str,
) -> Result<(), sqlx::Error> {
    query(
        "UPDATE matches SET vacation_due = COALESCE(vacation_due, 0) + 1 \
         WHERE id = $1 AND vacations = 1",
    )
    .bind(match_id)
    .execute(connection)
    .await?;
    Ok(())
}

impl Db {
    /// Account `account_id`'s vacation record; `None`: no such live account.
    pub async fn vacation(&self, account_id: &str) -> Result<Option<VacationRow>, StoreError> {
        self.read(async |connection| read(connection, account_id).await)
            .await
    }

    /// Locks account `account_id` for a change of its vacation; `None`: no such live account.
    pub async fn lock_vacation(
        &self,
        account_id: &str,
    ) -> Result<Option<VacationChange>, StoreError> {
        let mut transaction = self.begin_write().await?;
        let row = self
            .timed(async {
                if !self
                    .lock_row(&mut transaction, Owner::Account, account_id)
                    .await?
                {
                    return Ok::<_, sqlx::Error>(None);
                }
                read(&mut transaction, account_id).await
            })
            .await?;
        Ok(row.map(|row| VacationChange {
            transaction,
            timeout: self.statement_timeout,
            account_id: account_id.to_owned(),
            row,
        }))
    }

    /// The match's `vacation_due` mark now (`None`: nothing to do).
    pub async fn vacation_due(&self, match_id: &str) -> Result<Option<i64>, StoreError> {
        let row = self
            .read(async |connection| {
                query("SELECT vacation_due FROM matches WHERE id = $1")
                    .bind(match_id)
                    .fetch_optional(connection)
                    .await
            })
            .await?;
        Ok(row
            .map(|row| row.try_get::<Option<i64>, _>("vacation_due"))
            .transpose()?
            .flatten())
    }

    /// Clears the match's `vacation_due` mark if it is still `seen`: a mark set again since
    /// the round read it keeps the match due.
    pub async fn clear_vacation_due(&self, match_id: &str, seen: i64) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("UPDATE matches SET vacation_due = NULL WHERE id = $1 AND vacation_due = $2")
                .bind(match_id)
                .bind(seen)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }

    /// Each seat's player's vacation end at match `match_id` (Unix seconds), for seats whose
    /// player has one recorded: `(seat, away_until)`.
    pub async fn vacations_at(&self, match_id: &str) -> Result<Vec<(i64, i64)>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT s.seat, a.away_until FROM match_seats s \
                     JOIN accounts a ON a.id = s.account_id \
                     WHERE s.match_id = $1 AND a.away_until IS NOT NULL ORDER BY s.seat",
                )
                .bind(match_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| Ok((row.try_get("seat")?, row.try_get("away_until")?)))
            .collect::<Result<_, sqlx::Error>>()?)
    }
}

impl VacationChange {
    /// Records the account's days (`days`, counted up to week `weeks_from`) and its vacation
    /// from `from` until `until`, withdraws its open seeks (nobody away is seated at a new
    /// table), and marks every match it sits at that allows vacations, so that their logs
    /// record it. How many matches were marked.
    pub async fn go_away(
        &mut self,
        days: i64,
        weeks_from: i64,
        from: i64,
        until: i64,
    ) -> Result<u64, StoreError> {
        within(self.timeout, async {
            self.record(days, weeks_from, from, until).await?;
            query(
                "UPDATE seeks SET status = 'cancelled', ended_at = $2 \
                 WHERE account_id = $1 AND status = 'open'",
            )
            .bind(&self.account_id)
            .bind(from)
            .execute(&mut *self.transaction)
            .await?;
            self.mark_matches().await
        })
        .await
    }

    /// Records the account's days and its return at `at` (its vacation now ends there), and
    /// marks its matches so that their logs record the return. How many matches were marked.
    pub async fn come_back(
        &mut self,
        days: i64,
        weeks_from: i64,
        at: i64,
    ) -> Result<u64, StoreError> {
        let from = self.row.away.map_or(at, |(from, _)| from);
        within(self.timeout, async {
            self.record(days, weeks_from, from, at).await?;
            self.mark_matches().await
        })
        .await
    }

    /// Writes the account's days, the week they were counted to, and its vacation.
    async fn record(
        &mut self,
        days: i64,
        weeks_from: i64,
        from: i64,
        until: i64,
    ) -> Result<(), sqlx::Error> {
        query(
            "UPDATE accounts SET vacation_days = $2, vacation_weeks_from = $3, \
             away_from = $4, away_until = $5 WHERE id = $1",
        )
        .bind(&self.account_id)
        .bind(days)
        .bind(weeks_from)
        .bind(from)
        .bind(until)
        .execute(&mut *self.transaction)
        .await?;
        Ok(())
    }

    /// Marks the matches the account sits at, open or being played, that allow vacations.
    async fn mark_matches(&mut self) -> Result<u64, sqlx::Error> {
        let marked = query(
            "UPDATE matches SET vacation_due = COALESCE(vacation_due, 0) + 1 \
             WHERE vacations = 1 AND status IN ('open', 'playing') \
               AND id IN (SELECT match_id FROM match_seats WHERE account_id = $1)",
        )
        .bind(&self.account_id)
        .execute(&mut *self.transaction)
        .await?;
        Ok(marked.rows_affected())
    }

    /// Makes the change durable. A failure here is [`StoreError::Unconfirmed`].
    pub async fn commit(self) -> Result<(), StoreError> {
        within(self.timeout, self.transaction.commit())
            .await
            .map_err(StoreError::of_write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_begin_on_monday() {
        // 2026-11-30 was a Monday, 2026-12-06 a Sunday.
        let monday = 1_795_996_800;
        assert_eq!(week_start(week_of(monday)), monday);
        assert_eq!(week_of(monday + 7 * 86_400 - 1), week_of(monday));
        assert_eq!(week_of(monday - 1), week_of(monday) - 1);
        assert_eq!(week_start(week_of(monday + 3 * 86_400 + 5)), monday);
    }
}
