//! PostgreSQL: appends from concurrent moves gathered into one statement (group commit).
//!
//! Each accepted move is one append: update the match's row if it is still at the expected
//! version, insert its events, keep its idempotent response, write its notifications. Alone, each costs a statement,
//! a commit and its disk flush. One writer task per process takes every append that queued
//! while the previous statement ran and writes them all in one statement, so the database
//! does one commit for many moves. Every append keeps its own outcome: the version check is
//! made row by row (`UPDATE … FROM` with `version = expected`), and a match's events and
//! response are written only if its row was.
//!
//! At most one append per match goes in a statement (a second one for the same match waits
//! for the next); and if a statement fails as a whole (a deadlock with another process, a
//! duplicate key), each of its appends is retried alone, so one bad append cannot fail others.
//! When the database is unreachable, every append of the statement fails at once instead.
//! A batch of one, and an append inside a caller's transaction, run the same statement.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::Serialize;
use sqlx::AnyConnection;
use tokio::sync::{mpsc, oneshot};

use super::Append;
use crate::instruments;
use crate::model::{Named, Outcome};
use crate::store::{Db, StoreError, query_as};

/// Most appends in one statement.
const MOST_PER_STATEMENT: usize = 64;

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

/// How much the writer has gathered: appends written per statement.
#[derive(Debug, Default)]
struct Counts {
    statements: AtomicU64,
    appends: AtomicU64,
    retried: AtomicU64,
}

/// What the writer did so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statistics {
    /// Statements run (retries alone not counted).
    pub statements: u64,
    /// Appends those statements carried.
    pub appends: u64,
    /// Statements that failed as a whole, so that each of their appends was retried alone.
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
            statements: self.counts.statements.load(Ordering::Relaxed),
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

/// The writer: one statement at a time, each with every append that waited for it.
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
            if batch.len() < MOST_PER_STATEMENT && matches.insert(job.append.match_id.clone()) {
                batch.push(job);
            } else {
                later.push_back(job);
            }
        }
        waiting = later;
        // Rows are locked in the order the statement reaches them: the same order in every
        // process keeps two processes' statements from deadlocking on two matches.
        batch.sort_by(|one, other| one.append.match_id.cmp(&other.append.match_id));
        counts.statements.fetch_add(1, Ordering::Relaxed);
        counts
            .appends
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        run(&db, batch, &counts).await;
    }
}

async fn run(db: &Db, batch: Vec<Job>, counts: &Counts) {
    let appends: Vec<&Append> = batch.iter().map(|job| &job.append).collect();
    let started = Instant::now();
    let outcome = db
        .single(async |connection| append_together(connection, &appends).await)
        .await
        .map_err(StoreError::of_write);
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
        // A unique key refused the only append: a refusal like a stale version.
        Err(StoreError::Conflict(_)) if batch.len() == 1 => {
            for job in batch {
                let _ = job.done.send(Ok(false));
            }
        }
        Err(error) => {
            tracing::debug!(%error, appends = batch.len(), "a batched append failed; retrying each alone");
            counts.retried.fetch_add(1, Ordering::Relaxed);
            for job in batch {
                let outcome = db
                    .single(async |connection| write_one(connection, &job.append).await)
                    .await
                    .map_err(StoreError::of_write);
                let _ = job.done.send(outcome);
            }
        }
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

/// One append on the caller's connection (or in its transaction): the batch statement with a
/// batch of one. A unique key refusing it is a refusal, `Ok(false)`.
pub(super) async fn write_one(
    connection: &mut AnyConnection,
    append: &Append,
) -> Result<bool, StoreError> {
    match append_together(connection, &[append]).await {
        Ok(written) => Ok(!written.is_empty()),
        Err(StoreError::Conflict(_)) => Ok(false),
        Err(other) => Err(other),
    }
}

#[derive(Serialize)]
struct MoveRecord<'a> {
    id: &'a str,
    expected: i64,
    version: i64,
    status: &'a str,
    turn_seat: Option<u8>,
    turn_changed: bool,
    bot_turn: bool,
    winners: Option<String>,
    now: i64,
    deadline: Option<i64>,
    remind_at: Option<i64>,
    outcome: Option<&'static str>,
    final_totals: Option<String>,
}

#[derive(Serialize)]
struct EventRecord<'a> {
    id: &'a str,
    seq: i64,
    event: &'a str,
    hash: &'a str,
}

#[derive(Serialize)]
struct NotificationRecord<'a> {
    match_id: &'a str,
    /// Its order among the batch's notifications: the order they are numbered in.
    ord: usize,
    message_id: &'a str,
    account_id: &'a str,
    kind: &'a str,
    data: &'a str,
}

#[derive(Serialize)]
struct KeptRecord<'a> {
    account_id: &'a str,
    match_id: &'a str,
    key: &'a str,
    request_hash: &'a str,
    status: u16,
    response: &'a str,
}

/// Every append of a batch in one statement (see the file's comments).
const APPEND_TOGETHER: &str = include_str!("append_batch.sql");

/// Runs [`APPEND_TOGETHER`]; returns the matches whose rows were at their expected version and
/// so were written.
async fn append_together(
    connection: &mut AnyConnection,
    batch: &[&Append],
) -> Result<HashSet<String>, StoreError> {
    let mut moves = Vec::with_capacity(batch.len());
    let mut events = Vec::new();
    let mut kept = Vec::new();
    let mut notifications = Vec::new();
    for append in batch {
        moves.push(MoveRecord {
            id: &append.match_id,
            expected: append.expected_version,
            version: append.new_version(),
            status: append.model.status.name(),
            turn_seat: append.model.turn_seat,
            turn_changed: append.model.turn_changed,
            bot_turn: append.model.bot_turn,
            winners: append.model.winners_json(),
            now: append.now,
            deadline: append.model.deadline,
            remind_at: append.model.remind_at,
            outcome: append.model.outcome.map(Outcome::name),
            final_totals: append.model.final_totals_json(),
        });
        events.extend(append.events.iter().map(|event| EventRecord {
            id: &append.match_id,
            seq: event.seq,
            event: &event.event,
            hash: &event.hash,
        }));
        for notification in &append.notifications {
            notifications.push(NotificationRecord {
                match_id: &append.match_id,
                ord: notifications.len(),
                message_id: &notification.message_id,
                account_id: &notification.account_id,
                kind: notification.kind,
                data: &notification.data,
            });
        }
        if let Some(response) = &append.kept {
            kept.push(KeptRecord {
                account_id: &response.account_id,
                match_id: &append.match_id,
                key: &response.key,
                request_hash: &response.request_hash,
                status: response.status,
                response: &response.body,
            });
        }
    }
    let rows: Vec<(String,)> = query_as(APPEND_TOGETHER)
        .bind(to_json(&moves))
        .bind(to_json(&events))
        .bind(to_json(&kept))
        .bind(to_json(&notifications))
        .fetch_all(&mut *connection)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Records hold only strings, numbers and booleans: serialising them cannot fail.
fn to_json<T: Serialize>(rows: &[T]) -> String {
    serde_json::to_string(rows).expect("records serialise")
}
