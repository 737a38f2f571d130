//! What one process's bots have done, counted as they do it (for `/metrics` and the tests).

use std::sync::atomic::{AtomicU64, Ordering};

/// What one process's bots have done: actions written, and actions decided for a version
/// another writer had already moved past (which the lease on a match's bot turns should make
/// rare: only a person resigning or a clock beside a bot's turn should ever cause one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BotStatistics {
    /// Bot actions written to a log.
    pub actions: u64,
    /// Bot actions refused because the match had moved on.
    pub lost_races: u64,
}

/// [`BotStatistics`] as they are counted.
#[derive(Debug, Default)]
pub(super) struct BotCounts {
    actions: AtomicU64,
    lost_races: AtomicU64,
}

impl BotCounts {
    /// A bot's action was written.
    pub(super) fn acted(&self) {
        self.actions.fetch_add(1, Ordering::Relaxed);
    }

    /// A bot's action was refused: the match had moved on.
    pub(super) fn lost_a_race(&self) {
        self.lost_races.fetch_add(1, Ordering::Relaxed);
    }

    /// The counts so far.
    pub(super) fn statistics(&self) -> BotStatistics {
        BotStatistics {
            actions: self.actions.load(Ordering::Relaxed),
            lost_races: self.lost_races.load(Ordering::Relaxed),
        }
    }
}
