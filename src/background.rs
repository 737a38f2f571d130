//! The one way the server runs work nobody asked for (the clock sweep, the bots' turns, webhook
//! deliveries, deleted accounts' seats): a round at once, then one whenever the task is woken
//! (a write of this process made work due) or every so often besides (work other processes
//! made due, or that a process that died left behind). A round that took on a full batch is
//! followed by another at once; one that failed is logged and tried again at the next look.
//!
//! What makes the work safe with several processes on one database is the round's own claim:
//! each piece of work is leased to one process (see [`crate::store::work`] and
//! `matches::leased`), so a round may run anywhere, any number of times.

use std::fmt::Display;
use std::time::Duration;

use crate::live::Wake;

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
