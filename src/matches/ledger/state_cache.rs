//! A bounded in-memory cache of started matches at their newest known version, so a request
//! never replays a whole log. The database's version stays the authority: an entry is used
//! only while the notifier says it is current (see [`crate::live`]), and otherwise brought
//! forward from the log.
//!
//! Entries are shared (`Arc`): a view reads one without copying it; a move copies only the
//! state it changes.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::MatchState;
use crate::live::Checkpoint;

#[derive(Debug)]
struct Cached {
    current: Arc<MatchState>,
    /// When the database last confirmed `current` as the newest version.
    verified: Checkpoint,
}

/// Least-recently-inserted eviction over at most `capacity` matches.
#[derive(Debug)]
pub struct StateCache {
    capacity: usize,
    inner: Mutex<(HashMap<String, Cached>, VecDeque<String>)>,
}

impl StateCache {
    /// A cache of at most `capacity` matches.
    pub fn new(capacity: usize) -> StateCache {
        StateCache {
            capacity: capacity.max(1),
            inner: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// The cached match and when the database last confirmed it, if any.
    pub fn get(&self, match_id: &str) -> Option<(Arc<MatchState>, Checkpoint)> {
        let inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        inner
            .0
            .get(match_id)
            .map(|entry| (entry.current.clone(), entry.verified))
    }

    /// Stores a match confirmed at `verified`, unless a newer version is cached.
    pub fn put(&self, match_id: &str, current: Arc<MatchState>, verified: Checkpoint) {
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (map, order) = &mut *inner;
        if map
            .get(match_id)
            .is_some_and(|cached| cached.current.version > current.version)
        {
            return;
        }
        let entry = Cached { current, verified };
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

    /// The most matches it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
