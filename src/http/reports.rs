//! `POST /v1/reports`, `GET /v1/reports/{id}`, `GET /v1/me/reports`: telling the operators about
//! an account, a match or a message, and following what became of it (docs/community.md,
//! "Reporting").

use actix_web::{HttpResponse, get, post, web};

use super::body::Json;
use super::error::{ApiError, Problem};
use super::extract::{Caller, Play, Read};
use crate::matches::Matches;
use crate::matches::reports::{NewReportRequest, ReportList, ReportView};

/// Report an account, a match, or one message of table talk to the operators, with a reason and
/// a note. Nobody else is told who reported. Reporting the same thing again while your report
/// about it is open answers that report (200). At most 10 reports an hour.
#[utoipa::path(
    tag = "accounts",
    request_body = NewReportRequest,
    responses(
        (status = 201, description = "Reported", body = ReportView),
        (status = 200, description = "Reported before: your open report about the same thing", body = ReportView),
        (status = 422, description = "`invalid_report` (a field missing or out of place for what it is about, a note too long), `nothing_to_report` (no such person's account, no match you may read, no table talk at that event number), `cannot_report_yourself`, or a bad body", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_reports`: 10 in the last hour; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/reports")]
pub async fn create_report(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    body: Json<NewReportRequest>,
) -> Result<HttpResponse, ApiError> {
    let (report, now) = matches.report(caller.player(), body.into_inner()).await?;
    let mut response = match now {
        true => HttpResponse::Created(),
        false => HttpResponse::Ok(),
    };
    Ok(response.json(report))
}

/// One of your reports, with its status.
#[utoipa::path(
    tag = "accounts",
    params(("id" = uuid::Uuid, Path, description = "The report's id")),
    responses(
        (status = 200, description = "The report", body = ReportView),
        (status = 404, description = "`report_not_found`: no report of yours has this id", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/reports/{id}")]
pub async fn get_report(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
    id: web::Path<String>,
) -> Result<web::Json<ReportView>, ApiError> {
    Ok(web::Json(matches.report_made(caller.player(), &id).await?))
}

/// Your newest reports (100), newest first.
#[utoipa::path(
    tag = "accounts",
    responses((status = 200, description = "Your reports", body = ReportList)),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/reports")]
pub async fn list_reports(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
) -> Result<web::Json<ReportList>, ApiError> {
    Ok(web::Json(matches.reports_made(caller.player()).await?))
}
