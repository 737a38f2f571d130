//! Group commit: one writer task per process gathers the appends of concurrent moves and
//! writes them together, in one statement on PostgreSQL (`postgres.rs`) and in one transaction
//! on SQLite (`sqlite.rs`). Alone, each append costs a commit and its disk flush; together,
//! many moves share one.
//!
//! The writer takes every append that queued while the previous batch was written. At most one
//! append per match goes in a batch (a second one for the same match waits for the next), and
//! every append keeps its own outcome: written, or refused (`Ok(false)`: a stale version, a
//! unique key) without failing the others. If a batch fails as a whole (a deadlock with
//! another process, a duplicate key on PostgreSQL), each of its appends is retried alone, so
//! one bad append cannot fail others. When the database is unavailable, every append of the
//! batch fails at once instead, and nothing of it was written (or, past the commit, nobody can
//! tell: `Unconfirmed`).

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};

use super::{Append, postgres, sqlite};
use crate::instruments;
use crate::store::{Backend, Db, StoreError};

/// Most appends in one batch.
const MOST_PER_BATCH: usize = 64;

/// Appends waiting for the writer before senders wait for room.
const QUEUE: usize = 4096;

struct Job {
    append: Append,
    done: oneshot::Sender<Result<bool, StoreError>>,
}

/// The handle moves send their appends through.
#[derive(Clone, Debug)]
pub struct Batcher {
    queue: mpsc::Sender<Job>,
    counts: Arc<Counts>,
}

/// How much the writer has gathered: appends written per batch.
#[derive(Debug, Default)]
struct Counts {
    batches: AtomicU64,
    appends: AtomicU64,
    retried: AtomicU64,
}

/// What the writer did so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statistics {
    /// Batches written: statements on PostgreSQL, transactions on SQLite (retries alone not
    /// counted).
    pub batches: u64,
    /// Appends those batches carried.
    pub appends: u64,
    /// Batches that failed as a whole, so that each of their appends was retried alone.
    pub retried: u64,
}

impl Batcher {
    /// Starts the writer task over `db`.
    pub fn start(db: Db) -> Batcher {
        let (queue, jobs) = mpsc::channel(QUEUE);
        let counts = Arc::new(Counts::default());
        tokio::spawn(write(db, jobs, counts.clone()));
        Batcher { queue, counts }
    }

    /// What the writer did so far.
    pub fn statistics(&self) -> Statistics {
        Statistics {
            batches: self.counts.batches.load(Ordering::Relaxed),
            appends: self.counts.appends.load(Ordering::Relaxed),
            retried: self.counts.retried.load(Ordering::Relaxed),
        }
    }

    /// Appends, with the same outcome as alone: `Ok(false)` when the match was not at the
    /// expected version (or a unique key refused the write).
    pub async fn append(&self, append: Append) -> Result<bool, StoreError> {
        let (done, outcome) = oneshot::channel();
        self.queue
            .send(Job { append, done })
            .await
            .map_err(|_| StoreError::Unavailable(sqlx::Error::PoolClosed))?;
        outcome
            .await
            .map_err(|_| StoreError::Unavailable(sqlx::Error::PoolClosed))?
    }
}

/// The writer: one batch at a time, each with every append that waited for it.
async fn write(db: Db, mut jobs: mpsc::Receiver<Job>, counts: Arc<Counts>) {
    let mut waiting: VecDeque<Job> = VecDeque::new();
    loop {
        if waiting.is_empty() {
            match jobs.recv().await {
                Some(job) => waiting.push_back(job),
                None => return,
            }
        }
        while waiting.len() < QUEUE
            && let Ok(job) = jobs.try_recv()
        {
            waiting.push_back(job);
        }
        let mut batch = Vec::new();
        let mut matches = HashSet::new();
        let mut later = VecDeque::new();
        for job in waiting.drain(..) {
            if batch.len() < MOST_PER_BATCH && matches.insert(job.append.match_id.clone()) {
                batch.push(job);
            } else {
                later.push_back(job);
            }
        }
        waiting = later;
        // PostgreSQL locks rows in the order the statement reaches them: the same order in
        // every process keeps two processes' statements from deadlocking on two matches.
        batch.sort_by(|one, other| one.append.match_id.cmp(&other.append.match_id));
        counts.batches.fetch_add(1, Ordering::Relaxed);
        counts
            .appends
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        run(&db, batch, &counts).await;
    }
}

async fn run(db: &Db, batch: Vec<Job>, counts: &Counts) {
    // On PostgreSQL the end of a rated match goes alone, in a transaction of its own.
    let (alone_jobs, batch): (Vec<Job>, Vec<Job>) = batch
        .into_iter()
        .partition(|job| db.backend() == Backend::Postgres && job.append.ratings.is_some());
    for job in alone_jobs {
        let _ = job.done.send(alone(db, &job.append).await);
    }
    if batch.is_empty() {
        return;
    }
    let appends: Vec<&Append> = batch.iter().map(|job| &job.append).collect();
    let started = Instant::now();
    let outcome = match db.backend() {
        Backend::Postgres => postgres::write_batch(db, &appends).await,
        Backend::Sqlite => sqlite::write_batch(db, &appends).await,
    };
    match outcome {
        Ok(written) => {
            instruments::batch_committed(batch.len(), started.elapsed());
            for job in batch {
                let _ = job.done.send(Ok(written.contains(&job.append.match_id)));
            }
        }
        // The database is away: retrying alone would only make each append wait its own
        // timeout in turn. Every append of the batch fails now: nothing was written or, past
        // the statement timeout, nobody can tell.
        Err(error) if error.is_unavailable() => {
            tracing::warn!(%error, appends = batch.len(), "the database is unavailable for appends");
            for job in batch {
                let _ = job.done.send(Err(same_failure(&error)));
            }
        }
        // A unique key refused the only append: a refusal like a stale version. (On SQLite
        // an append with a kept response is refused alone inside its batch, in a savepoint.)
        Err(StoreError::Conflict(_)) if batch.len() == 1 => {
            for job in batch {
                let _ = job.done.send(Ok(false));
            }
        }
        Err(error) => {
            tracing::debug!(%error, appends = batch.len(), "a batched append failed; retrying each alone");
            counts.retried.fetch_add(1, Ordering::Relaxed);
            for job in batch {
                let _ = job.done.send(alone(db, &job.append).await);
            }
        }
    }
}

/// One append in a batch of its own.
pub(super) async fn alone(db: &Db, append: &Append) -> Result<bool, StoreError> {
    match db.backend() {
        Backend::Postgres => postgres::append_alone(db, append).await,
        Backend::Sqlite => sqlite::append_alone(db, append).await,
    }
}

/// A copy of a batch's failure for each of its appends (errors do not clone), keeping what
/// matters to them: whether the statement was sent (then they are unconfirmed) or not.
fn same_failure(error: &StoreError) -> StoreError {
    match error {
        StoreError::Unavailable(sqlx::Error::PoolTimedOut) => {
            StoreError::Unavailable(sqlx::Error::PoolTimedOut)
        }
        StoreError::Unavailable(sqlx::Error::PoolClosed) => {
            StoreError::Unavailable(sqlx::Error::PoolClosed)
        }
        StoreError::Unavailable(unsent) => {
            StoreError::Unavailable(sqlx::Error::Io(std::io::Error::other(unsent.to_string())))
        }
        StoreError::Unconfirmed(_) => StoreError::Unconfirmed(None),
        _ => StoreError::TimedOut,
    }
}
