//! Web Push for the web client (RFC 8030 delivery, RFC 8291 encryption, RFC 8292 VAPID): a
//! browser subscribes with the server's public key (`GET /v1/push/key`) and registers its
//! subscription (`POST /v1/me/push-subscriptions`, one per device); alerts chosen for push go to
//! every subscription of the account as encrypted messages, through an outbox sent with leases
//! as letters are. A subscription its push service says is gone (404, 410) is removed.
//!
//! Endpoints are URLs a client sends, so the requests go through the webhooks' guard: public
//! addresses only (checked on the addresses a name resolves to), no redirects, and private ones
//! only where the operator allowed them (`WEBHOOK_ALLOWED_NETWORKS`).
//!
//! # Layout
//! - this file: subscriptions as the API shows them, and their checks;
//! - [`encryption`]: RFC 8291's `aes128gcm` message encryption;
//! - [`vapid`]: the server's key pair and the JWT each request carries;
//! - `sender`: the background round that sends the outbox.

pub mod encryption;
mod sender;
pub mod vapid;

use base64::Engine;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::webhooks::address::check_url_of;
use super::{NotificationError, Notifications};
use crate::store::push::{Subscribed, SubscriptionRow};
use crate::time_source::rfc3339;
pub(super) use sender::Sender;

/// Most subscriptions (devices) an account may have.
pub const MOST_PER_ACCOUNT: usize = 10;

/// Longest device name.
const MOST_NAME: usize = 64;

/// The server's public key, for `PushManager.subscribe({applicationServerKey})`.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"public_key": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U"}))]
pub struct PushKey {
    /// base64url (no padding) of the uncompressed P-256 point.
    pub public_key: String,
}

/// A browser's push subscription: `PushSubscription.toJSON()` with a name for the device.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "name": "Maya's phone",
    "endpoint": "https://fcm.googleapis.com/fcm/send/dpH5l…",
    "expirationTime": null,
    "keys": {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM", "auth": "tBHItJI5svbpez7KI4CCXg"}
}))]
pub struct NewSubscription {
    /// The device, as its owner names it (1–64 characters).
    #[schema(min_length = 1, max_length = 64)]
    pub name: String,
    /// Where the push service takes this browser's messages (https, at most 2048 characters).
    #[schema(max_length = 2048)]
    pub endpoint: String,
    /// As the browser gives it; not used.
    #[serde(rename = "expirationTime", default)]
    pub expiration_time: Option<f64>,
    /// The browser's keys.
    pub keys: SubscriptionKeys,
}

/// The keys messages are encrypted to (RFC 8291).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionKeys {
    /// base64url of the browser's uncompressed P-256 public key (65 octets).
    #[schema(max_length = 100)]
    pub p256dh: String,
    /// base64url of the 16-octet auth secret.
    #[schema(max_length = 32)]
    pub auth: String,
}

/// A subscription as its owner sees it (the endpoint itself is a secret of the device's).
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "4b8c2a55-0f1e-4d7a-9a51-0f6c2b7d9e10", "name": "Maya's phone", "push_service": "https://fcm.googleapis.com", "created_at": "2026-12-06T10:00:00Z", "last_used_at": null}))]
pub struct SubscriptionView {
    /// Its id: `DELETE /v1/me/push-subscriptions/{id}`.
    #[schema(format = Uuid)]
    pub id: String,
    /// The device's name.
    pub name: String,
    /// The origin of its push service.
    pub push_service: String,
    /// When it was registered (RFC 3339).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// When its push service last took a message (RFC 3339).
    #[schema(format = DateTime)]
    pub last_used_at: Option<String>,
}

/// The account's subscriptions.
#[derive(Serialize, ToSchema)]
pub struct SubscriptionList {
    /// Oldest first.
    pub subscriptions: Vec<SubscriptionView>,
}

impl From<SubscriptionRow> for SubscriptionView {
    fn from(row: SubscriptionRow) -> SubscriptionView {
        SubscriptionView {
            push_service: url::Url::parse(&row.endpoint)
                .map(|url| url.origin().ascii_serialization())
                .unwrap_or_default(),
            id: row.id,
            name: row.name,
            created_at: rfc3339(row.created_at),
            last_used_at: row.last_used_at.map(rfc3339),
        }
    }
}

impl Notifications {
    /// The server's VAPID public key.
    pub fn push_key(&self) -> PushKey {
        PushKey {
            public_key: self.vapid.public_key().to_owned(),
        }
    }

    /// Registers a device's subscription (the same endpoint again updates its keys and name):
    /// `true` when it is new.
    pub async fn subscribe(
        &self,
        account_id: &str,
        request: NewSubscription,
    ) -> Result<(bool, SubscriptionView), NotificationError> {
        let invalid = |field: &'static str, detail: String| {
            NotificationError::InvalidSubscription { field, detail }
        };
        let name = request.name.trim();
        if name.is_empty() || name.chars().count() > MOST_NAME || name.chars().any(char::is_control)
        {
            return Err(invalid(
                "name",
                "name is 1 to 64 characters, without control characters".to_owned(),
            ));
        }
        let endpoint = check_url_of(
            "a push endpoint",
            &request.endpoint,
            &self.settings.webhooks.allowed_networks,
        )
        .map_err(|detail| invalid("endpoint", detail))?;
        let p256dh = decode(&request.keys.p256dh)
            .ok_or_else(|| invalid("keys", "keys.p256dh is base64url".to_owned()))?;
        let auth = decode(&request.keys.auth)
            .ok_or_else(|| invalid("keys", "keys.auth is base64url".to_owned()))?;
        encryption::check_keys(&p256dh, &auth)
            .map_err(|error| invalid("keys", error.to_string()))?;
        let row = SubscriptionRow {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: account_id.to_owned(),
            name: name.to_owned(),
            endpoint: endpoint.to_string(),
            p256dh: URL_SAFE_NO_PAD.encode(&p256dh),
            auth: URL_SAFE_NO_PAD.encode(&auth),
            created_at: self.clock.now(),
            last_used_at: None,
        };
        let (created, id) = match self.db.subscribe_push(&row, MOST_PER_ACCOUNT).await? {
            Subscribed::Created(id) => (true, id),
            Subscribed::Updated(id) => (false, id),
            Subscribed::TooMany => {
                return Err(NotificationError::TooManySubscriptions(MOST_PER_ACCOUNT));
            }
        };
        let stored = self
            .db
            .push_subscriptions(account_id)
            .await?
            .into_iter()
            .find(|subscription| subscription.id == id)
            .ok_or(NotificationError::SubscriptionNotFound)?;
        Ok((created, stored.into()))
    }

    /// The account's subscriptions.
    pub async fn subscriptions(
        &self,
        account_id: &str,
    ) -> Result<SubscriptionList, NotificationError> {
        Ok(SubscriptionList {
            subscriptions: self
                .db
                .push_subscriptions(account_id)
                .await?
                .into_iter()
                .map(SubscriptionView::from)
                .collect(),
        })
    }

    /// Removes one of the account's subscriptions.
    pub async fn unsubscribe_device(
        &self,
        account_id: &str,
        id: &str,
    ) -> Result<(), NotificationError> {
        if self.db.unsubscribe_push(account_id, id).await? {
            Ok(())
        } else {
            Err(NotificationError::SubscriptionNotFound)
        }
    }
}

/// base64url, padded or not (browsers' `toJSON()` pads in some versions).
fn decode(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD
        .decode(text)
        .or_else(|_| URL_SAFE.decode(text))
        .ok()
}
