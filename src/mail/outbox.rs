//! The sender: a background task in every server process that sends the outbox's letters.
//!
//! It claims due letters (a lease; see [`crate::store::mail`]), sends them one SMTP
//! transaction each, and records each outcome: sent; a temporary refusal or a lost connection
//! retried after an exponential backoff with jitter, for up to [`GIVE_UP_AFTER_SECONDS`]; a
//! permanent refusal given up at once (and, when it names the mailbox, mail to the address
//! stops until it is verified again).
//!
//! A letter goes out once unless a process dies after the SMTP server accepted it and before
//! the outcome was recorded (a few milliseconds): then another process sends it again once
//! the lease runs out, with the same `Message-ID`.

use std::sync::Arc;
use std::time::Duration;

use super::smtp::{Sent, Transport};
use crate::background::{self, LEASE_SECONDS, Schedule, renewing};
use crate::instruments::{self, MailOutcome};
use crate::live::Wake;
use crate::store::mail::OutgoingMail;
use crate::store::{Db, StoreError};
use crate::time_source::Clock;

/// How often the sender looks for letters nobody woke it for (retries come due, other
/// processes' letters).
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// Most letters one process sends at once.
const CLAIM: i64 = 8;

/// The first retry waits about this long; each next one twice as long, up to the longest.
const FIRST_WAIT_SECONDS: i64 = 30;
const LONGEST_WAIT_SECONDS: i64 = 3600;

/// A letter the SMTP server has refused for this long is given up.
const GIVE_UP_AFTER_SECONDS: i64 = 3 * 86_400;

/// How long letters sent or given up are kept (for an operator looking into a complaint).
const KEEP_SECONDS: i64 = 7 * 86_400;

/// Sends the outbox's letters.
pub(super) struct Sender {
    db: Db,
    clock: Arc<dyn Clock>,
    wake: Wake,
    transport: Transport,
}

impl Sender {
    pub(super) fn new(db: Db, clock: Arc<dyn Clock>, wake: Wake, transport: Transport) -> Sender {
        Sender {
            db,
            clock,
            wake,
            transport,
        }
    }

    /// Runs for as long as the server runs.
    pub(super) fn start(self) {
        let schedule = Schedule {
            name: "mail",
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

    /// Claims the due letters and sends them, renewing the claims meanwhile; answers how many
    /// it claimed.
    async fn round(self: &Arc<Self>) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let _ = self.db.forget_letters(now - KEEP_SECONDS).await;
        let claimed = self
            .db
            .claim_letters(now, now + LEASE_SECONDS, CLAIM)
            .await?;
        let taken = claimed.len();
        let ids: Vec<String> = claimed.iter().map(|letter| letter.id.clone()).collect();
        let work = claimed.into_iter().map(|letter| {
            let sender = self.clone();
            async move { sender.deliver(letter).await }
        });
        renewing(futures_util::future::join_all(work), || {
            self.db
                .renew_letters(&ids, self.clock.now() + LEASE_SECONDS)
        })
        .await;
        Ok(taken)
    }

    /// Sends one claimed letter and records what became of it. (Logs name the letter and its
    /// account, never its address.)
    async fn deliver(&self, letter: OutgoingMail) {
        let outcome = self.transport.send(&letter).await;
        let now = self.clock.now();
        let recorded = match &outcome {
            Sent::Accepted => {
                instruments::mail_sent(MailOutcome::Sent);
                self.db.letter_sent(&letter.id, now).await
            }
            Sent::Later(error) if now - letter.created_at < GIVE_UP_AFTER_SECONDS => {
                tracing::warn!(letter = %letter.id, account = %letter.account_id, %error, "the SMTP server did not take a letter: it is tried again later");
                instruments::mail_sent(MailOutcome::Retried);
                let retry_at = now + backoff(letter.attempts + 1);
                self.db.letter_retry(&letter.id, retry_at, error).await
            }
            Sent::Later(error) => {
                tracing::warn!(letter = %letter.id, account = %letter.account_id, %error, "a letter was refused for three days: given up");
                instruments::mail_sent(MailOutcome::Failed);
                self.db.letter_failed(&letter, now, error, false).await
            }
            Sent::Never { error, stop } => {
                tracing::warn!(letter = %letter.id, account = %letter.account_id, %error, stops_address = stop, "the SMTP server refused a letter for good");
                instruments::mail_sent(MailOutcome::Failed);
                self.db.letter_failed(&letter, now, error, *stop).await
            }
        };
        if let Err(error) = recorded {
            // Left claimed: once the lease runs out it is sent again, with the same Message-ID.
            tracing::warn!(letter = %letter.id, %error, "could not record what became of a letter");
        }
    }
}

/// Seconds before the retry after the `failures`-th failed attempt: from
/// [`FIRST_WAIT_SECONDS`] up to [`LONGEST_WAIT_SECONDS`] ([`background::backoff`]).
fn backoff(failures: i64) -> i64 {
    background::backoff(failures, FIRST_WAIT_SECONDS, LONGEST_WAIT_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_from_half_a_minute_to_an_hour() {
        for _ in 0..100 {
            assert!((15..=30).contains(&backoff(1)));
            assert!((60..=120).contains(&backoff(3)));
            assert!((1800..=3600).contains(&backoff(40)));
        }
    }
}
