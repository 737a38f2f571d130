//! Live updates: every accepted move announces `(match id, version)`. In one process a
//! broadcast channel carries it; on PostgreSQL, `NOTIFY` carries it to every other process
//! on the same database, whose listener re-broadcasts it locally.

use tokio::sync::broadcast;

use crate::store::{Backend, Db};

/// The PostgreSQL channel moves are announced on.
pub const CHANNEL: &str = "kings_corner_events";

/// Announces and delivers `(match id, version)`.
#[derive(Clone, Debug)]
pub struct Notifier {
    sender: broadcast::Sender<(String, i64)>,
}

impl Default for Notifier {
    fn default() -> Notifier {
        Notifier {
            sender: broadcast::channel(4096).0,
        }
    }
}

impl Notifier {
    /// Receives every announcement from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<(String, i64)> {
        self.sender.subscribe()
    }

    /// Announces a new version to this process. (On PostgreSQL the append's transaction also
    /// sends `NOTIFY` on [`CHANNEL`], see [`Notifier::channel_for`], for the other processes.)
    pub fn announce(&self, match_id: &str, version: i64) {
        let _ = self.sender.send((match_id.to_owned(), version));
    }

    /// The channel an append should `NOTIFY` on: on PostgreSQL only.
    pub fn channel_for(db: &Db) -> Option<&'static str> {
        (db.backend() == Backend::Postgres).then_some(CHANNEL)
    }

    /// On PostgreSQL: listens for other processes' announcements for as long as the server runs
    /// (the listener reconnects by itself after the database restarts).
    pub fn listen(&self, database_url: &str) {
        let (sender, url) = (self.sender.clone(), database_url.to_owned());
        tokio::spawn(async move {
            loop {
                match sqlx::postgres::PgListener::connect(&url).await {
                    Ok(mut listener) => {
                        if let Err(error) = listener.listen(CHANNEL).await {
                            tracing::warn!(%error, "LISTEN failed");
                        } else {
                            while let Ok(notification) = listener.recv().await {
                                if let Some((id, version)) = notification.payload().rsplit_once(':')
                                    && let Ok(version) = version.parse()
                                {
                                    let _ = sender.send((id.to_owned(), version));
                                }
                            }
                        }
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
