//! Live updates: every accepted move announces `(match id, version)`. In one process a
//! broadcast channel carries it; on PostgreSQL, `NOTIFY` carries it to every other process
//! on the same database, whose listener re-broadcasts it locally.
//!
//! The notifier also knows the newest version announced for each match, which lets a view be
//! served from the state cache without asking the database: on SQLite (one server process per
//! database file) every write passes through this process; on PostgreSQL only while the
//! listener is connected, and only for states read since it last (re)connected (its `epoch`).
//! A view so served may trail another process's move by the time a `NOTIFY` takes to arrive;
//! moves are always checked against the database's version.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::store::{Backend, Db};

/// The PostgreSQL channel moves are announced on.
pub const CHANNEL: &str = "kings_corner_events";

/// Most matches whose newest version is remembered; past it the memory is reset (and every
/// cached state must be checked against the database again).
const REMEMBERED: usize = 200_000;

/// Announces and delivers `(match id, version)`.
#[derive(Clone, Debug)]
pub struct Notifier {
    sender: broadcast::Sender<(String, i64)>,
    freshness: Arc<Freshness>,
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
    /// A notifier; `complete` when this process sees every write (SQLite). On PostgreSQL it
    /// becomes complete once [`Notifier::listen`] is connected.
    pub fn new(complete: bool) -> Notifier {
        Notifier {
            sender: broadcast::channel(4096).0,
            freshness: Arc::new(Freshness {
                epoch: AtomicU64::new(1),
                complete: AtomicBool::new(complete),
                latest: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Receives every announcement from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<(String, i64)> {
        self.sender.subscribe()
    }

    /// The current epoch: a state read from the database now is current for this epoch.
    pub fn epoch(&self) -> u64 {
        self.freshness.epoch.load(Ordering::SeqCst)
    }

    /// Whether a state at `version`, read from the database in `epoch`, is still the newest.
    pub fn is_current(&self, match_id: &str, version: i64, epoch: u64) -> bool {
        let freshness = &self.freshness;
        freshness.complete.load(Ordering::SeqCst)
            && freshness.epoch.load(Ordering::SeqCst) == epoch
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

    /// Announces a new version to this process. (On PostgreSQL the append's transaction also
    /// sends `NOTIFY` on [`CHANNEL`], see [`Notifier::channel_for`], for the other processes.)
    pub fn announce(&self, match_id: &str, version: i64) {
        Notifier::note(&self.freshness, match_id, version);
        let _ = self.sender.send((match_id.to_owned(), version));
    }

    /// The channel an append should `NOTIFY` on: on PostgreSQL only.
    pub fn channel_for(db: &Db) -> Option<&'static str> {
        (db.backend() == Backend::Postgres).then_some(CHANNEL)
    }

    /// On PostgreSQL: listens for other processes' announcements for as long as the server runs,
    /// reconnecting after the database restarts (with a new epoch: notifications may be lost).
    pub fn listen(&self, database_url: &str) {
        let (sender, freshness, url) = (
            self.sender.clone(),
            self.freshness.clone(),
            database_url.to_owned(),
        );
        tokio::spawn(async move {
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
                                if let Some((id, version)) = notification.payload().rsplit_once(':')
                                    && let Ok(version) = version.parse()
                                {
                                    Notifier::note(&freshness, id, version);
                                    let _ = sender.send((id.to_owned(), version));
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
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        });
    }
}
