//! Who is watching live: an account with an account stream or a table stream open in this
//! process. Alerts are not sent for what a player saw as it happened (as OGS sends no email
//! while a tab is connected), so the relay skips accounts watching at that moment, and a
//! digest drops what happened before the player last watched.
//!
//! The database holds `watching_until` per account, so every process's relay sees every
//! process's streams: written when an account's first stream opens here, renewed every
//! [`RENEW_EVERY`] while one stays open, and left to run out ([`WATCHING_SECONDS`]) after the
//! last closes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{Stream, StreamExt};

use crate::store::Db;
pub use crate::store::alerts::WATCHING_SECONDS;
use crate::time_source::Clock;

/// How often the accounts watching here are written again.
const RENEW_EVERY: Duration = Duration::from_secs(20);

/// The accounts watching in this process, with how many streams each has open.
#[derive(Clone)]
pub struct Presence {
    db: Db,
    clock: Arc<dyn Clock>,
    open: Arc<Mutex<HashMap<String, usize>>>,
}

/// Held while a stream is open.
struct Watching {
    presence: Presence,
    account_id: String,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let mut open = lock(&self.presence.open);
        if let Some(count) = open.get_mut(&self.account_id) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.account_id);
            }
        }
    }
}

impl Presence {
    /// Nobody watching yet; [`Presence::start`] keeps the database told.
    pub fn new(db: Db, clock: Arc<dyn Clock>) -> Presence {
        Presence {
            db,
            clock,
            open: Arc::default(),
        }
    }

    /// Renews `watching_until` of the accounts watching here, for as long as the server runs.
    pub fn start(&self) {
        let presence = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(RENEW_EVERY);
            loop {
                every.tick().await;
                let accounts: Vec<String> = lock(&presence.open).keys().cloned().collect();
                for chunk in accounts.chunks(500) {
                    let until = presence.clock.now() + WATCHING_SECONDS;
                    if let Err(error) = presence.db.watching(chunk, until).await {
                        tracing::warn!(%error, "could not note who is watching");
                    }
                }
            }
        });
    }

    /// `stream`, with `account_id` counted as watching for as long as it is open.
    pub async fn while_open<S: Stream>(
        &self,
        account_id: &str,
        stream: S,
    ) -> impl Stream<Item = S::Item> + use<S> {
        let first = {
            let mut open = lock(&self.open);
            let count = open.entry(account_id.to_owned()).or_insert(0);
            *count += 1;
            *count == 1
        };
        let watching = Watching {
            presence: self.clone(),
            account_id: account_id.to_owned(),
        };
        if first {
            let until = self.clock.now() + WATCHING_SECONDS;
            if let Err(error) = self.db.watching(&[account_id.to_owned()], until).await {
                tracing::warn!(%error, "could not note who is watching");
            }
        }
        stream.map(move |item| {
            let _held = &watching;
            item
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
