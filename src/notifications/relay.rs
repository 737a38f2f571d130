//! The relay: a background task in every server process that gives new notifications their
//! places in their accounts' streams, writes the webhook deliveries and the alerts (email,
//! push) they cause, and tells the
//! waiting readers (here and, on PostgreSQL, in every other process).
//!
//! The writer of a notification wakes its own process's relay after its commit. Should the
//! process die before that, any process's relay finds the notification at its next look
//! ([`LOOK_EVERY`]). Numbering is one transaction, one relay at a time across processes (see
//! [`crate::store::notifications`]), so a notification is numbered exactly once.

use std::sync::Arc;
use std::time::Duration;

use super::Wake;
use crate::live::{Notifier, account_topic};
use crate::store::Db;
use crate::time_source::Clock;

/// Most notifications numbered in one transaction.
const BATCH: i64 = 256;

/// How often the relay looks for notifications nobody woke it for.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// How often expired notifications are deleted, and most deleted at once.
const FORGET_EVERY: Duration = Duration::from_secs(3600);
const FORGET_BATCH: i64 = 1000;

/// What the relay needs.
pub(super) struct Relay {
    pub db: Db,
    pub live: Notifier,
    pub clock: Arc<dyn Clock>,
    /// Wakes this relay.
    pub wake: Wake,
    /// Wakes the webhook deliverer when deliveries were written.
    pub deliveries: Wake,
    /// Wakes the alerts' composer when alerts were written.
    pub alerts: Wake,
    /// How long notifications are kept, in seconds.
    pub retention_seconds: i64,
}

impl Relay {
    /// Runs for as long as the server runs.
    pub(super) fn start(self) {
        tokio::spawn(async move {
            let mut forgotten_at = tokio::time::Instant::now();
            self.forget().await;
            // Whatever a process that died left unnumbered.
            self.relay().await;
            loop {
                let woken = tokio::time::timeout(LOOK_EVERY, self.wake.woken())
                    .await
                    .is_ok();
                if woken || self.db.notifications_waiting().await.unwrap_or(false) {
                    self.relay().await;
                }
                if forgotten_at.elapsed() >= FORGET_EVERY {
                    forgotten_at = tokio::time::Instant::now();
                    self.forget().await;
                }
            }
        });
    }

    /// Numbers every waiting notification, a batch at a time.
    pub(super) async fn relay(&self) {
        loop {
            match self.db.relay_notifications(BATCH, self.clock.now()).await {
                Ok(relayed) => {
                    for (account_id, newest) in &relayed.accounts {
                        self.live.announce(&account_topic(account_id), *newest);
                    }
                    if relayed.deliveries > 0 {
                        self.deliveries.wake();
                    }
                    if relayed.alerts > 0 {
                        self.alerts.wake();
                    }
                    if relayed.notifications < BATCH as usize {
                        return;
                    }
                }
                Err(error) => {
                    // The next look tries again.
                    tracing::warn!(%error, "notifications could not be relayed");
                    return;
                }
            }
        }
    }

    /// Deletes the notifications older than the retention period.
    async fn forget(&self) {
        let before = self.clock.now() - self.retention_seconds;
        loop {
            match self.db.forget_notifications(before, FORGET_BATCH).await {
                Ok(deleted) if deleted == FORGET_BATCH as u64 => {}
                Ok(_) => return,
                Err(error) => {
                    tracing::warn!(%error, "expired notifications could not be deleted");
                    return;
                }
            }
        }
    }
}
