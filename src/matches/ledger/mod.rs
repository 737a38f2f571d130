//! The match ledger: the one door through which the match service reads a match's state and
//! appends to its log.
//!
//! A match's state is its event log folded with the engine's `apply` (the log was checked by
//! `decide` when written). A change is load → decide → append: the feature that changes a match
//! loads it here ([`Ledger::current`], [`Ledger::seated`], [`Ledger::load`]), decides with the
//! engine or the clock, and hands the entries back ([`Ledger::write`]). The write applies them
//! and the turns the table then ends by itself, and appends, in one transaction and only if the
//! match is still at the version they were decided at: the entries (hash-chained,
//! `matches/log.rs`), the read model after them, the notices they cause (`notices`), the kept
//! answer of an idempotent request and, at the end of a rated match, its ratings
//! (`rated_end`). The database's version check decides every race, so several server
//! processes on one PostgreSQL stay correct (on PostgreSQL possibly in the same statement as
//! other matches' moves, see [`crate::store::append`]).
//!
//! Behind the door:
//! - [`match_state`]: [`MatchState`], a started match at a version;
//! - [`state_cache`]: the bounded cache of states, trusted only while the notifier says it is
//!   the newest (see [`crate::live`]);
//! - `snapshots`: the state kept every few hundred events beside the log, where a cold read of
//!   a long match begins;
//! - [`kept_views`]: a cached state's views, serialised once for the clients that ask again;
//! - `reading` and `writing`: the door itself.
//!
//! Reads never write: the clock's due work (forfeits, stand-ins, reminders) is written by the
//! clock's worker or by a write's explicit step (`matches/clock_worker.rs`).

pub mod kept_views;
pub mod match_state;
mod notices;
mod rated_end;
mod reading;
mod snapshots;
pub mod state_cache;
mod writing;

pub use match_state::MatchState;
pub use rated_end::{UNRATED, counts, rate, unrated_because};
pub use reading::{Intent, ReadRow, Seen, retrying_races};
pub use state_cache::StateCache;
pub use writing::advance;

use std::sync::Arc;

use crate::live::{Notifier, Wake};
use crate::store::Db;
use crate::time_source::Clock;

/// A match's state and log: read through the cache, written through one append.
#[derive(Debug)]
pub struct Ledger {
    db: Db,
    cache: StateCache,
    notifier: Notifier,
    clock: Arc<dyn Clock>,
    /// Woken after a write that tells the players something (the relay numbers it).
    relay: Wake,
    /// Woken after a write that gives a bot the turn.
    bot_turns: Wake,
}

impl Ledger {
    /// The ledger over `db`, caching at most `cache_capacity` started matches, waking `relay`
    /// after a write with notices and `bot_turns` after one that gives a bot the turn.
    pub fn new(
        db: Db,
        cache_capacity: usize,
        notifier: Notifier,
        clock: Arc<dyn Clock>,
        relay: Wake,
        bot_turns: Wake,
    ) -> Ledger {
        Ledger {
            db,
            cache: StateCache::new(cache_capacity),
            notifier,
            clock,
            relay,
            bot_turns,
        }
    }

    /// How many matches the cache holds, and the most it holds (for `/metrics`).
    pub fn cache_figures(&self) -> (usize, usize) {
        (self.cache.len(), self.cache.capacity())
    }
}
