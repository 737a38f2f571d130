//! Which accounts were told something since the relay last looked. The store records them after
//! each commit that wrote notifications (a notification is numbered in its account's stream as
//! it is written); the relay takes them and announces each account's newest `seq` to the
//! readers waiting on it (`notifications/relay.rs`). Recorded only after the commit, so the
//! relay never reads a counter before the notification that moved it is visible.
//!
//! PostgreSQL's batch of moves returns the counters it moved and whether it queued anything for
//! the fan-out, so after most moves the relay announces without reading anything (issue 40:
//! those reads were about three transactions per batch). Every other writer records only the
//! accounts: the relay reads their counters, and looks for queued fan-out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Db;
use super::notifications::NewNotification;

/// The accounts told since the relay last took them (one record per database, shared by every
/// handle on it).
#[derive(Clone, Debug, Default)]
pub(super) struct ToldAccounts(Arc<Mutex<Told>>);

/// What the relay takes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Told {
    /// Each account told, with its newest `seq` when the writer knew it (`None`: read it).
    pub accounts: HashMap<String, Option<i64>>,
    /// Whether a writer may have queued notifications for the fan-out.
    pub fan_out: bool,
}

impl Told {
    /// The accounts whose newest `seq` is known, and those whose counter must be read.
    pub fn split(self) -> (Vec<(String, i64)>, Vec<String>) {
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for (account_id, newest) in self.accounts {
            match newest {
                Some(seq) => known.push((account_id, seq)),
                None => unknown.push(account_id),
            }
        }
        (known, unknown)
    }
}

impl ToldAccounts {
    fn lock(&self) -> std::sync::MutexGuard<'_, Told> {
        self.0.lock().expect("no holder panics")
    }

    /// Records the accounts of notifications just committed.
    pub(super) fn record<'a>(&self, notifications: impl IntoIterator<Item = &'a NewNotification>) {
        self.record_accounts(
            notifications
                .into_iter()
                .map(|notification| notification.account_id.clone()),
        );
    }

    /// Records accounts just told: their counters to be read (a counter known before is
    /// forgotten), and queued fan-out to be looked for.
    pub(super) fn record_accounts(&self, accounts: impl IntoIterator<Item = String>) {
        let mut told = self.lock();
        for account_id in accounts {
            told.accounts.insert(account_id, None);
            told.fan_out = true;
        }
    }

    /// Records accounts' counters as a commit left them, and whether it queued fan-out.
    pub(super) fn record_newest(&self, newest: Vec<(String, i64)>, fan_out: bool) {
        let mut told = self.lock();
        for (account_id, seq) in newest {
            // An account also told by a writer that did not know its counter stays to be read
            // (the read sees this commit too).
            let known = told.accounts.entry(account_id).or_insert(Some(seq));
            if let Some(known) = known {
                *known = (*known).max(seq);
            }
        }
        told.fan_out |= fan_out;
    }
}

impl Db {
    /// What was told since the last call.
    pub fn take_told(&self) -> Told {
        std::mem::take(&mut *self.told.lock())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_known_stays_the_newest_and_an_unknown_one_is_read() {
        let told = ToldAccounts::default();
        told.record_newest(vec![("a".into(), 5), ("b".into(), 2)], false);
        told.record_newest(vec![("a".into(), 3)], false);
        told.record_accounts(vec!["b".into()]);
        told.record_newest(vec![("b".into(), 9)], false);
        let taken = std::mem::take(&mut *told.lock());
        assert!(
            taken.fan_out,
            "a writer that does not say may have queued fan-out"
        );
        let (mut known, unknown) = taken.split();
        known.sort();
        assert_eq!(known, vec![("a".to_owned(), 5)]);
        assert_eq!(unknown, vec!["b".to_owned()]);
    }

    #[test]
    fn moves_that_queued_nothing_ask_no_look() {
        let told = ToldAccounts::default();
        told.record_newest(vec![("a".into(), 1)], false);
        assert!(!told.lock().fan_out);
        told.record_newest(vec![], true);
        assert!(told.lock().fan_out);
    }
}
