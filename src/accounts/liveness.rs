//! Whether the account behind a valid access token still exists. Access tokens are signed and
//! self-contained, so deleting an account cannot recall them; instead every request's account
//! is checked, at most once per [`CHECKED_FOR`] from the database and otherwise from memory.
//! The process that deletes an account refuses its tokens at once; other processes on the
//! same PostgreSQL within [`CHECKED_FOR`].

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an account found alive is taken to be alive without asking again.
pub const CHECKED_FOR: Duration = Duration::from_secs(30);

/// Most accounts remembered before the memory starts over.
const REMEMBERED: usize = 100_000;

/// Accounts recently found alive, and those deleted by this process.
#[derive(Debug, Default)]
pub(super) struct Liveness {
    alive_at: Mutex<HashMap<String, Instant>>,
    deleted: Mutex<HashSet<String>>,
}

impl Liveness {
    /// `Some(alive)` when memory can answer; `None` to ask the database.
    pub(super) fn known(&self, account_id: &str) -> Option<bool> {
        if lock(&self.deleted).contains(account_id) {
            return Some(false);
        }
        lock(&self.alive_at)
            .get(account_id)
            .filter(|checked| checked.elapsed() < CHECKED_FOR)
            .map(|_| true)
    }

    pub(super) fn found_alive(&self, account_id: &str) {
        let mut alive_at = lock(&self.alive_at);
        if alive_at.len() >= REMEMBERED {
            alive_at.clear();
        }
        alive_at.insert(account_id.to_owned(), Instant::now());
    }

    pub(super) fn deleted(&self, account_id: &str) {
        lock(&self.alive_at).remove(account_id);
        let mut deleted = lock(&self.deleted);
        if deleted.len() >= REMEMBERED {
            // The database still answers for the ones forgotten.
            deleted.clear();
        }
        deleted.insert(account_id.to_owned());
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
