//! The deliverer: a background task in every server process that sends webhook deliveries.
//!
//! It claims due webhooks (a lease; see [`crate::store::webhooks`]), sends each one's pending
//! deliveries oldest first, and records every attempt. A failure stops that webhook's queue
//! until a retry, after an exponential backoff with jitter; once no attempt has succeeded for
//! the retry window (at least 24 hours), the webhook is disabled with the reason.
//!
//! Delivery is at least once: a process that dies after sending and before recording leaves
//! the delivery pending, and once its lease runs out another process sends it again, with the
//! same `webhook-id` for the receiver to drop.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::redirect::Policy;

use super::address::{AllowedNetworks, GuardedResolver, refused_literal};
use super::signing::{SigningSecret, open_secret};
use crate::auth::sealing::KeyEncryptionKey;
use crate::background::{self, LEASE_SECONDS, Schedule, renewing};
use crate::instruments::{self, Delivery};
use crate::notifications::{Notification, Wake};
use crate::store::webhooks::{AttemptOutcome, AttemptRow, Outgoing, WebhookRow};
use crate::store::{Db, StoreError};
use crate::time_source::Clock;

/// How often the deliverer looks for retries that came due.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// Most webhooks one process works on at once.
const CLAIM: i64 = 16;

/// The first retry waits about this long; each next one twice as long, up to [`LONGEST_WAIT`].
const FIRST_WAIT_SECONDS: i64 = 10;
const LONGEST_WAIT_SECONDS: i64 = 3600;

/// How webhooks are delivered.
#[derive(Clone, Debug)]
pub struct WebhookSettings {
    /// Networks requests may go to beside the public internet.
    pub allowed_networks: AllowedNetworks,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// How long a webhook is retried without a success before it is disabled, in seconds.
    pub retry_window_seconds: i64,
}

/// Sends webhook deliveries.
pub(in crate::notifications) struct Deliverer {
    db: Db,
    clock: Arc<dyn Clock>,
    wake: Wake,
    settings: WebhookSettings,
    kek: Option<Arc<KeyEncryptionKey>>,
    client: reqwest::Client,
}

