//! `GET`/`PUT /v1/me/alerts`: what the caller is told by email away from the table; and the
//! one-click unsubscribe link every alert letter carries (`/v1/alerts/unsubscribe/{token}`).

use actix_web::{HttpResponse, get, post, put, web};

use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller, Read};
use crate::http::body::Json;
use crate::mail::escape_html;
use crate::notifications::Notifications;
use crate::notifications::alerts::{AlertSettings, Unsubscribed};

/// The caller's alert settings: which notifications are sent by email, how often, and when not.
#[utoipa::path(
    tag = "notifications",
    responses(
        (status = 200, description = "The settings (nothing by email until chosen)", body = AlertSettings),
    ),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/alerts")]
pub async fn get_alerts(
    notifications: web::Data<Notifications>,
    caller: Caller<Read>,
) -> Result<web::Json<AlertSettings>, ApiError> {
    Ok(web::Json(
        notifications.alert_settings(&caller.account_id).await?,
    ))
}

/// Replace the caller's alert settings.
///
/// Letters go to the account's verified address only. Nothing is sent for what the player saw
/// live (while an account stream or a table stream of theirs was open). With `hourly`, at most
/// one letter an hour holds everything since the last; with `daily`, one letter at
/// `digest_hour`. Quiet hours hold letters back until they end. Times are wall-clock times in
/// `time_zone`, through daylight-saving changes.
#[utoipa::path(
    tag = "notifications",
    request_body = AlertSettings,
    responses(
        (status = 200, description = "Stored", body = AlertSettings),
        (status = 409, description = "Email alerts without a verified address (`email_not_verified`), or no mail on this server (`mail_unavailable`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_alert_settings` (with `field`: an unknown type, a time zone that is not IANA's, a time that is not HH:MM), `invalid_body`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[put("/v1/me/alerts")]
pub async fn put_alerts(
    notifications: web::Data<Notifications>,
    caller: Caller<AccountScope>,
    body: Json<AlertSettings>,
) -> Result<web::Json<AlertSettings>, ApiError> {
    Ok(web::Json(
        notifications
            .set_alert_settings(&caller.account_id, body.into_inner())
            .await?,
    ))
}

/// One-click unsubscribe (RFC 8058): the `List-Unsubscribe` link of an alert letter. A `POST`
/// (a mail client sends `List-Unsubscribe=One-Click`; the body is not read) turns the letter's
/// notification types off by email, without logging in. Following it again changes nothing.
#[utoipa::path(
    tag = "notifications",
    params(("token" = String, Path, description = "From the letter's link")),
    responses(
        (status = 200, description = "Turned off", body = Unsubscribed),
        (status = 404, description = "Unknown link (`not_found`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/alerts/unsubscribe/{token}")]
pub async fn unsubscribe(
    notifications: web::Data<Notifications>,
    token: web::Path<String>,
) -> Result<web::Json<Unsubscribed>, ApiError> {
    Ok(web::Json(notifications.unsubscribe(&token).await?))
}

/// The page a person reaches by opening the unsubscribe link: a button that sends the `POST`.
/// Opening it changes nothing (mail scanners open links).
#[utoipa::path(
    tag = "notifications",
    params(("token" = String, Path, description = "From the letter's link")),
    responses(
        (status = 200, description = "A page with one button", content_type = "text/html", body = String),
    ),
    security(())
)]
#[get("/v1/alerts/unsubscribe/{token}")]
pub async fn unsubscribe_page(token: web::Path<String>) -> HttpResponse {
    let action = format!("/v1/alerts/unsubscribe/{}", escape_html(&token));
    let page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>Stop these letters</title></head>\
         <body style=\"font:16px/1.5 Georgia,serif;max-width:32em;margin:2em auto;padding:0 1em\">\
         <h1 style=\"font-size:1.3em\">Stop these letters?</h1>\
         <p>Kings Corner will no longer mail you the kinds of news that letter held. You can turn them on again in the settings of the web client.</p>\
         <form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
         <button type=\"submit\" style=\"font:inherit;padding:.5em 1.2em\">Stop them</button></form>\
         </body></html>\n"
    );
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page)
}
