//! `GET`, `POST` and `DELETE /v1/me/vacation`: vacation days, and vacations that stop the
//! caller's correspondence clocks.

use actix_web::{delete, get, post, web};

use super::body::Json;
use super::error::{ApiError, Problem};
use super::extract::{Caller, Play, Read};
use crate::matches::Matches;
use crate::matches::vacations::{NewVacation, VacationView};

/// The caller's vacation days, and the vacation under way if any.
///
/// An account starts with 10 days and earns one more for each week (Monday to Sunday, UTC) in
/// which one of its turns at a correspondence clock (turns of a day or more) ended, holding at
/// most 30.
#[utoipa::path(
    tag = "accounts",
    responses((status = 200, description = "The days held and the vacation under way", body = VacationView)),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/vacation")]
pub async fn get_vacation(
    matches: web::Data<Matches>,
    caller: Caller<Read>,
) -> Result<web::Json<VacationView>, ApiError> {
    Ok(web::Json(matches.vacation(caller.player()).await?))
}

/// Go on vacation until `until`: the clock of each of your seats at a table that allows
/// vacations stops meanwhile.
///
/// It takes one vacation day for each day begun. Each match with a correspondence clock that
/// allows vacations (`clock.vacations`) records the start in its log (`vacation_started`), the
/// other players are told, and a turn of yours that runs meanwhile has its deadline moved by
/// the time away; a match that starts while you are away is stopped too. Your open seeks are
/// withdrawn. Come back before the end with `DELETE`.
#[utoipa::path(
    tag = "accounts",
    request_body = NewVacation,
    responses(
        (status = 200, description = "On vacation", body = VacationView),
        (status = 409, description = "`already_on_vacation` (come back first to change it), or `not_enough_vacation_days`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_vacation`: `until` is not an RFC 3339 time in the future within 30 days", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["play"]))
)]
#[post("/v1/me/vacation")]
pub async fn start_vacation(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
    body: Json<NewVacation>,
) -> Result<web::Json<VacationView>, ApiError> {
    let vacation = matches
        .start_vacation(caller.player(), body.into_inner())
        .await?;
    Ok(web::Json(vacation))
}

/// Come back from vacation now: your clocks run again, and the whole days not begun are
/// given back.
///
/// Each match that recorded the vacation records the return (`vacation_ended`). Without a
/// vacation under way this changes nothing.
#[utoipa::path(
    tag = "accounts",
    responses((status = 200, description = "Back (or not away)", body = VacationView)),
    security(("bearer" = ["play"]))
)]
#[delete("/v1/me/vacation")]
pub async fn end_vacation(
    matches: web::Data<Matches>,
    caller: Caller<Play>,
) -> Result<web::Json<VacationView>, ApiError> {
    Ok(web::Json(matches.end_vacation(caller.player()).await?))
}