impl Deliverer {
    pub(in crate::notifications) fn new(
        db: Db,
        clock: Arc<dyn Clock>,
        wake: Wake,
        settings: WebhookSettings,
        kek: Option<Arc<KeyEncryptionKey>>,
    ) -> Deliverer {
        let client = reqwest::Client::builder()
            .redirect(Policy::none())
            // A proxy would resolve names itself, past the guard.
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver::new(
                settings.allowed_networks.clone(),
            )))
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout.min(Duration::from_secs(5)))
            .user_agent(concat!("kings-corner-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the webhook client builds");
        Deliverer {
            db,
            clock,
            wake,
            settings,
            kek,
            client,
        }
    }

    /// Runs for as long as the server runs.
    pub(in crate::notifications) fn start(self) {
        let schedule = Schedule {
            name: "webhook deliveries",
            every: LOOK_EVERY,
            wake: Some(self.wake.clone()),
            batch: None,
        };
        let deliverer = Arc::new(self);
        background::keep_running(schedule, move || {
            let deliverer = deliverer.clone();
            async move { deliverer.round().await }
        });
    }

    /// How long one claim works through a webhook's queue before giving others their turn:
    /// a few attempts. (The lease itself is short and renewed meanwhile, so that the deliveries
    /// of a process that died are taken up within seconds.)
    fn turn(&self) -> Duration {
        self.settings.timeout * 3 + Duration::from_secs(5)
    }

    /// Claims the due webhooks and works through each one's queue, all at once, renewing the
    /// claims meanwhile; answers how many it claimed.
    async fn round(self: &Arc<Self>) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let claimed = self
            .db
            .claim_due_webhooks(now, now + LEASE_SECONDS, CLAIM)
            .await?;
        let taken = claimed.len();
        let ids: Vec<String> = claimed.iter().map(|webhook| webhook.id.clone()).collect();
        let work = claimed.into_iter().map(|webhook| {
            let deliverer = self.clone();
            tokio::spawn(async move { deliverer.work_through(webhook).await })
        });
        let done = renewing(futures_util::future::join_all(work), || {
            self.db
                .renew_webhooks(&ids, self.clock.now() + LEASE_SECONDS)
        })
        .await;
        for done in done {
            if let Err(error) = done {
                tracing::error!(%error, "a webhook delivery task failed");
            }
        }
        Ok(taken)
    }

    /// Sends a claimed webhook's pending deliveries in order until one fails, none is left, or
    /// the lease would run out; then gives the lease up.
    async fn work_through(&self, mut webhook: WebhookRow) {
        let claimed_at = Instant::now();
        let secret = match open_secret(&webhook.secret, self.kek.as_deref()) {
            Ok(secret) => secret,
            Err(error) => {
                tracing::error!(webhook = %webhook.id, %error, "a webhook's secret cannot be opened");
                return;
            }
        };
        while claimed_at.elapsed() + self.settings.timeout * 2 < self.turn() {
            let outgoing = match self.db.next_delivery(&webhook.id).await {
                Ok(Some(outgoing)) => outgoing,
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(%error, "could not read a webhook delivery");
                    break;
                }
            };
            let attempt = self.send(&webhook, &secret, &outgoing).await;
            let delivered = attempt.error.is_none();
            let outcome = self.outcome(&mut webhook, &outgoing, &attempt);
            if let Err(error) = self
                .db
                .record_attempt(&webhook.id, outgoing.delivery_id, &attempt, &outcome)
                .await
            {
                // Left pending: sent again once the lease runs out.
                tracing::warn!(%error, "could not record a webhook delivery");
                return;
            }
            instruments::delivery_attempted(match outcome {
                AttemptOutcome::Delivered => Delivery::Delivered,
                AttemptOutcome::Retry { .. } => Delivery::Failed,
                AttemptOutcome::Disable { .. } => Delivery::GivenUp,
            });
            if !delivered {
                break;
            }
        }
        if let Err(error) = self.db.release_webhook(&webhook.id).await {
            tracing::warn!(%error, "could not release a webhook");
        }
    }

    /// One attempt: the notification, signed, posted to the webhook's URL.
    async fn send(
        &self,
        webhook: &WebhookRow,
        secret: &SigningSecret,
        outgoing: &Outgoing,
    ) -> AttemptRow {
        let attempted_at = self.clock.now();
        let started = Instant::now();
        let outcome = self.post(webhook, secret, outgoing, attempted_at).await;
        let (status_code, error) = match outcome {
            Ok(status) if (200..300).contains(&status) => (Some(i64::from(status)), None),
            Ok(status) if (300..400).contains(&status) => (
                Some(i64::from(status)),
                Some(format!("answered {status}: redirects are not followed")),
            ),
            Ok(status) => (Some(i64::from(status)), Some(format!("answered {status}"))),
            Err(error) => (None, Some(error)),
        };
        AttemptRow {
            attempted_at,
            status_code,
            error,
            duration_ms: started.elapsed().as_millis() as i64,
        }
    }

    /// The status the receiver answered, or why there was none.
    async fn post(
        &self,
        webhook: &WebhookRow,
        secret: &SigningSecret,
        outgoing: &Outgoing,
        timestamp: i64,
    ) -> Result<u16, String> {
        let url = reqwest::Url::parse(&webhook.url).map_err(|error| error.to_string())?;
        if let Some(address) = refused_literal(&url, &self.settings.allowed_networks) {
            return Err(format!(
                "{address} is not a public address, and the server's operator has not allowed it"
            ));
        }
        let notification = Notification::decode(outgoing.notification.clone())
            .ok_or("the notification cannot be read back")?;
        let body = serde_json::to_string(&notification).expect("notifications serialise");
        let id = &outgoing.notification.message_id;
        let response = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", secret.sign(id, timestamp, &body))
            .body(body)
            .send()
            .await
            .map_err(|error| describe(&error, self.settings.timeout))?;
        Ok(response.status().as_u16())
    }

    /// What follows a recorded attempt: nothing more for a success; for a failure, a retry,
    /// or disabling the webhook once it has failed for the whole retry window.
    fn outcome(
        &self,
        webhook: &mut WebhookRow,
        outgoing: &Outgoing,
        attempt: &AttemptRow,
    ) -> AttemptOutcome {
        let Some(error) = &attempt.error else {
            webhook.failing_since = None;
            return AttemptOutcome::Delivered;
        };
        let now = attempt.attempted_at;
        let failing_since = *webhook.failing_since.get_or_insert(now);
        if now - failing_since >= self.settings.retry_window_seconds {
            return AttemptOutcome::Disable {
                reason: format!(
                    "No delivery succeeded for {} hours; the last attempt: {error}.",
                    (now - failing_since) / 3600
                ),
            };
        }
        AttemptOutcome::Retry {
            retry_at: now + backoff(outgoing.attempts + 1),
        }
    }
}

/// Seconds before the retry after the `failures`-th failed attempt: from
/// [`FIRST_WAIT_SECONDS`] up to [`LONGEST_WAIT_SECONDS`] ([`background::backoff`]).
fn backoff(failures: i64) -> i64 {
    background::backoff(failures, FIRST_WAIT_SECONDS, LONGEST_WAIT_SECONDS)
}

/// A failed request in a few words, with its cause (never the URL's query: it may hold a
/// receiver's token).
fn describe(error: &reqwest::Error, timeout: Duration) -> String {
    if error.is_timeout() {
        return format!("no answer within {} s", timeout.as_secs_f32());
    }
    let mut text = if error.is_connect() {
        "could not connect".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_exponentially_with_jitter_up_to_an_hour() {
        for _ in 0..200 {
            let first = backoff(1);
            assert!((5..=10).contains(&first), "{first}");
            let fourth = backoff(4);
            assert!((40..=80).contains(&fourth), "{fourth}");
            let late = backoff(30);
            assert!((1800..=3600).contains(&late), "{late}");
        }
        let draws: std::collections::HashSet<i64> = (0..50).map(|_| backoff(8)).collect();
        assert!(draws.len() > 10, "jittered: {draws:?}");
    }
}
