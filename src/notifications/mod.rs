//! The notification service: what each account is told while it is not watching, on an
//! account-wide stream (long-polled or followed as Server-Sent Events) and by signed webhooks.
//!
//! Notifications are written by the services whose changes cause them, in the same
//! transaction ([`Notice::to`]); the [`relay`] numbers them into each account's stream and
//! writes the webhook deliveries, which the [`webhooks`] deliverer sends.
//!
//! # Layout
//! - this file: [`Notifications`], the account's stream;
//! - [`notice`]: the types of notification and their fields;
//! - `relay`: numbering, fan-out to webhooks, expiry;
//! - [`webhooks`]: registration, signing, delivery, and the guard on where requests may go;
//! - [`alerts`]: alerts by email away from the table (settings, digests, quiet hours,
//!   unsubscribing), [`push`]: the same by Web Push, and [`presence`]: who is watching live,
//!   and so needs none;
//! - [`error`] holds [`NotificationError`].

pub mod alerts;
pub mod error;
pub mod notice;
pub mod presence;
pub mod push;
mod relay;
pub mod webhooks;

use std::borrow::Borrow;
use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::sealing::KeyEncryptionKey;
use crate::follow::{self, Followed, NumberedLog, Page};
pub use crate::live::Wake;
use crate::live::{Notifier, account_topic};
use crate::mail::Mail;
use crate::store::Db;
use crate::time_source::Clock;
pub use error::NotificationError;
pub use notice::{Notice, Notification};
use presence::Presence;
use webhooks::{Deliverer, WebhookSettings};

/// Most notifications in one page.
const MOST_PER_PAGE: i64 = 500;

/// Longest long-poll, in seconds.
const MAX_WAIT_SECONDS: u64 = 60;

/// The notification service.
pub struct Notifications {
    db: Db,
    live: Notifier,
    clock: Arc<dyn Clock>,
    relay: Wake,
    deliveries: Wake,
    settings: NotificationSettings,
    kek: Option<Arc<KeyEncryptionKey>>,
    alerts: Wake,
    mail: Mail,
    presence: Presence,
    vapid: Arc<push::vapid::VapidKey>,
    pushes: Wake,
}

/// How long notifications are kept, and how webhooks are delivered.
#[derive(Clone, Debug)]
pub struct NotificationSettings {
    /// How long a notification is kept, in seconds (at least 30 days).
    pub retention_seconds: i64,
    /// How webhooks are delivered.
    pub webhooks: WebhookSettings,
    /// The server's public base URL (`PUBLIC_URL`): the VAPID token's `sub`, how a push
    /// service reaches the operator.
    pub public_url: Option<String>,
}

/// Where a page of the stream starts, how long to wait, and how much to take.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NotificationQuery {
    /// Notifications after this `seq` (default 0: from the oldest kept).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Seconds to wait for a notification when there is none yet (0–60, default 0).
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<u64>,
    /// Most notifications to return, 1–500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// A page of the account's stream.
#[derive(Serialize, ToSchema)]
pub struct NotificationPage {
    /// Notifications after `after`, oldest first.
    pub notifications: Vec<Notification>,
    /// The `seq` of the account's newest notification (0 before the first).
    pub newest: i64,
}

impl Notifications {
    /// The service over `db`; [`Notifications::start`] starts its background work.
    pub fn new(
        db: Db,
        live: Notifier,
        clock: Arc<dyn Clock>,
        settings: NotificationSettings,
        kek: Option<Arc<KeyEncryptionKey>>,
        mail: Mail,
        vapid: Arc<push::vapid::VapidKey>,
    ) -> Notifications {
        Notifications {
            vapid,
            pushes: Wake::default(),
            presence: Presence::new(db.clone(), clock.clone()),
            db,
            live,
            clock,
            relay: Wake::default(),
            deliveries: Wake::default(),
            settings,
            kek,
            alerts: Wake::default(),
            mail,
        }
    }

    /// Who is watching live in this process.
    pub fn presence(&self) -> &Presence {
        &self.presence
    }

    /// Wakes the relay: a writer of notifications calls it after its commit.
    pub fn relay(&self) -> Wake {
        self.relay.clone()
    }

