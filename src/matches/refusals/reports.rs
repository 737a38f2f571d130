//! [`ReportError`]: why a report was refused, each refusal with its stable code. Reports (`matches/reports.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a report was refused (inside a [`MatchError::Report`](crate::matches::MatchError::Report)).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A report that does not say what it is about as its kind needs.
    #[error("{detail}")]
    InvalidReport {
        /// The field at fault.
        field: &'static str,
        /// What is wrong, in words.
        detail: String,
    },
    /// What the report is about is nothing the reporter can see: no such person's account, no
    /// match they may read, no talk at that event number.
    #[error("{detail}")]
    NothingToReport {
        /// The field at fault.
        field: &'static str,
        /// What was not found, in words.
        detail: String,
    },
    /// A report about the reporter itself, or its own words.
    #[error("You cannot report yourself or your own words.")]
    CannotReportYourself,
    /// The reporter made as many reports in the last hour as it may.
    #[error("At most {per_hour} reports an hour: try again in {retry_after} seconds.")]
    TooManyReports {
        /// The most reports an hour.
        per_hour: i64,
        /// Seconds until one more is taken.
        retry_after: u64,
    },
    /// No report of the caller's has this id.
    #[error("No report of yours has this id.")]
    ReportNotFound,
}

impl ReportError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            ReportError::InvalidReport { .. }
            | ReportError::NothingToReport { .. }
            | ReportError::CannotReportYourself => Sort::Invalid,
            ReportError::TooManyReports { retry_after, .. } => Sort::TooMany {
                retry_after: *retry_after,
            },
            ReportError::ReportNotFound => Sort::Missing,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            ReportError::InvalidReport { .. } => "invalid_report",
            ReportError::NothingToReport { .. } => "nothing_to_report",
            ReportError::CannotReportYourself => "cannot_report_yourself",
            ReportError::TooManyReports { .. } => "too_many_reports",
            ReportError::ReportNotFound => "report_not_found",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            ReportError::InvalidReport { field, .. }
            | ReportError::NothingToReport { field, .. } => Some(field),
            _ => None,
        }
    }
}
