//! Live updates: every accepted move announces `(match id, version)`, and every notification
//! sequenced into an account's stream `(account topic, seq)` (see [`account_topic`]). In one
//! process an announcement wakes only the readers waiting on its topic (a watch channel per
//! topic that has any, so ten thousand held streams cost a move nothing but its own
//! readers); on PostgreSQL, `NOTIFY` carries them to every other process on the same
//! database, whose listener announces them there alike.
//!
//! A process sends its announcements to the others *after* the move has committed, batched,
//! from one background task. (A `NOTIFY` inside the move's own transaction would be simpler,
//! but PostgreSQL serialises the commits of all notifying transactions behind one lock held
//! across the commit's disk flush: measured here, that alone caps the whole cluster at
//! ~2,600 transactions per second where plain inserts reach ~14,000.)
//!
//! The notifier also knows the newest version announced for each match, which lets a view be
//! served from the state cache without asking the database. On SQLite (one server process per
//! database file) every write passes through this process, so a cached state stays current
//! until this process moves on. On PostgreSQL a cached state is trusted only while the
//! listener is connected, only for states read since it last (re)connected (its `epoch`), and
//! only for [`TRUSTED_FOR`] after the database last confirmed it: an announcement lost on the
//! way (a process dying between its commit and its `NOTIFY`) delays another process's views
//! by at most that long. Moves are always checked against the database's version.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};

use crate::store::Db;

/// The PostgreSQL channel moves are announced on. A payload is a comma-separated list of
/// `topic:version`.
pub const CHANNEL: &str = "kings_corner_events";

/// Most matches whose newest version is remembered; past it the memory is reset (and every
/// cached state must be checked against the database again).
const REMEMBERED: usize = 200_000;

/// How often the notifier asks the database whether the topics readers wait on moved: the
/// bound on the delay a lost announcement causes.
pub const CATCH_UP: Duration = Duration::from_secs(2);

/// On PostgreSQL, how long a cached state is served without asking the database again.
pub const TRUSTED_FOR: Duration = Duration::from_secs(10);

/// Announcements per `NOTIFY` (a payload must stay under PostgreSQL's 8,000 bytes; one is at
/// most 8 + 36 + 1 + 19 + 1 bytes).
const PER_NOTIFY: usize = 100;

/// The shortest time between two `NOTIFY`s of a process. Each is a transaction of its own,
/// and every listening process wakes for it: sent as fast as they could go, they were about
/// three per batch of moves (issue 40). Other processes' readers learn of a move at most this
/// much later: a long-poll or stream there wakes that much later, and a view read there in
/// that moment may be the one before (the mover has the new view in the move's answer).
const NOTIFY_EVERY: Duration = Duration::from_millis(5);

/// The topic an account's notifications are announced on (its newest `seq`). Match ids are
/// bare UUIDs, so the two kinds of topic never meet.
pub fn account_topic(account_id: &str) -> String {
    format!("{ACCOUNT_TOPIC}{account_id}")
}

/// What an account's topic begins with.
const ACCOUNT_TOPIC: &str = "account:";

/// The moment a read from the database began: a state read then is known to be the newest as
/// of this checkpoint.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoint {
    epoch: u64,
    at: Instant,
}

impl Checkpoint {
    /// A checkpoint no state is current for (a state not yet confirmed by the database).
    pub fn never() -> Checkpoint {
        Checkpoint {
            epoch: 0,
            at: Instant::now(),
        }
    }
}

/// The readers waiting on each topic: a watch channel per topic that has any, holding the
/// newest version announced since the first of them began to wait.
#[derive(Debug, Default)]
struct Waiters(Mutex<HashMap<String, watch::Sender<i64>>>);

impl Waiters {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, watch::Sender<i64>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wakes the readers of `topic` waiting for less than `version`; nobody else.
    fn tell(&self, topic: &str, version: i64) {
        if let Some(sender) = self.lock().get(topic) {
            sender.send_if_modified(|newest| {
                let newer = version > *newest;
                if newer {
                    *newest = version;
                }
                newer
            });
        }
    }

    /// A watch on `topic` from now on.
    fn watch(self: &Arc<Waiters>, topic: &str) -> Watch {
        let receiver = self
            .lock()
            .entry(topic.to_owned())
            .or_insert_with(|| watch::channel(i64::MIN).0)
            .subscribe();
        Watch {
            receiver: Some(receiver),
            topic: topic.to_owned(),
            waiters: self.clone(),
        }
    }
}

/// One reader's watch on a topic; the topic's channel goes with its last reader.
struct Watch {
    receiver: Option<watch::Receiver<i64>>,
    topic: String,
    waiters: Arc<Waiters>,
}

