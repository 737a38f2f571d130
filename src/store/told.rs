//! Which accounts were told something since the relay last looked. The store records them after
//! each commit that wrote notifications (a notification is numbered in its account's stream as
//! it is written); the relay takes them and announces each account's newest `seq` to the
//! readers waiting on it (`notifications/relay.rs`). Recorded only after the commit, so the
//! relay never reads a counter before the notification that moved it is visible.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use super::Db;
use super::notifications::NewNotification;

/// The accounts told since the relay last took them (one set per database, shared by every
/// handle on it).
#[derive(Clone, Debug, Default)]
pub(super) struct ToldAccounts(Arc<Mutex<HashSet<String>>>);

impl ToldAccounts {
    /// Records the accounts of notifications just committed.
    pub(super) fn record<'a>(&self, notifications: impl IntoIterator<Item = &'a NewNotification>) {
        let mut told = self.0.lock().expect("no holder panics");
        for notification in notifications {
            if !told.contains(&notification.account_id) {
                told.insert(notification.account_id.clone());
            }
        }
    }

    /// Records accounts just told.
    pub(super) fn record_accounts(&self, accounts: Vec<String>) {
        self.0.lock().expect("no holder panics").extend(accounts);
    }
}

impl Db {
    /// The accounts told something since the last call, each once.
    pub fn take_told_accounts(&self) -> Vec<String> {
        std::mem::take(&mut *self.told.0.lock().expect("no holder panics"))
            .into_iter()
            .collect()
    }
}
