//! `GET /healthz` (the process is alive) and `GET /readyz` (and its database answers).

use actix_web::{get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, Problem};
use crate::matches::Matches;

/// A health answer.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"status": "ok"}))]
pub struct Health {
    /// `ok` or `ready`.
    pub status: &'static str,
}

/// Liveness: answers while the process runs.
#[utoipa::path(tag = "operations", responses((status = 200, description = "Alive", body = Health)), security(()))]
#[get("/healthz")]
pub async fn healthz() -> web::Json<Health> {
    web::Json(Health { status: "ok" })
}

/// Readiness, answered within a second: 200 when the database can serve (PostgreSQL answers a
/// query; SQLite takes a write, so a full disk shows here), 503 otherwise.
#[utoipa::path(
    tag = "operations",
    responses(
        (status = 200, description = "Ready", body = Health, example = json!({"status": "ready"})),
        (status = 503, description = "Database unreachable", body = Problem, content_type = "application/problem+json"),
    ),
    security(())
)]
#[get("/readyz")]
pub async fn readyz(matches: web::Data<Matches>) -> Result<web::Json<Health>, ApiError> {
    matches.ready().await.map_err(|error| {
        tracing::warn!(
            error = format!("{:#}", anyhow::Error::from(error)),
            "not ready"
        );
        ApiError::Unavailable
    })?;
    Ok(web::Json(Health { status: "ready" }))
}
