//! `/v1/me/webhooks`: registering, listing, re-enabling and deleting webhooks, and their
//! recent deliveries.

use actix_web::http::header::{CACHE_CONTROL, LOCATION};
use actix_web::{HttpResponse, delete, get, post, web};

use super::body::Json;
use super::error::{ApiError, Problem};
use super::extract::{Caller, Webhooks};
use crate::notifications::Notifications;
use crate::notifications::webhooks::{
    CreatedWebhook, DeliveryList, DeliveryQuery, NewWebhook, WebhookList, WebhookView,
};

/// Register a webhook: each notification of the types named is posted to the URL as JSON (the
/// same `Notification` as the stream), signed as Standard Webhooks define (`webhook-id`,
/// `webhook-timestamp`, `webhook-signature`), retried with backoff for at least 24 hours, and
/// the webhook disabled (with the reason) after that. Redirects are not followed; private,
/// loopback and link-local addresses are refused unless the operator allowed them. The
/// signing `secret` is in this answer only.
#[utoipa::path(
    tag = "webhooks",
    request_body = NewWebhook,
    responses(
        (status = 201, description = "Registered; `secret` is shown this once", body = CreatedWebhook, headers(("Location" = String, description = "The new webhook: `/v1/me/webhooks/{id}`"))),
        (status = 409, description = "`too_many_webhooks` (10 an account)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_webhook`: the `url` or `types` at fault in `field`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["webhooks"]))
)]
#[post("/v1/me/webhooks")]
pub async fn create_webhook(
    notifications: web::Data<Notifications>,
    caller: Caller<Webhooks>,
    body: Json<NewWebhook>,
) -> Result<HttpResponse, ApiError> {
    let created = notifications
        .create_webhook(&caller.account_id, body.into_inner())
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/v1/me/webhooks/{}", created.webhook.id)))
        .insert_header((CACHE_CONTROL, "no-store"))
        .json(created))
}

/// The caller's webhooks.
///
/// Each with the notification types it receives and whether it is enabled (never its secret).
#[utoipa::path(
    tag = "webhooks",
    responses((status = 200, description = "Oldest first", body = WebhookList)),
    security(("bearer" = ["webhooks"]))
)]
#[get("/v1/me/webhooks")]
pub async fn list_webhooks(
    notifications: web::Data<Notifications>,
    caller: Caller<Webhooks>,
) -> Result<web::Json<WebhookList>, ApiError> {
    Ok(web::Json(notifications.webhooks(&caller.account_id).await?))
}

/// One of the caller's webhooks: whether it is enabled, and if not, why.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = uuid::Uuid, Path, description = "The webhook's id")),
    responses(
        (status = 200, description = "The webhook", body = WebhookView),
        (status = 404, description = "No such webhook of yours (`not_found`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["webhooks"]))
)]
#[get("/v1/me/webhooks/{id}")]
pub async fn get_webhook(
    notifications: web::Data<Notifications>,
    caller: Caller<Webhooks>,
    id: web::Path<String>,
) -> Result<web::Json<WebhookView>, ApiError> {
    Ok(web::Json(
        notifications.webhook(&caller.account_id, &id).await?,
    ))
}

/// Delete a webhook, with its pending deliveries.
///
/// Nothing more is posted to its URL once this answers; its delivery history goes with it.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = uuid::Uuid, Path, description = "The webhook's id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "No such webhook of yours (`not_found`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["webhooks"]))
)]
#[delete("/v1/me/webhooks/{id}")]
pub async fn delete_webhook(
    notifications: web::Data<Notifications>,
    caller: Caller<Webhooks>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    notifications
        .delete_webhook(&caller.account_id, &id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Enable a webhook again after it was disabled: the deliveries it had pending go out at once,
/// oldest first (notifications written while it was disabled are not delivered).
#[utoipa::path(
    tag = "webhooks",
    params(("id" = uuid::Uuid, Path, description = "The webhook's id")),
    responses(
        (status = 200, description = "Enabled", body = WebhookView),
        (status = 404, description = "No such webhook of yours (`not_found`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["webhooks"]))
)]
#[post("/v1/me/webhooks/{id}/enable")]
pub async fn enable_webhook(
    notifications: web::Data<Notifications>,
    caller: Caller<Webhooks>,
    id: web::Path<String>,
) -> Result<web::Json<WebhookView>, ApiError> {
    Ok(web::Json(
        notifications
            .enable_webhook(&caller.account_id, &id)
            .await?,
    ))
}

/// A webhook's recent deliveries, newest first, each with its last attempts: when, the status
/// the receiver answered, and why an attempt failed.
#[utoipa::path(
    tag = "webhooks",
    params(("id" = uuid::Uuid, Path, description = "The webhook's id"), DeliveryQuery),
    responses(
        (status = 200, description = "Newest first", body = DeliveryList),
        (status = 404, description = "No such webhook of yours (`not_found`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad `limit` (`invalid_query`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["webhooks"]))
)]
#[get("/v1/me/webhooks/{id}/deliveries")]
pub async fn list_deliveries(
    notifications: web::Data<Notifications>,
    caller: Caller<Webhooks>,
    id: web::Path<String>,
    query: web::Query<DeliveryQuery>,
) -> Result<web::Json<DeliveryList>, ApiError> {
    Ok(web::Json(
        notifications
            .deliveries(&caller.account_id, &id, query.into_inner())
            .await?,
    ))
}
