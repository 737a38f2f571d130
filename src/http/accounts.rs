//! `POST /v1/accounts` and `GET /v1/me`.

use actix_web::{HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, Problem};
use crate::auth::{AuthUser, password};
use crate::store::{self, Db, StoreError, accounts::Account};

/// A new account.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "maya", "password": "correct horse battery"}))]
pub struct NewAccount {
    /// 3–32 characters of `A–Z a–z 0–9 _ -`, unique without regard to case.
    pub username: String,
    /// 8–256 characters.
    pub password: String,
}

/// An account as its owner sees it.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0b6f7c1e-8a8e-4c35-9a55-3c1f3f0b9d11", "username": "maya", "created_at": 1795000000}))]
pub struct AccountView {
    /// Account id.
    pub id: String,
    /// Username as registered.
    pub username: String,
    /// Unix seconds.
    pub created_at: i64,
}

impl From<Account> for AccountView {
    fn from(account: Account) -> AccountView {
        AccountView {
            id: account.id,
            username: account.username,
            created_at: account.created_at,
        }
    }
}

fn check_username(username: &str) -> Result<(), ApiError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !(3..=32).contains(&username.len()) || !username.chars().all(allowed) {
        return Err(ApiError::invalid(
            "invalid_username",
            "username",
            "A username is 3 to 32 characters of A–Z, a–z, 0–9, _ and -.",
        ));
    }
    Ok(())
}

fn check_password(password: &str) -> Result<(), ApiError> {
    if !(8..=256).contains(&password.chars().count()) {
        return Err(ApiError::invalid(
            "weak_password",
            "password",
            "A password is 8 to 256 characters.",
        ));
    }
    Ok(())
}

/// Register an account.
#[utoipa::path(
    tag = "accounts",
    request_body = NewAccount,
    responses(
        (status = 201, description = "Created", body = AccountView),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Username taken (`username_taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "Body too large", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid username or password (`invalid_username`, `weak_password`, `invalid_body`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Database unavailable", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[post("/v1/accounts")]
pub async fn register(
    db: web::Data<Db>,
    body: web::Json<NewAccount>,
) -> Result<HttpResponse, ApiError> {
    let NewAccount { username, password } = body.into_inner();
    check_username(&username)?;
    check_password(&password)?;
    let account = Account {
        id: uuid::Uuid::new_v4().to_string(),
        username,
        password_hash: password::hash(password).await?,
        created_at: store::now(),
    };
    match db.insert_account(&account).await {
        Err(StoreError::Conflict(_)) => Err(ApiError::Conflict {
            code: "username_taken",
            detail: format!("The username `{}` is taken.", account.username),
        }),
        other => other.map_err(ApiError::from),
    }?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", "/v1/me"))
        .json(AccountView::from(account)))
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The account", body = AccountView),
        (status = 401, description = "Missing or invalid access token", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Database unavailable", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/me")]
pub async fn me(db: web::Data<Db>, user: AuthUser) -> Result<web::Json<AccountView>, ApiError> {
    let account = db
        .account_by_id(&user.account_id)
        .await?
        .ok_or(ApiError::Unauthorized(
            "invalid_token",
            "The account of this token no longer exists.",
        ))?;
    Ok(web::Json(account.into()))
}
