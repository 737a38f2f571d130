//! Webhooks: an account registers a URL and the notification types it wants; each of those
//! notifications is then posted to it, signed (Standard Webhooks), from an outbox written with
//! the notification's place in the stream.
//!
//! # Layout
//! - this file: registering, listing, deleting and re-enabling webhooks, and their deliveries;
//! - [`signing`]: the signing secret and signatures;
//! - [`address`]: where requests may go (SSRF);
//! - `delivery`: the background deliverer, retries and disabling.

pub mod address;
mod delivery;
pub mod signing;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::notice::KINDS;
use super::{NotificationError, Notifications};
use crate::store::webhooks::{AttemptRow, DeliveryRow, WebhookRow};
pub use address::AllowedNetworks;
pub(super) use delivery::Deliverer;
pub use delivery::WebhookSettings;
use signing::SigningSecret;

/// Most webhooks one account may have.
pub const MOST_PER_ACCOUNT: usize = 10;

/// Most deliveries one listing shows, and attempts shown per delivery.
const MOST_DELIVERIES: i64 = 100;
const ATTEMPTS_SHOWN: usize = 10;

/// A webhook to register.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://bots.example.com/kings-corner", "types": ["your_turn", "match_finished"]}))]
pub struct NewWebhook {
    /// `https://…`; `http://` only to an address the operator allowed for local development.
    /// Never a private, loopback or link-local address unless the operator allowed it.
    #[schema(
        format = "uri",
        max_length = 2048,
        pattern = "^[Hh][Tt][Tt][Pp][Ss]?://"
    )]
    pub url: String,
    /// The notification types to deliver (at least one): any `type` a `Notification` has.
    #[schema(min_items = 1)]
    pub types: Vec<String>,
}

/// A webhook as its owner sees it (never its secret).
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "3f0c9a4e-6a55-4c1f-9f0e-2b8d7c6a5e41", "url": "https://bots.example.com/kings-corner",
    "types": ["match_finished", "your_turn"], "enabled": true, "disabled_reason": null,
    "disabled_at": null, "created_at": "2026-11-18T11:06:40Z"
}))]
pub struct WebhookView {
    /// Its id.
    #[schema(format = Uuid)]
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// The notification types it receives.
    pub types: Vec<String>,
    /// `false` once disabled after persistent failure (re-enable with `POST …/enable`).
    pub enabled: bool,
    /// Why it was disabled.
    pub disabled_reason: Option<String>,
    /// When it was disabled (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub disabled_at: Option<i64>,
    /// When (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
}

/// A webhook just registered, with its signing secret: shown this once.
#[derive(Serialize, ToSchema)]
pub struct CreatedWebhook {
    /// The webhook.
    #[serde(flatten)]
    pub webhook: WebhookView,
    /// `whsec_…`: verify each delivery's `webhook-signature` with it (Standard Webhooks).
    pub secret: String,
}

/// The caller's webhooks.
#[derive(Serialize, ToSchema)]
pub struct WebhookList {
    /// Oldest first.
    pub webhooks: Vec<WebhookView>,
}

/// Which deliveries to list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveryQuery {
    /// Most deliveries, 1–100 (default 20), newest first.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// A webhook's recent deliveries.
#[derive(Serialize, ToSchema)]
pub struct DeliveryList {
    /// Newest first.
    pub deliveries: Vec<DeliveryView>,
}

/// One notification's delivery to a webhook.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": 41, "notification_id": "msg_2f1c8e0d9b7a4c6e8f0a1b2c3d4e5f60", "type": "your_turn", "seq": 7,
    "state": "delivered", "created_at": "2026-11-18T11:08:20Z", "delivered_at": "2026-11-18T11:09:20Z",
    "attempts": [
        {"attempted_at": "2026-11-18T11:08:20Z", "status_code": 503, "error": "answered 503", "duration_ms": 41},
        {"attempted_at": "2026-11-18T11:09:20Z", "status_code": 204, "error": null, "duration_ms": 38}
    ]
}))]
pub struct DeliveryView {
    /// The delivery's id.
    pub id: i64,
    /// The notification's id: the `webhook-id` header.
    pub notification_id: String,
    /// The notification's type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The notification's place in the account's stream.
    pub seq: i64,
    /// `pending` (to be sent, or retried) or `delivered`.
    pub state: String,
    /// When (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    /// When a 2xx answer came (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub delivered_at: Option<i64>,
    /// Its most recent attempts (at most 10), oldest first.
    pub attempts: Vec<AttemptView>,
}

/// One attempt at a delivery.
#[derive(Serialize, ToSchema)]
pub struct AttemptView {
    /// When (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub attempted_at: i64,
    /// The receiver's status, when it answered.
    pub status_code: Option<i64>,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// How long it took.
    pub duration_ms: i64,
}

