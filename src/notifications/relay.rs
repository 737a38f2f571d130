//! The relay: a background task in every server process that tells the waiting readers
//! (here and, on PostgreSQL, in every other process) of the notifications written, and writes
//! the webhook deliveries and the alerts (email, push) they cause.
//!
//! A notification is numbered in its account's stream by the transaction that writes it
//! ([`crate::store::notifications`]); the writer wakes its own process's relay after its
//! commit, and the relay announces the accounts' newest `seq`. What must be fanned out is
//! queued with the notification; should the process die before its relay ran, any process's
//! relay finds the queue at its next look ([`LOOK_EVERY`]). The fan-out is one transaction,
//! one relay at a time across processes, so a notification is fanned out exactly once.

use std::sync::Arc;
use std::time::Duration;

use super::Wake;
use crate::live::{Notifier, account_topic};
use crate::store::notifications::{Relayed, Waiting};
use crate::store::{Db, StoreError, Told};
use crate::time_source::Clock;

/// Most notifications numbered or fanned out in one transaction.
const BATCH: i64 = 256;

/// Most accounts whose newest `seq` is read in one query.
const ANNOUNCED_PER_READ: usize = 500;

/// How often the relay looks for notifications nobody woke it for.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// How often expired notifications are deleted, and most deleted at once.
const FORGET_EVERY: Duration = Duration::from_secs(3600);
const FORGET_BATCH: i64 = 1000;

/// Whether a run of the relay looks for queued work in the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Look {
    /// At start and every [`LOOK_EVERY`]: work of other processes, or of a process that died.
    Always,
    /// Woken by a writer here: only if a writer may have queued fan-out (most moves queue
    /// none, and the look would be a query per batch of moves).
    IfQueued,
}

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
            // Whatever a process that died left undone.
            self.relay(Look::Always).await;
            loop {
                // Woken by a writer here, or looking for what a process that died left (or a
                // process from before migration 0020 wrote).
                let look = match tokio::time::timeout(LOOK_EVERY, self.wake.woken()).await {
                    Ok(()) => Look::IfQueued,
                    Err(_) => Look::Always,
                };
                self.relay(look).await;
                if forgotten_at.elapsed() >= FORGET_EVERY {
                    forgotten_at = tokio::time::Instant::now();
                    self.forget().await;
                }
            }
        });
    }

    /// Tells the readers of every account told something since the last run, then does what
    /// waits: the fan-out of queued notifications, and the numbering of any written without a
    /// place (by a server from before migration 0020).
    async fn relay(&self, look: Look) {
        let told = self.db.take_told();
        let queued_here = told.fan_out;
        self.announce(told).await;
        if look == Look::IfQueued && !queued_here {
            return;
        }
        let waiting = self.db.notifications_waiting().await.unwrap_or(Waiting {
            unnumbered: true,
            queued: true,
        });
        if waiting.queued {
            self.drain(Db::fan_out_queued, "fanned out").await;
        }
        if waiting.unnumbered {
            self.drain(Db::number_leftovers, "numbered").await;
        }
    }

    /// Announces the newest `seq` of each account the store recorded as told: as its writer
    /// reported it, or read once its notifications were committed.
    async fn announce(&self, told: Told) {
        let (known, unknown) = told.split();
        for (account_id, seq) in known {
            self.live.announce(&account_topic(&account_id), seq);
        }
        for accounts in unknown.chunks(ANNOUNCED_PER_READ) {
            match self.db.notification_seqs(accounts).await {
                Ok(newest) => {
                    for (account_id, seq) in newest {
                        self.live.announce(&account_topic(&account_id), seq);
                    }
                }
                // The notifier's own catch-up finds them (`live::CATCH_UP`).
                Err(error) => tracing::warn!(%error, "new notifications could not be announced"),
            }
        }
    }

    /// Runs one kind of the relay's work a batch at a time until none is left.
    async fn drain<Work>(&self, work: Work, done: &str)
    where
        Work: AsyncFn(&Db, i64, i64) -> Result<Relayed, StoreError>,
    {
        loop {
            match work(&self.db, BATCH, self.clock.now()).await {
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
                    tracing::warn!(%error, "notifications could not be {done}");
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
