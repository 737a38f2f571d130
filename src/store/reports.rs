//! The `reports` table (migration 0026): what accounts told the operators about, and what became
//! of it.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, Owner, StoreError, query};

/// A report to write.
#[derive(Debug)]
pub struct NewReport {
    /// Its id.
    pub id: String,
    /// Who reports.
    pub reporter_id: String,
    /// What it is about: `account`, `match` or `message`.
    pub about: &'static str,
    /// The account reported (a message's speaker), if any.
    pub account_id: Option<String>,
    /// The match reported (a message's match), if any.
    pub match_id: Option<String>,
    /// A message's event number.
    pub seq: Option<i64>,
    /// Why, from the list of reasons.
    pub reason: &'static str,
    /// The reporter's words.
    pub note: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// A report as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRow {
    /// Its id.
    pub id: String,
    /// `account`, `match` or `message`.
    pub about: String,
    /// The account reported (a message's speaker), by name.
    pub username: Option<String>,
    /// The match reported (a message's match).
    pub match_id: Option<String>,
    /// A message's event number.
    pub seq: Option<i64>,
    /// Why.
    pub reason: String,
    /// The reporter's words.
    pub note: String,
    /// `open` or `resolved`.
    pub status: String,
    /// What the operators decided, once resolved.
    pub outcome: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds, once resolved.
    pub resolved_at: Option<i64>,
}

/// What became of a report.
#[derive(Debug, PartialEq, Eq)]
pub enum Reported {
    /// Written now.
    Now,
    /// The reporter has this report about the same thing open already: nothing was written.
    Before(Box<ReportRow>),
    /// The reporter made `most` reports in the hour before: nothing was written. The oldest of
    /// them was made at this time.
    TooMany(i64),
}

/// The columns a [`ReportRow`] is read from (`r`: reports, `a`: the account reported).
const REPORT_COLUMNS: &str = "r.id, r.about, a.username, r.match_id, r.seq, r.reason, r.note, \
     r.status, r.outcome, r.created_at, r.resolved_at \
     FROM reports r LEFT JOIN accounts a ON a.id = r.account_id";

/// A [`ReportRow`] from a row with [`REPORT_COLUMNS`]'s names (the operators' queue reads the
/// same ones, `store/moderation.rs`).
pub(super) fn report_of(row: &AnyRow) -> Result<ReportRow, sqlx::Error> {
    Ok(ReportRow {
        id: row.try_get("id")?,
        about: row.try_get("about")?,
        username: row.try_get("username")?,
        match_id: row.try_get("match_id")?,
        seq: row.try_get("seq")?,
        reason: row.try_get("reason")?,
        note: row.try_get("note")?,
        status: row.try_get("status")?,
        outcome: row.try_get("outcome")?,
        created_at: row.try_get("created_at")?,
        resolved_at: row.try_get("resolved_at")?,
    })
}

impl Db {
    /// Writes `report` unless its reporter has an open report about the same thing, or made
    /// `most_per_hour` reports in the hour before it. The checks and the insert are one step
    /// under the reporter's lock.
    pub async fn insert_report(
        &self,
        report: &NewReport,
        most_per_hour: i64,
    ) -> Result<Reported, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            self.lock_row(&mut transaction, Owner::Account, &report.reporter_id)
                .await?;
            let open = query(&format!(
                "SELECT {REPORT_COLUMNS} WHERE r.reporter_id = $1 AND r.status = 'open' \
                 AND r.about = $2 AND COALESCE(r.account_id, '') = $3 \
                 AND COALESCE(r.match_id, '') = $4 AND COALESCE(r.seq, 0) = $5"
            ))
            .bind(&report.reporter_id)
            .bind(report.about)
            .bind(report.account_id.as_deref().unwrap_or(""))
            .bind(report.match_id.as_deref().unwrap_or(""))
            .bind(report.seq.unwrap_or(0))
            .fetch_optional(&mut *transaction)
            .await?;
            if let Some(open) = open {
                return Ok(Reported::Before(Box::new(report_of(&open)?)));
            }
            let recent = query(
                "SELECT created_at FROM reports WHERE reporter_id = $1 AND created_at > $2 \
                 ORDER BY created_at LIMIT $3",
            )
            .bind(&report.reporter_id)
            .bind(report.created_at - 3600)
            .bind(most_per_hour)
            .fetch_all(&mut *transaction)
            .await?;
            if recent.len() as i64 >= most_per_hour {
                return Ok(Reported::TooMany(recent[0].try_get("created_at")?));
            }
            query(
                "INSERT INTO reports (id, reporter_id, about, account_id, match_id, seq, reason, \
                 note, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9)",
            )
            .bind(&report.id)
            .bind(&report.reporter_id)
            .bind(report.about)
            .bind(report.account_id.as_deref())
            .bind(report.match_id.as_deref())
            .bind(report.seq)
            .bind(report.reason)
            .bind(&report.note)
            .bind(report.created_at)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(Reported::Now)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Report `id` of `reporter_id`'s, if it is theirs.
    pub async fn report_of(
        &self,
        reporter_id: &str,
        id: &str,
    ) -> Result<Option<ReportRow>, StoreError> {
        let row = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {REPORT_COLUMNS} WHERE r.id = $1 AND r.reporter_id = $2"
                ))
                .bind(id)
                .bind(reporter_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        Ok(row.as_ref().map(report_of).transpose()?)
    }

    /// `reporter_id`'s newest `limit` reports, newest first.
    pub async fn reports_of(
        &self,
        reporter_id: &str,
        limit: i64,
    ) -> Result<Vec<ReportRow>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {REPORT_COLUMNS} WHERE r.reporter_id = $1 \
                     ORDER BY r.created_at DESC, r.id DESC LIMIT $2"
                ))
                .bind(reporter_id)
                .bind(limit)
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows.iter().map(report_of).collect::<Result<_, _>>()?)
    }
}