impl From<WebhookRow> for WebhookView {
    fn from(row: WebhookRow) -> WebhookView {
        WebhookView {
            id: row.id,
            url: row.url,
            types: row.kinds,
            enabled: row.disabled_at.is_none(),
            disabled_reason: row.disabled_reason,
            disabled_at: row.disabled_at,
            created_at: row.created_at,
        }
    }
}

impl From<DeliveryRow> for DeliveryView {
    fn from(row: DeliveryRow) -> DeliveryView {
        DeliveryView {
            id: row.id,
            notification_id: row.message_id,
            kind: row.kind,
            seq: row.seq,
            state: row.state,
            created_at: row.created_at,
            delivered_at: row.finished_at,
            attempts: row.attempts.into_iter().map(AttemptView::from).collect(),
        }
    }
}

impl From<AttemptRow> for AttemptView {
    fn from(row: AttemptRow) -> AttemptView {
        AttemptView {
            attempted_at: row.attempted_at,
            status_code: row.status_code,
            error: row.error,
            duration_ms: row.duration_ms,
        }
    }
}

impl Notifications {
    /// Registers a webhook for the caller; its secret is in the answer, and only there.
    pub async fn create_webhook(
        &self,
        account_id: &str,
        request: NewWebhook,
    ) -> Result<CreatedWebhook, NotificationError> {
        let invalid = |field, detail: String| NotificationError::InvalidWebhook { field, detail };
        let url = address::check_url(&request.url, &self.settings.webhooks.allowed_networks)
            .map_err(|detail| invalid("url", detail))?;
        let mut kinds = request.types;
        kinds.sort();
        kinds.dedup();
        if kinds.is_empty() {
            return Err(invalid(
                "types",
                "name at least one notification type".into(),
            ));
        }
        if let Some(unknown) = kinds.iter().find(|kind| !KINDS.contains(&kind.as_str())) {
            return Err(invalid(
                "types",
                format!(
                    "`{unknown}` is not a notification type: {}",
                    KINDS.join(", ")
                ),
            ));
        }
        let secret = SigningSecret::generate();
        let row = WebhookRow {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: account_id.to_owned(),
            url: url.to_string(),
            kinds,
            secret: self.seal(&secret),
            created_at: self.clock.now(),
            disabled_at: None,
            disabled_reason: None,
            failing_since: None,
        };
        if !self.db.insert_webhook(&row, MOST_PER_ACCOUNT).await? {
            return Err(NotificationError::TooManyWebhooks(MOST_PER_ACCOUNT));
        }
        Ok(CreatedWebhook {
            webhook: row.into(),
            secret: secret.reveal(),
        })
    }

    /// The caller's webhooks.
    pub async fn webhooks(&self, account_id: &str) -> Result<WebhookList, NotificationError> {
        let rows = self.db.webhooks_of(account_id, None).await?;
        Ok(WebhookList {
            webhooks: rows.into_iter().map(WebhookView::from).collect(),
        })
    }

    /// One of the caller's webhooks.
    pub async fn webhook(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<WebhookView, NotificationError> {
        let mut rows = self.db.webhooks_of(account_id, Some(id)).await?;
        rows.pop()
            .map(WebhookView::from)
            .ok_or(NotificationError::WebhookNotFound)
    }

    /// Deletes one of the caller's webhooks, with its pending deliveries.
    pub async fn delete_webhook(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<(), NotificationError> {
        if !self.db.delete_webhook(account_id, id).await? {
            return Err(NotificationError::WebhookNotFound);
        }
        Ok(())
    }

    /// Enables one of the caller's webhooks again after it was disabled: its pending
    /// deliveries go out at once, oldest first.
    pub async fn enable_webhook(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<WebhookView, NotificationError> {
        if !self
            .db
            .enable_webhook(account_id, id, self.clock.now())
            .await?
        {
            return Err(NotificationError::WebhookNotFound);
        }
        self.deliveries.wake();
        self.webhook(account_id, id).await
    }

    /// The recent deliveries of one of the caller's webhooks, newest first.
    pub async fn deliveries(
        &self,
        account_id: &str,
        id: &str,
        query: DeliveryQuery,
    ) -> Result<DeliveryList, NotificationError> {
        let limit = query.limit.unwrap_or(20);
        if !(1..=MOST_DELIVERIES).contains(&limit) {
            return Err(NotificationError::invalid_query(
                "limit",
                "limit is 1 to 100",
            ));
        }
        self.webhook(account_id, id).await?;
        let rows = self.db.deliveries_of(id, limit, ATTEMPTS_SHOWN).await?;
        Ok(DeliveryList {
            deliveries: rows.into_iter().map(DeliveryView::from).collect(),
        })
    }

    /// A secret as stored: sealed when the operator gave a key encryption key.
    fn seal(&self, secret: &SigningSecret) -> String {
        use base64::Engine;
        match &self.kek {
            Some(kek) => kek.seal(secret.bytes()),
            None => base64::engine::general_purpose::STANDARD.encode(secret.bytes()),
        }
    }
}
