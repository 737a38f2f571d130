//! Whether the account behind a valid access token still exists. Access tokens are signed and
//! self-contained, so deleting an account cannot recall them; instead every request's account
//! is checked, at most once per [`CHECKED_FOR`] from the database and otherwise from memory.
//! The process that deletes an account refuses its tokens at once; other processes on the
//! same PostgreSQL within [`CHECKED_FOR`]. A password reset refuses the account's access tokens
//! issued before it the same way (`tokens_valid_from`).

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
    /// When each was found alive, and from when its access tokens are good.
    alive_at: Mutex<HashMap<String, (Instant, Option<i64>)>>,
    deleted: Mutex<HashSet<String>>,
}

impl Liveness {
    /// What memory knows of a token of the account issued at `issued_at` (`None`: a personal
    /// token, revoked by deletion instead); `None` to ask the database.
    pub(super) fn known(&self, account_id: &str, issued_at: Option<i64>) -> Option<Standing> {
        if lock(&self.deleted).contains(account_id) {
            return Some(Standing::Deleted);
        }
        lock(&self.alive_at)
            .get(account_id)
            .filter(|(checked, _)| checked.elapsed() < CHECKED_FOR)
            .map(|(_, valid_from)| Standing::of(issued_at, *valid_from))
    }

    /// Remembers the account alive, its access tokens good from `valid_from`; answers for a
    /// token issued at `issued_at`.
    pub(super) fn found_alive(
        &self,
        account_id: &str,
        valid_from: Option<i64>,
        issued_at: Option<i64>,
    ) -> Standing {
        let mut alive_at = lock(&self.alive_at);
        if alive_at.len() >= REMEMBERED {
            alive_at.clear();
        }
        alive_at.insert(account_id.to_owned(), (Instant::now(), valid_from));
        Standing::of(issued_at, valid_from)
    }

    /// The account's access tokens issued before `valid_from` are refused from now on.
    pub(super) fn tokens_refused_before(&self, account_id: &str, valid_from: i64) {
        lock(&self.alive_at).insert(account_id.to_owned(), (Instant::now(), Some(valid_from)));
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

/// What becomes of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Standing {
    /// It is good.
    Good,
    /// Its account was deleted.
    Deleted,
    /// A password reset after it was issued refused it.
    Refused,
}

impl Standing {
    /// A token issued at `issued_at` of a living account whose tokens are good from
    /// `valid_from`.
    fn of(issued_at: Option<i64>, valid_from: Option<i64>) -> Standing {
        match (issued_at, valid_from) {
            (Some(issued_at), Some(valid_from)) if issued_at < valid_from => Standing::Refused,
            _ => Standing::Good,
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
