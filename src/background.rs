//! The one way the server runs work nobody asked for (the clock sweep, the bots' turns, webhook
//! deliveries, deleted accounts' seats): a round at once, then one whenever the task is woken
//! (a write of this process made work due) or every so often besides (work other processes
//! made due, or that a process that died left behind). A round that took on a full batch is
//! followed by another at once; one that failed is logged and tried again at the next look.
//!
//! What makes the work safe with several processes on one database is the round's own claim:
//! each piece of work is leased to one process (see [`crate::store::work`] and
//! `matches::leased`), so a round may run anywhere, any number of times. Leases are short
//! ([`LEASE_SECONDS`]) and renewed while the work goes on ([`renewing`]): a process that dies
//! holding work keeps it from the others for a few seconds only.

use std::fmt::Display;
use std::time::Duration;

use crate::live::Wake;

/// How long a claim on background work holds unless renewed: the longest a process that died
/// (SIGKILL, a lost machine) keeps its claimed work from the others.
pub const LEASE_SECONDS: i64 = 5;

/// How often a claim's lease is renewed while its work goes on: often enough that a renewal
/// or two may be late without the lease running out.
pub const RENEW_EVERY: Duration = Duration::from_millis(1500);

/// Runs `work` to its end, calling `renew` every [`RENEW_EVERY`] meanwhile, so that a lease
/// stays short however long the work under it takes. A failed renewal is logged and the work
/// goes on: should another process take the work over meanwhile, what it writes is checked
/// against the match's version (or, for a webhook, sent again with the same id), so the cost
/// is a lost race, never work done twice.
pub async fn renewing<T, Renew, Renewed, E>(work: impl Future<Output = T>, renew: Renew) -> T
where
    Renew: Fn() -> Renewed,
    Renewed: Future<Output = Result<(), E>>,
    E: Display,
{
    let mut work = std::pin::pin!(work);
    let mut every = tokio::time::interval(RENEW_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is at once: the claim was just made.
    every.tick().await;
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = every.tick() => {
                if let Err(error) = renew().await {
                    tracing::warn!(%error, "could not renew a lease on background work");
                }
            }
        }
    }
}

/// Seconds before the retry after the `failures`-th failed attempt of a delivery (a webhook's,
/// a letter's, a push message's): `first`, then twice as long each time up to `longest`, each
/// drawn between half and all of that (jitter, so that a receiver coming back is not hit by
/// every retry at once).
pub fn backoff(failures: i64, first: i64, longest: i64) -> i64 {
    let doubled = first.saturating_mul(1 << (failures - 1).clamp(0, 20));
    let ceiling = doubled.min(longest);
    let draw = u64::from_le_bytes(crate::random::bytes::<8>()) % (ceiling as u64 / 2 + 1);
    ceiling / 2 + draw as i64
}

/// When a task's rounds run.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// What the log calls the work.
    pub name: &'static str,
    /// The longest wait between two rounds.
    pub every: Duration,
    /// What wakes the task before then, if anything.
    pub wake: Option<Wake>,
    /// A round that took on this many pieces of work is followed by another at once.
    pub batch: Option<usize>,
}

/// Runs `round` on `schedule` for as long as the server runs. A round answers how many pieces
/// of work it took on.
pub fn keep_running<Round, Fut, E>(schedule: Schedule, round: Round)
where
    Round: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = Result<usize, E>> + Send,
    E: Display,
{
    tokio::spawn(async move {
        loop {
            match round().await {
                Ok(taken) if schedule.batch.is_some_and(|batch| taken >= batch) => continue,
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(work = schedule.name, %error, "a round of background work failed");
                }
            }
            match &schedule.wake {
                Some(wake) => {
                    let _ = tokio::time::timeout(schedule.every, wake.woken()).await;
                }
                None => tokio::time::sleep(schedule.every).await,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_lease_is_renewed_while_the_work_goes_on_and_not_after() {
        let renewals = AtomicUsize::new(0);
        let renew = || {
            renewals.fetch_add(1, Ordering::SeqCst);
            std::future::ready(Ok::<(), String>(()))
        };
        let answer = renewing(
            async {
                tokio::time::sleep(RENEW_EVERY * 2 + Duration::from_millis(300)).await;
                42
            },
            renew,
        )
        .await;
        assert_eq!(answer, 42);
        assert_eq!(renewals.load(Ordering::SeqCst), 2);
        tokio::time::sleep(RENEW_EVERY).await;
        assert_eq!(renewals.load(Ordering::SeqCst), 2, "none after the work");
    }
}
