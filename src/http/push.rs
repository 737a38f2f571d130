//! Web Push: `GET /v1/push/key` and the caller's devices, `/v1/me/push-subscriptions`.

use actix_web::{HttpResponse, delete, get, post, web};

use super::error::{ApiError, Problem};
use super::extract::{AccountScope, Caller, Read};
use crate::http::body::Json;
use crate::notifications::Notifications;
use crate::notifications::push::{NewSubscription, PushKey, SubscriptionList, SubscriptionView};

/// The server's VAPID public key: the `applicationServerKey` a browser subscribes with.
#[utoipa::path(
    tag = "notifications",
    responses((status = 200, description = "The key", body = PushKey)),
    security(())
)]
#[get("/v1/push/key")]
pub async fn push_key(notifications: web::Data<Notifications>) -> web::Json<PushKey> {
    web::Json(notifications.push_key())
}

/// Register this device for Web Push: the browser's `PushSubscription.toJSON()` with a name.
///
/// Alerts chosen for push (`PUT /v1/me/alerts`, `push`) go to every registered device, with
/// the same digest and quiet hours as letters. The same endpoint again updates its keys and
/// name (200). The endpoint must be a public https URL (as a webhook's). A device whose push
/// service says it is gone is removed.
#[utoipa::path(
    tag = "notifications",
    request_body = NewSubscription,
    responses(
        (status = 201, description = "Registered", body = SubscriptionView),
        (status = 200, description = "This endpoint was registered: updated", body = SubscriptionView),
        (status = 409, description = "`too_many_push_subscriptions` (10 an account)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_push_subscription` (with `field`: a private or non-https endpoint, keys that are not a P-256 point and 16 octets), `invalid_body`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[post("/v1/me/push-subscriptions")]
pub async fn add_push_subscription(
    notifications: web::Data<Notifications>,
    caller: Caller<AccountScope>,
    body: Json<NewSubscription>,
) -> Result<HttpResponse, ApiError> {
    let (created, view) = notifications
        .subscribe(&caller.account_id, body.into_inner())
        .await?;
    Ok(if created {
        HttpResponse::Created().json(view)
    } else {
        HttpResponse::Ok().json(view)
    })
}

/// The caller's registered devices, with their last use.
#[utoipa::path(
    tag = "notifications",
    responses((status = 200, description = "Oldest first", body = SubscriptionList)),
    security(("bearer" = ["read"]))
)]
#[get("/v1/me/push-subscriptions")]
pub async fn list_push_subscriptions(
    notifications: web::Data<Notifications>,
    caller: Caller<Read>,
) -> Result<web::Json<SubscriptionList>, ApiError> {
    Ok(web::Json(
        notifications.subscriptions(&caller.account_id).await?,
    ))
}

/// Remove a registered device.
#[utoipa::path(
    tag = "notifications",
    params(("id" = uuid::Uuid, Path, description = "The subscription's id")),
    responses(
        (status = 204, description = "Removed"),
        (status = 404, description = "No such subscription of yours (`not_found`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["account"]))
)]
#[delete("/v1/me/push-subscriptions/{id}")]
pub async fn remove_push_subscription(
    notifications: web::Data<Notifications>,
    caller: Caller<AccountScope>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    notifications
        .unsubscribe_device(&caller.account_id, &id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
