//! A bounded in-memory cache of recent match states, so a request never replays a whole log.
//! The database's version stays the authority: an entry is used only at the version the
//! database reports, and brought forward from the log when it is behind.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::notify::Checkpoint;
use crate::rules::GameState;

/// A match state at a version, with the hash of its last event.
#[derive(Clone, Debug)]
pub struct CachedState {
    /// The state after `version` events.
    pub state: GameState,
    /// Events folded in.
    pub version: i64,
    /// Hash of event `version` (`""` at 0).
    pub last_hash: String,
    /// When the database last confirmed this version as its newest.
    pub verified: Checkpoint,
}

/// Least-recently-inserted eviction over at most `capacity` matches.
#[derive(Debug)]
pub struct StateCache {
    capacity: usize,
    inner: Mutex<(HashMap<String, CachedState>, VecDeque<String>)>,
}

impl StateCache {
    /// A cache of at most `capacity` matches.
    pub fn new(capacity: usize) -> StateCache {
        StateCache {
            capacity,
            inner: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// The cached state of a match, if any.
    pub fn get(&self, match_id: &str) -> Option<CachedState> {
        self.read(match_id, CachedState::clone)
    }

    /// What `look` reads from the cached state of a match, without copying the state.
    pub fn read<T>(&self, match_id: &str, look: impl FnOnce(&CachedState) -> T) -> Option<T> {
        let inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        inner.0.get(match_id).map(look)
    }

    /// Stores a state unless a newer one is cached.
    pub fn put(&self, match_id: &str, entry: CachedState) {
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (map, order) = &mut *inner;
        if map
            .get(match_id)
            .is_some_and(|cached| cached.version > entry.version)
        {
            return;
        }
        if map.insert(match_id.to_owned(), entry).is_none() {
            order.push_back(match_id.to_owned());
            while map.len() > self.capacity {
                let Some(oldest) = order.pop_front() else {
                    break;
                };
                map.remove(&oldest);
            }
        }
    }

    /// How many matches are cached.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .0
            .len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