    /// Starts the relay, the webhook deliverer, the alerts' composer, the push sender and the
    /// renewal of who is watching, for as long as the server runs.
    pub fn start(&self) {
        relay::Relay {
            db: self.db.clone(),
            live: self.live.clone(),
            clock: self.clock.clone(),
            wake: self.relay.clone(),
            deliveries: self.deliveries.clone(),
            alerts: self.alerts.clone(),
            retention_seconds: self.settings.retention_seconds,
        }
        .start();
        self.presence.start();
        alerts::Composer {
            db: self.db.clone(),
            clock: self.clock.clone(),
            wake: self.alerts.clone(),
            mail: self.mail.clone(),
            pushes: self.pushes.clone(),
        }
        .start();
        push::Sender::new(
            self.db.clone(),
            self.clock.clone(),
            self.pushes.clone(),
            self.vapid.clone(),
            self.settings.public_url.clone(),
            self.settings.webhooks.allowed_networks.clone(),
        )
        .start();
        Deliverer::new(
            self.db.clone(),
            self.clock.clone(),
            self.deliveries.clone(),
            self.settings.webhooks.clone(),
            self.kek.clone(),
        )
        .start();
    }

    /// A page of the caller's stream after `after`, waiting up to `wait` seconds for a first
    /// notification when there is none yet.
    pub async fn page(
        &self,
        account_id: &str,
        query: NotificationQuery,
    ) -> Result<NotificationPage, NotificationError> {
        let after = query.after.unwrap_or(0);
        let wait = query.wait.unwrap_or(0);
        let limit = query.limit.unwrap_or(100);
        if after < 0 {
            return Err(NotificationError::invalid_query(
                "after",
                "after is 0 or more",
            ));
        }
        if wait > MAX_WAIT_SECONDS {
            return Err(NotificationError::invalid_query(
                "wait",
                "wait is 0 to 60 seconds",
            ));
        }
        if !(1..=MOST_PER_PAGE).contains(&limit) {
            return Err(NotificationError::invalid_query(
                "limit",
                "limit is 1 to 500",
            ));
        }
        let log = AccountLog {
            notifications: self,
            account_id,
            limit,
        };
        let newest = self.db.newest_notification(account_id).await?;
        let wait = Duration::from_secs(wait);
        let (notifications, newest) = follow::poll(&log, newest, after, wait).await?;
        Ok(NotificationPage {
            notifications,
            newest,
        })
    }

    /// The caller's stream after `after` (from now on when `None`), notification by
    /// notification as they come, with a keep-alive after every quiet while. Ends if the
    /// database fails.
    pub async fn follow(
        self: Arc<Self>,
        account_id: &str,
        after: Option<i64>,
    ) -> Result<impl Stream<Item = Followed<Notification>> + use<>, NotificationError> {
        let after = match after {
            Some(after) => after,
            None => self.db.newest_notification(account_id).await?,
        };
        let presence = self.presence.clone();
        let log = AccountLog {
            notifications: self,
            account_id: account_id.to_owned(),
            limit: MOST_PER_PAGE,
        };
        Ok(presence
            .while_open(account_id, follow::follow(log, after))
            .await)
    }
}

/// An account's notifications, read `limit` at a time.
struct AccountLog<N, A> {
    notifications: N,
    account_id: A,
    limit: i64,
}

impl<N: Borrow<Notifications>, A: Borrow<str>> NumberedLog for AccountLog<N, A> {
    type Item = Notification;
    type Error = NotificationError;

    async fn after(&self, after: i64) -> Result<Page<Notification>, NotificationError> {
        let notifications: &Notifications = self.notifications.borrow();
        let stored = notifications
            .db
            .notifications_after(self.account_id.borrow(), after, self.limit)
            .await?;
        let through = stored.last().map_or(after, |stored| stored.seq);
        Ok(Page {
            items: stored
                .into_iter()
                .filter_map(Notification::decode)
                .collect(),
            through,
        })
    }

    async fn newest(&self) -> Result<i64, NotificationError> {
        let notifications: &Notifications = self.notifications.borrow();
        Ok(notifications
            .db
            .newest_notification(self.account_id.borrow())
            .await?)
    }

    async fn wait_past(&self, after: i64, wait: Duration) -> bool {
        let notifications: &Notifications = self.notifications.borrow();
        let account_id: &str = self.account_id.borrow();
        notifications
            .live
            .wait_past(&account_topic(account_id), after, wait, || async {
                notifications.db.newest_notification(account_id).await.ok()
            })
            .await
    }

    async fn wait_more(&self, after: i64, wait: Duration) -> bool {
        let notifications: &Notifications = self.notifications.borrow();
        let topic = account_topic(self.account_id.borrow());
        notifications.live.wait_more(&topic, after, wait).await
    }
}
