//! What operators work on: the queue of reports (migration 0026) and their audit log
//! (`operator_actions`, migration 0027), for `kings-corner admin`.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::reports::{ReportRow, report_of};
use super::{Db, StoreError, query};

/// A report as an operator reads it: the report and who made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueuedReport {
    /// The report.
    pub report: ReportRow,
    /// Who made it (its username; `[deleted]` once that account is gone).
    pub reporter: String,
}

/// One action in the audit log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorAction {
    /// Unix seconds.
    pub at: i64,
    /// Who took it.
    pub operator: String,
    /// What it was (`resolve_report`, …).
    pub action: String,
    /// What it acted on.
    pub target: String,
    /// Why.
    pub reason: String,
}

/// What became of a resolution.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Resolved now, and recorded in the audit log.
    Now,
    /// It was resolved already, at this time: nothing was written.
    Before(i64),
    /// No report has this id.
    Unknown,
}

/// The columns a [`QueuedReport`] is read from (`r`: reports, `a`: the account reported, `p`:
/// the reporter).
const QUEUED_COLUMNS: &str = "r.id, r.about, a.username, r.match_id, r.seq, r.reason, r.note, \
     r.status, r.outcome, r.created_at, r.resolved_at, p.username AS reporter \
     FROM reports r LEFT JOIN accounts a ON a.id = r.account_id \
     JOIN accounts p ON p.id = r.reporter_id";

fn queued(row: &AnyRow) -> Result<QueuedReport, sqlx::Error> {
    Ok(QueuedReport {
        report: report_of(row)?,
        reporter: row.try_get("reporter")?,
    })
}

impl Db {
    /// The open reports, oldest first (`every`: the resolved ones too, after them), at most
    /// `limit`.
    pub async fn report_queue(
        &self,
        every: bool,
        limit: i64,
    ) -> Result<Vec<QueuedReport>, StoreError> {
        let filter = if every { "" } else { "WHERE r.status = 'open'" };
        let rows = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {QUEUED_COLUMNS} {filter} \
                     ORDER BY CASE WHEN r.status = 'open' THEN 0 ELSE 1 END, r.created_at, r.id \
                     LIMIT $1"
                ))
                .bind(limit)
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows.iter().map(queued).collect::<Result<_, _>>()?)
    }

    /// Report `id`, whoever made it.
    pub async fn queued_report(&self, id: &str) -> Result<Option<QueuedReport>, StoreError> {
        let row = self
            .read(async |connection| {
                query(&format!("SELECT {QUEUED_COLUMNS} WHERE r.id = $1"))
                    .bind(id)
                    .fetch_optional(connection)
                    .await
            })
            .await?;
        Ok(row.as_ref().map(queued).transpose()?)
    }

    /// Resolves open report `id` with `outcome`, and records the action in the audit log, in
    /// one transaction.
    pub async fn resolve_report(
        &self,
        id: &str,
        outcome: &str,
        action: &OperatorAction,
        action_id: &str,
    ) -> Result<Resolved, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let resolved = query(
                "UPDATE reports SET status = 'resolved', outcome = $2, resolved_at = $3 \
                 WHERE id = $1 AND status = 'open'",
            )
            .bind(id)
            .bind(outcome)
            .bind(action.at)
            .execute(&mut *transaction)
            .await?;
            if resolved.rows_affected() == 0 {
                let before = query("SELECT resolved_at FROM reports WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *transaction)
                    .await?;
                return Ok(match before {
                    Some(row) => {
                        Resolved::Before(row.try_get::<Option<i64>, _>("resolved_at")?.unwrap_or(0))
                    }
                    None => Resolved::Unknown,
                });
            }
            record(&mut transaction, action_id, action).await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(Resolved::Now)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The newest `limit` operator actions, newest first.
    pub async fn operator_actions(&self, limit: i64) -> Result<Vec<OperatorAction>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT at, operator, action, target, reason FROM operator_actions \
                     ORDER BY at DESC, id DESC LIMIT $1",
                )
                .bind(limit)
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter()
            .map(|row| {
                Ok(OperatorAction {
                    at: row.try_get("at")?,
                    operator: row.try_get("operator")?,
                    action: row.try_get("action")?,
                    target: row.try_get("target")?,
                    reason: row.try_get("reason")?,
                })
            })
            .collect()
    }
}

/// Adds `action` to the audit log inside `transaction`.
async fn record(
    transaction: &mut sqlx::Transaction<'static, sqlx::Any>,
    id: &str,
    action: &OperatorAction,
) -> Result<(), sqlx::Error> {
    query(
        "INSERT INTO operator_actions (id, at, operator, action, target, reason) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(action.at)
    .bind(&action.operator)
    .bind(&action.action)
    .bind(&action.target)
    .bind(&action.reason)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}
