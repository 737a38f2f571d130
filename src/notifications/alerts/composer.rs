//! The composer: a background task in every server process that turns due alert queues into
//! letters. A queue is claimed with a lease; its alerts are checked against the account's
//! settings as they are now (kinds turned off since, an address no longer verified, what the
//! player has seen live since); if the schedule says they are not due yet, the queue is put
//! back with the moment they are; otherwise one letter holds them all, written into the mail
//! outbox in the transaction that deletes them, so every alert is in exactly one letter.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::letters::{self, Line};
use super::schedule_of;
use crate::auth::refresh;
use crate::background::{self, LEASE_SECONDS, Schedule, renewing};
use crate::live::Wake;
use crate::mail::{Letter, Mail, Purpose};
use crate::notifications::Notification;
use crate::store::alerts::{AlertQueue, Composed, PendingAlert};
use crate::store::notifications::StoredNotification;
use crate::store::{Db, StoreError};
use crate::time_source::Clock;

/// How often the composer looks for queues that came due without a wake (a digest's hour,
/// the end of quiet hours).
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// Most queues one process composes at once.
const CLAIM: i64 = 16;

/// Writes alert letters.
pub(in crate::notifications) struct Composer {
    pub db: Db,
    pub clock: Arc<dyn Clock>,
    pub wake: Wake,
    pub mail: Mail,
    /// Wakes the push sender.
    pub pushes: Wake,
}

impl Composer {
    /// Runs for as long as the server runs.
    pub(in crate::notifications) fn start(self) {
        let schedule = Schedule {
            name: "alerts",
            every: LOOK_EVERY,
            wake: Some(self.wake.clone()),
            batch: Some(CLAIM as usize),
        };
        let composer = Arc::new(self);
        background::keep_running(schedule, move || {
            let composer = composer.clone();
            async move { composer.round().await }
        });
    }

    async fn round(&self) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let claimed = self
            .db
            .claim_alert_queues(now, now + LEASE_SECONDS, CLAIM)
            .await?;
        let ids: Vec<String> = claimed.iter().map(|queue| queue.id.clone()).collect();
        let work = claimed.iter().map(|queue| async move {
            if let Err(error) = self.compose(queue).await {
                // Left claimed: taken up again once the lease runs out.
                tracing::warn!(%error, queue = %queue.id, "could not compose alerts");
            }
        });
        renewing(futures_util::future::join_all(work), || {
            self.db
                .renew_alert_queues(&ids, self.clock.now() + LEASE_SECONDS)
        })
        .await;
        Ok(ids.len())
    }

    async fn compose(&self, queue: &AlertQueue) -> Result<(), StoreError> {
        let now = self.clock.now();
        let (alerts, recipient) = self.db.queued_alerts(queue).await?;
        let through = alerts.last().map_or(i64::MAX, |alert| alert.id);
        let by_email = queue.channel == "email";
        let Some(recipient) = recipient
            .filter(|recipient| !by_email || (recipient.email.is_some() && self.mail.configured()))
        else {
            // No settings, no verified address (or no mail) any more: nothing to send.
            return self.db.alerts_sent(queue, through, None, now).await;
        };
        let kinds = if by_email {
            &recipient.settings.email_kinds
        } else {
            &recipient.settings.push_kinds
        };
        let wanted: Vec<&str> = kinds.split_whitespace().collect();
        let unseen: Vec<&PendingAlert> = alerts
            .iter()
            .filter(|alert| wanted.contains(&alert.kind.as_str()))
            .filter(|alert| {
                recipient
                    .watching_until
                    .is_none_or(|until| alert.created_at >= until)
            })
            .collect();
        let Some(oldest) = unseen.first() else {
            return self.db.alerts_sent(queue, through, None, now).await;
        };
        let schedule = schedule_of(&recipient.settings);
        let due = schedule.due_at(oldest.created_at, queue.last_sent_at);
        if due > now {
            return self.db.alert_queue_due(&queue.id, due).await;
        }
        let mut tables: HashMap<String, letters::Table> = HashMap::new();
        let mut lines: Vec<Line> = Vec::new();
        let mut first_match: Option<String> = None;
        let mut kinds: Vec<&str> = Vec::new();
        for alert in &unseen {
            let Some(notification) = Notification::decode(StoredNotification {
                seq: 0,
                message_id: alert.message_id.clone(),
                kind: alert.kind.clone(),
                data: alert.data.clone(),
                created_at: alert.created_at,
            }) else {
                continue;
            };
            let match_id = notification.notice.match_id().to_owned();
            first_match.get_or_insert_with(|| match_id.clone());
            if !tables.contains_key(&match_id) {
                let others = self
                    .db
                    .seats(&match_id)
                    .await?
                    .into_iter()
                    .filter(|seat| seat.account_id != queue.account_id)
                    .map(|seat| seat.username)
                    .collect();
                tables.insert(match_id.clone(), others);
            }
            lines.push(letters::line(
                &notification.notice,
                &tables[&match_id],
                &schedule.zone,
                |path| self.mail.link(path),
            ));
            if !kinds.contains(&alert.kind.as_str()) {
                kinds.push(&alert.kind);
            }
        }
        if lines.is_empty() {
            return self.db.alerts_sent(queue, through, None, now).await;
        }
        if !by_email {
            let payload =
                letters::push_payload(&lines, kinds_first(&unseen), first_match.as_deref());
            self.db
                .alerts_sent(
                    queue,
                    through,
                    Some(Composed::Push { payload: &payload }),
                    now,
                )
                .await?;
            self.pushes.wake();
            return Ok(());
        }
        let token = refresh::generate();
        let unsubscribe = self.mail.link(&format!("/v1/alerts/unsubscribe/{token}"));
        let (text, html) = letters::bodies(
            &recipient.username,
            &lines,
            &self.mail.link("/play/#/settings"),
            &unsubscribe,
        );
        let letter = Letter {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: queue.account_id.clone(),
            recipient: recipient.email.clone().unwrap_or_default(),
            purpose: Purpose::Alerts,
            subject: letters::subject(&lines, kinds[0]),
            text,
            html,
            unsubscribe_url: Some(unsubscribe),
        };
        self.db
            .alerts_sent(
                queue,
                through,
                Some(Composed::Letter {
                    letter: &letter,
                    token_hash: &refresh::hash(&token),
                    kinds: &kinds.join(" "),
                }),
                now,
            )
            .await?;
        self.mail.wake();
        Ok(())
    }
}

/// The kind of the first alert.
fn kinds_first<'a>(alerts: &[&'a PendingAlert]) -> &'a str {
    alerts.first().map_or("", |alert| alert.kind.as_str())
}