impl Watch {
    /// Waits until a version past `version` is announced.
    async fn past(&mut self, version: i64) {
        if let Some(receiver) = &mut self.receiver
            && receiver
                .wait_for(|announced| *announced > version)
                .await
                .is_ok()
        {
            return;
        }
        // The channel lives while a reader does: closed never happens, so wait for the timeout.
        std::future::pending::<()>().await
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut waiters = self.waiters.lock();
        self.receiver.take();
        if waiters
            .get(&self.topic)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            waiters.remove(&self.topic);
        }
    }
}

/// Announces and delivers `(match id, version)`.
#[derive(Clone, Debug)]
pub struct Notifier {
    waiters: Arc<Waiters>,
    /// To the task that tells the other processes (PostgreSQL only).
    outbox: Option<mpsc::UnboundedSender<(String, i64)>>,
    /// How long a confirmed state stays trusted; `None`: for as long as the epoch lasts.
    trusted_for: Option<Duration>,
    freshness: Arc<Freshness>,
    /// The longest any wait lasts, whatever its caller asked (`MAX_HOLD_SECONDS`).
    longest_wait: Duration,
}

#[derive(Debug)]
struct Freshness {
    /// Changes whenever announcements may have been missed (listener (re)connects, resets).
    epoch: AtomicU64,
    /// Whether every move of every process reaches this notifier now.
    complete: AtomicBool,
    latest: Mutex<HashMap<String, i64>>,
}

