//! The account's email address (`/v1/me/email`) and what its letters' links lead to: verifying
//! it (`POST /v1/auth/email-verification`) and resetting a password
//! (`POST /v1/auth/password-reset`, `/confirm`).

use actix_web::{HttpRequest, HttpResponse, delete, post, put, web};

use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller};
use crate::accounts::{
    Accounts, EmailTokenRequest, EmailView, NewEmail, NewPassword, RemoveEmail, ResetRequest,
    ResetRequested,
};
use crate::http::body::Json;

/// Set the account's email address, confirmed with its password.
///
/// The address is stored unverified and a link that verifies it is mailed to it (it works for
/// 24 hours, once, and only while the address is still the account's); a verified address it
/// replaces is told. Only a verified address receives alerts and password resets. Setting the
/// same address again sends a new link. Letters are limited per account and per address.
#[utoipa::path(
    tag = "accounts",
    request_body = NewEmail,
    responses(
        (status = 202, description = "Set; the verification letter is on its way", body = EmailView),
        (status = 403, description = "`wrong_password`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "This server sends no mail (`mail_unavailable`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_email` (with `field`), `invalid_body`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many letters or wrong passwords; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["account"]))
)]
#[put("/v1/me/email")]
pub async fn set_email(
    accounts: web::Data<Accounts>,
    caller: Caller<AccountScope>,
    body: Json<NewEmail>,
) -> Result<HttpResponse, ApiError> {
    let email = accounts
        .set_email(&caller.account_id, body.into_inner())
        .await?;
    Ok(HttpResponse::Accepted().json(email))
}

/// Remove the account's email address, confirmed with its password: no more letters, and no
/// password reset by email. A verified address is told.
#[utoipa::path(
    tag = "accounts",
    request_body = RemoveEmail,
    responses(
        (status = 204, description = "Removed (also when there was none)"),
        (status = 403, description = "`wrong_password`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["account"]))
)]
#[delete("/v1/me/email")]
pub async fn remove_email(
    accounts: web::Data<Accounts>,
    caller: Caller<AccountScope>,
    body: Json<RemoveEmail>,
) -> Result<HttpResponse, ApiError> {
    accounts
        .remove_email(&caller.account_id, body.into_inner().password)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Mail another verification link to the account's address (also to start mail again after
/// it stopped). A verified address in good standing gets none: the answer says so.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 202, description = "The letter is on its way (none for a verified address)", body = EmailView),
        (status = 409, description = "No address set (`no_email`), or no mail on this server (`mail_unavailable`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many letters; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(("bearer" = ["account"]))
)]
#[post("/v1/me/email/verification")]
pub async fn resend_verification(
    accounts: web::Data<Accounts>,
    caller: Caller<AccountScope>,
) -> Result<HttpResponse, ApiError> {
    let email = accounts.resend_verification(&caller.account_id).await?;
    Ok(HttpResponse::Accepted().json(email))
}

/// Verify an address with the token of its letter's link. No login needed: the link may be
/// opened on another device.
#[utoipa::path(
    tag = "auth",
    request_body = EmailTokenRequest,
    responses(
        (status = 204, description = "Verified"),
        (status = 404, description = "Unknown, used or expired token, or its address is no longer the account's (`invalid_email_token`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/auth/email-verification")]
pub async fn verify_email(
    accounts: web::Data<Accounts>,
    body: Json<EmailTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    accounts.verify_email(body.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Ask for a link that sets a new password, by the account's verified address or its
/// username.
///
/// The answer is the same whether or not such an account exists, and comes before the server
/// looks: nothing tells who has an account here. The link works once, for an hour.
#[utoipa::path(
    tag = "auth",
    request_body = ResetRequest,
    responses(
        (status = 202, description = "The same answer whether or not an account matched", body = ResetRequested),
        (status = 409, description = "This server sends no mail (`mail_unavailable`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_email` (with `field`), `invalid_username`, `invalid_body` (neither or both of `email` and `username`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many requests from this client, or for this address or username; see `Retry-After`", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ),
    security(())
)]
#[post("/v1/auth/password-reset")]
pub async fn request_password_reset(
    request: HttpRequest,
    accounts: web::Data<Accounts>,
    body: Json<ResetRequest>,
) -> Result<HttpResponse, ApiError> {
    let client = super::client::address_of(&request);
    let answer: ResetRequested = accounts
        .into_inner()
        .request_reset(body.into_inner(), client)
        .await?;
    Ok(HttpResponse::Accepted().json(answer))
}

/// Set a new password with the token of a reset link. Every session of the account ends:
/// refresh tokens are revoked, personal access tokens deleted, access tokens issued before
/// refused; the owner is told by email. Log in again with the new password.
#[utoipa::path(
    tag = "auth",
    request_body = NewPassword,
    responses(
        (status = 204, description = "The password is set"),
        (status = 404, description = "Unknown, used or expired token (`invalid_email_token`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`weak_password`, `invalid_body`", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/auth/password-reset/confirm")]
pub async fn reset_password(
    accounts: web::Data<Accounts>,
    body: Json<NewPassword>,
) -> Result<HttpResponse, ApiError> {
    accounts.reset_password(body.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
