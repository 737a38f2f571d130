//! The push sender: a background task in every server process that sends the outbox of push
//! messages, claimed with leases as letters are. Each message is encrypted to its subscription
//! when it is sent and posted with a VAPID token for the push service's origin. A 2xx is sent;
//! 404 or 410 removes the subscription; 429, 5xx or no answer is retried with backoff for a
//! day; any other answer gives the message up.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::redirect::Policy;

use super::encryption::encrypt;
use super::vapid::VapidKey;
use crate::background::{self, LEASE_SECONDS, Schedule, renewing};
use crate::instruments::{self, PushOutcome};
use crate::live::Wake;
use crate::notifications::webhooks::address::{AllowedNetworks, GuardedResolver, refused_literal};
use crate::store::push::OutgoingPush;
use crate::store::{Db, StoreError};
use crate::time_source::Clock;

const LOOK_EVERY: Duration = Duration::from_secs(2);
const CLAIM: i64 = 16;
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long a push service keeps a message for a device that is offline (RFC 8030 §5.2).
const TTL_SECONDS: u32 = 86_400;
/// The first retry waits about this long; each next one twice as long, up to the longest.
const FIRST_WAIT_SECONDS: i64 = 15;
const LONGEST_WAIT_SECONDS: i64 = 3600;
/// A message refused for this long is given up: a day later it is no longer news.
const GIVE_UP_AFTER_SECONDS: i64 = 86_400;
/// How long messages sent or given up are kept.
const KEEP_SECONDS: i64 = 7 * 86_400;

/// Sends push messages.
pub(in crate::notifications) struct Sender {
    db: Db,
    clock: Arc<dyn Clock>,
    wake: Wake,
    vapid: Arc<VapidKey>,
    subject: Option<String>,
    allowed: AllowedNetworks,
    client: reqwest::Client,
}

impl Sender {
    pub(in crate::notifications) fn new(
        db: Db,
        clock: Arc<dyn Clock>,
        wake: Wake,
        vapid: Arc<VapidKey>,
        subject: Option<String>,
        allowed: AllowedNetworks,
    ) -> Sender {
        let client = reqwest::Client::builder()
            .redirect(Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver::new(allowed.clone())))
            .timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .user_agent(concat!("kings-corner-push/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the push client builds");
        Sender {
            db,
            clock,
            wake,
            vapid,
            subject,
            allowed,
            client,
        }
    }

    /// Runs for as long as the server runs.
    pub(in crate::notifications) fn start(self) {
        let schedule = Schedule {
            name: "push messages",
            every: LOOK_EVERY,
            wake: Some(self.wake.clone()),
            batch: Some(CLAIM as usize),
        };
        let sender = Arc::new(self);
        background::keep_running(schedule, move || {
            let sender = sender.clone();
            async move { sender.round().await }
        });
    }

    async fn round(&self) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let _ = self.db.forget_pushes(now - KEEP_SECONDS).await;
        let claimed = self
            .db
            .claim_pushes(now, now + LEASE_SECONDS, CLAIM)
            .await?;
        let ids: Vec<String> = claimed.iter().map(|push| push.id.clone()).collect();
        let work = claimed.iter().map(|push| self.deliver(push));
        renewing(futures_util::future::join_all(work), || {
            self.db.renew_pushes(&ids, self.clock.now() + LEASE_SECONDS)
        })
        .await;
        Ok(ids.len())
    }

    async fn deliver(&self, push: &OutgoingPush) {
        let outcome = self.post(push).await;
        let now = self.clock.now();
        let recorded = match outcome {
            Ok(status) if (200..300).contains(&status) => {
                instruments::push_sent(PushOutcome::Sent);
                self.db.push_sent(push, now).await
            }
            Ok(404 | 410) => {
                instruments::push_sent(PushOutcome::Gone);
                self.db.push_subscription_gone(&push.subscription.id).await
            }
            Ok(status) if status == 429 || status >= 500 => {
                self.retry(push, now, format!("answered {status}")).await
            }
            Ok(status) => {
                instruments::push_sent(PushOutcome::Failed);
                self.db
                    .push_failed(&push.id, now, None, &format!("answered {status}"))
                    .await
            }
            Err(error) => self.retry(push, now, error).await,
        };
        if let Err(error) = recorded {
            tracing::warn!(push = %push.id, %error, "could not record what became of a push message");
        }
    }

    async fn retry(&self, push: &OutgoingPush, now: i64, error: String) -> Result<(), StoreError> {
        if now - push.created_at >= GIVE_UP_AFTER_SECONDS {
            instruments::push_sent(PushOutcome::Failed);
            return self.db.push_failed(&push.id, now, None, &error).await;
        }
        instruments::push_sent(PushOutcome::Retried);
        let wait = background::backoff(push.attempts + 1, FIRST_WAIT_SECONDS, LONGEST_WAIT_SECONDS);
        self.db
            .push_failed(&push.id, now, Some(now + wait), &error)
            .await
    }

    /// The push service's status, or why there was none.
    async fn post(&self, push: &OutgoingPush) -> Result<u16, String> {
        let endpoint =
            reqwest::Url::parse(&push.subscription.endpoint).map_err(|error| error.to_string())?;
        if let Some(address) = refused_literal(&endpoint, &self.allowed) {
            return Err(format!(
                "{address} is not a public address, and the server's operator has not allowed it"
            ));
        }
        let p256dh = URL_SAFE_NO_PAD
            .decode(&push.subscription.p256dh)
            .map_err(|error| error.to_string())?;
        let auth = URL_SAFE_NO_PAD
            .decode(&push.subscription.auth)
            .map_err(|error| error.to_string())?;
        let body =
            encrypt(push.payload.as_bytes(), &p256dh, &auth).map_err(|error| error.to_string())?;
        let authorization =
            self.vapid
                .authorization(&endpoint, self.subject.as_deref(), self.clock.now());
        let response = self
            .client
            .post(endpoint)
            .header("authorization", authorization)
            .header("ttl", TTL_SECONDS.to_string())
            .header("content-encoding", "aes128gcm")
            .header("content-type", "application/octet-stream")
            .header("urgency", "normal")
            .body(body)
            .send()
            .await
            .map_err(|error| {
                if error.is_timeout() {
                    "no answer within 10 s".to_owned()
                } else {
                    "could not reach the push service".to_owned()
                }
            })?;
        Ok(response.status().as_u16())
    }
}