impl Notifier {
    fn with(complete: bool, trusted_for: Option<Duration>) -> Notifier {
        Notifier {
            waiters: Arc::default(),
            outbox: None,
            trusted_for,
            longest_wait: Duration::MAX,
            freshness: Arc::new(Freshness {
                epoch: AtomicU64::new(1),
                complete: AtomicBool::new(complete),
                latest: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// For a database only this process writes to (SQLite): it sees every write.
    pub fn in_process() -> Notifier {
        Notifier::with(true, None)
    }

    /// For PostgreSQL: listens for the other processes' announcements (complete once the
    /// listener is connected) and sends them this process's, for as long as the server runs.
    pub fn postgres(db: Db, database_url: &str) -> Notifier {
        let mut notifier = Notifier::with(false, Some(TRUSTED_FOR));
        let (outbox, pending) = mpsc::unbounded_channel();
        notifier.outbox = Some(outbox);
        tokio::spawn(publish(db, pending));
        tokio::spawn(listen(
            notifier.waiters.clone(),
            notifier.freshness.clone(),
            database_url.to_owned(),
        ));
        notifier
    }

    /// The same notifier, whose waits last at most `longest`.
    pub fn waiting_at_most(mut self, longest: Duration) -> Notifier {
        self.longest_wait = longest;
        self
    }

    /// Now, to be taken before a read from the database.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            epoch: self.freshness.epoch.load(Ordering::SeqCst),
            at: Instant::now(),
        }
    }

    /// Whether a state at `version`, confirmed by the database at `checkpoint`, is still the
    /// newest.
    pub fn is_current(&self, match_id: &str, version: i64, checkpoint: Checkpoint) -> bool {
        let freshness = &self.freshness;
        freshness.complete.load(Ordering::SeqCst)
            && freshness.epoch.load(Ordering::SeqCst) == checkpoint.epoch
            && self
                .trusted_for
                .is_none_or(|trusted_for| checkpoint.at.elapsed() < trusted_for)
            && freshness
                .latest
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .get(match_id)
                .is_none_or(|latest| *latest <= version)
    }

    fn note(freshness: &Freshness, match_id: &str, version: i64) {
        let mut latest = freshness
            .latest
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if latest.len() >= REMEMBERED {
            latest.clear();
            freshness.epoch.fetch_add(1, Ordering::SeqCst);
        }
        let entry = latest.entry(match_id.to_owned()).or_insert(version);
        *entry = (*entry).max(version);
    }

    /// Waits until `topic` passes `version` or `wait` (at most the notifier's longest wait)
    /// runs out; whether it passed (or may have: see below). Announcements wake it at once;
    /// one that never comes (lost while a listener reconnected, or never published by a
    /// process that died) is made up within [`CATCH_UP`] by the notifier's catch-up
    /// ([`Notifier::catching_up`]), which asks the database for every waited topic at once.
    /// `newest` (the database) is asked once, as the wait begins; its answering `None` (nothing
    /// to wait for any more, or the database failing) ends the wait at once, as passed, so
    /// that the reader reads and finds out.
    pub async fn wait_past<Newest, Asked>(
        &self,
        topic: &str,
        version: i64,
        wait: Duration,
        newest: Newest,
    ) -> bool
    where
        Newest: FnOnce() -> Asked,
        Asked: Future<Output = Option<i64>>,
    {
        let watch = self.waiters.watch(topic);
        // Asked after the watch began, so a change in between is not missed.
        if newest().await.is_none_or(|newest| newest > version) {
            return true;
        }
        self.wait(watch, version, wait).await
    }

    /// [`Notifier::wait_past`] for a reader whose previous wait on `topic` ran out just now
    /// with nothing new (a stream between two keep-alives): it does not ask the database
    /// first; should a version have come in the moment between the two waits, the catch-up
    /// tells it within [`CATCH_UP`]. So a quiet stream costs the database nothing.
    pub async fn wait_more(&self, topic: &str, version: i64, wait: Duration) -> bool {
        let watch = self.waiters.watch(topic);
        self.wait(watch, version, wait).await
    }

    async fn wait(&self, mut watch: Watch, version: i64, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait.min(self.longest_wait);
        tokio::time::timeout_at(deadline, watch.past(version))
            .await
            .is_ok()
    }

    /// The same notifier, which every [`CATCH_UP`] asks `db` for the newest version of every
    /// topic a reader waits on (a query per few hundred topics, whatever the number of
    /// readers) and announces here what moved: the bound on the delay a lost announcement
    /// causes. The task ends with the last clone of the notifier.
    pub fn catching_up(self, db: Db) -> Notifier {
        tokio::spawn(catch_up(
            db,
            Arc::downgrade(&self.waiters),
            self.freshness.clone(),
        ));
        self
    }

    /// Records a version the database reported, without announcing it.
    pub fn learned(&self, match_id: &str, version: i64) {
        Notifier::note(&self.freshness, match_id, version);
    }

    /// Announces a committed version to this process and (on PostgreSQL) to the others.
    pub fn announce(&self, match_id: &str, version: i64) {
        Notifier::note(&self.freshness, match_id, version);
        self.waiters.tell(match_id, version);
        if let Some(outbox) = &self.outbox {
            let _ = outbox.send((match_id.to_owned(), version));
        }
    }
}

/// Sends this process's announcements to the others: whatever queued up while the previous
/// `NOTIFY` was on its way, or within [`NOTIFY_EVERY`] of it, goes in the next one (each topic
/// once, at its newest version), so the rate of `NOTIFY`s adapts to the load and has a bound.
async fn publish(db: Db, mut pending: mpsc::UnboundedReceiver<(String, i64)>) {
    let mut received = Vec::with_capacity(PER_NOTIFY);
    let mut newest: HashMap<String, i64> = HashMap::with_capacity(PER_NOTIFY);
    let mut sent_at: Option<tokio::time::Instant> = None;
    while pending.recv_many(&mut received, PER_NOTIFY).await > 0 {
        if let Some(sent_at) = sent_at {
            tokio::time::sleep_until(sent_at + NOTIFY_EVERY).await;
        }
        loop {
            for (topic, version) in received.drain(..) {
                let known = newest.entry(topic).or_insert(version);
                *known = (*known).max(version);
            }
            if newest.len() >= PER_NOTIFY {
                break;
            }
            match pending.try_recv() {
                Ok(announcement) => received.push(announcement),
                Err(_) => break,
            }
        }
        sent_at = Some(tokio::time::Instant::now());
        let payload = newest
            .drain()
            .map(|(id, version)| format!("{id}:{version}"))
            .collect::<Vec<_>>()
            .join(",");
        if let Err(error) = db.notify(CHANNEL, &payload).await {
            // The listeners' trust window bounds what this costs them.
            tracing::warn!(%error, "could not announce moves to other processes");
        }
    }
}

/// Topics asked for per query of the catch-up.
const CAUGHT_UP_PER_QUERY: usize = 500;

/// Every [`CATCH_UP`], the newest version of every waited topic from the database, told to
/// its readers (who wake only if it passed what they wait for).
async fn catch_up(db: Db, waiters: std::sync::Weak<Waiters>, freshness: Arc<Freshness>) {
    loop {
        tokio::time::sleep(CATCH_UP).await;
        let Some(waiters) = waiters.upgrade() else {
            return;
        };
        let (mut matches, mut accounts) = (Vec::new(), Vec::new());
        for topic in waiters.lock().keys() {
            match topic.strip_prefix(ACCOUNT_TOPIC) {
                Some(account) => accounts.push(account.to_owned()),
                None => matches.push(topic.clone()),
            }
        }
        for ids in matches.chunks(CAUGHT_UP_PER_QUERY) {
            match db.match_versions(ids).await {
                Ok(versions) => {
                    for (id, version) in versions {
                        Notifier::note(&freshness, &id, version);
                        waiters.tell(&id, version);
                    }
                }
                Err(error) => tracing::warn!(%error, "could not catch up with matches' versions"),
            }
        }
        for ids in accounts.chunks(CAUGHT_UP_PER_QUERY) {
            match db.notification_seqs(ids).await {
                Ok(seqs) => {
                    for (id, seq) in seqs {
                        waiters.tell(&account_topic(&id), seq);
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "could not catch up with accounts' notifications")
                }
            }
        }
    }
}

/// Listens for other processes' announcements, reconnecting after the database restarts
/// (with a new epoch: notifications may have been lost meanwhile).
async fn listen(waiters: Arc<Waiters>, freshness: Arc<Freshness>, url: String) {
    loop {
        match sqlx::postgres::PgListener::connect(&url).await {
            Ok(mut listener) => {
                if let Err(error) = listener.listen(CHANNEL).await {
                    tracing::warn!(%error, "LISTEN failed");
                } else {
                    // Anything before this moment may have been missed: a new epoch.
                    freshness.epoch.fetch_add(1, Ordering::SeqCst);
                    freshness.complete.store(true, Ordering::SeqCst);
                    // `try_recv` gives None when the connection dropped, rather than
                    // reconnecting silently past missed notifications.
                    while let Ok(Some(notification)) = listener.try_recv().await {
                        for announced in notification.payload().split(',') {
                            if let Some((id, version)) = announced.rsplit_once(':')
                                && let Ok(version) = version.parse()
                            {
                                Notifier::note(&freshness, id, version);
                                waiters.tell(id, version);
                            }
                        }
                    }
                }
                freshness.complete.store(false, Ordering::SeqCst);
                freshness.epoch.fetch_add(1, Ordering::SeqCst);
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for moves of other processes")
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_current_until_a_newer_version_is_announced() {
        let notifier = Notifier::in_process();
        let checkpoint = notifier.checkpoint();
        assert!(notifier.is_current("m", 4, checkpoint));
        notifier.announce("m", 4);
        assert!(notifier.is_current("m", 4, checkpoint));
        notifier.announce("m", 6);
        assert!(!notifier.is_current("m", 4, checkpoint));
        assert!(notifier.is_current("m", 6, checkpoint));
        assert!(notifier.is_current("other", 1, checkpoint));
        notifier.learned("other", 2);
        assert!(!notifier.is_current("other", 1, checkpoint));
    }

    #[tokio::test]
    async fn an_announcement_wakes_the_readers_of_its_topic_only() {
        let notifier = Notifier::in_process();
        let database = || async { Some(3) };
        let waiting = |topic: &'static str| {
            let notifier = notifier.clone();
            tokio::spawn(async move {
                notifier
                    .wait_past(topic, 3, Duration::from_secs(60), database)
                    .await
            })
        };
        let (on_a, on_b) = (waiting("a"), waiting("b"));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            notifier.waiters.lock().len(),
            2,
            "a channel per topic waited on"
        );
        notifier.announce("b", 3);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !on_b.is_finished(),
            "b's reader woke for the version it had"
        );
        notifier.announce("b", 4);
        tokio::time::timeout(Duration::from_secs(1), on_b)
            .await
            .expect("b's reader woke")
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!on_a.is_finished(), "a's reader woke for b");
        assert_eq!(
            notifier.waiters.lock().len(),
            1,
            "b's channel went with its reader"
        );
        notifier.announce("a", 9);
        tokio::time::timeout(Duration::from_secs(1), on_a)
            .await
            .expect("a's reader woke")
            .unwrap();
        assert!(notifier.waiters.lock().is_empty());
    }

    #[test]
    fn a_new_epoch_or_a_lapsed_trust_window_sends_reads_to_the_database() {
        let notifier = Notifier::with(true, Some(Duration::from_millis(30)));
        let checkpoint = notifier.checkpoint();
        assert!(notifier.is_current("m", 1, checkpoint));
        std::thread::sleep(Duration::from_millis(40));
        assert!(!notifier.is_current("m", 1, checkpoint), "trusted too long");
        assert!(notifier.is_current("m", 1, notifier.checkpoint()));

        let checkpoint = notifier.checkpoint();
        notifier.freshness.epoch.fetch_add(1, Ordering::SeqCst);
        assert!(
            !notifier.is_current("m", 1, checkpoint),
            "from an old epoch"
        );

        notifier.freshness.complete.store(false, Ordering::SeqCst);
        assert!(
            !notifier.is_current("m", 1, notifier.checkpoint()),
            "listener down"
        );
    }
}

/// Wakes a background task of this process before its next look (the notification relay, the
/// webhook deliverer, the bots).
#[derive(Clone, Debug, Default)]
pub struct Wake(Arc<tokio::sync::Notify>);

impl Wake {
    /// Wakes the task (once, however often it is called before the task looks).
    pub fn wake(&self) {
        self.0.notify_one();
    }

    /// Waits until woken.
    pub async fn woken(&self) {
        self.0.notified().await;
    }
}
