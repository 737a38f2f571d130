//! Hints: what the `expert` bot would play in a seat, for its player. A hint costs tens of
//! milliseconds of CPU, so the same position is answered once (the decision is a function of
//! the match, its version and the seat: see `bots::think`), each account computes at most
//! [`PER_MINUTE`] new hints a minute, and at most [`thinking_at_once`] are computed at a time
//! in a process, so hints never crowd out the requests served beside them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::access::Player;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::RateLimiter;
use crate::rules::{Action, Seat};

/// New hints one account may have computed in a minute (answers from memory are free).
pub const PER_MINUTE: u32 = 10;

/// Hints remembered before the memory starts over.
const MOST_REMEMBERED: usize = 4096;

/// What a hint is the answer for: a match at a version, seen from a seat.
type Position = (String, i64, Seat);

/// What the `expert` bot would do in the caller's place, and why.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"action": {"type": "play", "card": "KC", "to": "NE"},
    "reason": "puts your KC in the north-east corner (won 71 % of 64 imagined hands)", "version": 12}))]
pub struct Hint {
    /// One of the caller's legal actions.
    pub action: Action,
    /// Why, in a few words.
    pub reason: String,
    /// The version of the match the hint is for: send it as `expected_version`.
    pub version: i64,
}

/// Remembered hints, the pace of each account's, and the permits to compute one.
#[derive(Debug)]
pub(super) struct HintDesk {
    remembered: Mutex<HashMap<Position, Hint>>,
    pace: RateLimiter,
    thinking: Semaphore,
}

impl Default for HintDesk {
    fn default() -> HintDesk {
        HintDesk {
            remembered: Mutex::default(),
            pace: RateLimiter::new(PER_MINUTE, Duration::from_secs(60)),
            thinking: Semaphore::new(thinking_at_once()),
        }
    }
}

/// How many hints a process computes at a time: half its cores, at least one.
pub fn thinking_at_once() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| (cores.get() / 2).max(1))
}

impl HintDesk {
    /// The hint given before for this position, if any.
    pub(super) fn remembered(&self, match_id: &str, version: i64, seat: Seat) -> Option<Hint> {
        let remembered = self
            .remembered
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        remembered
            .get(&(match_id.to_owned(), version, seat))
            .cloned()
    }

    /// Counts a new hint against `account_id`'s pace: `Err(seconds to wait)` over it.
    pub(super) fn pace(&self, player: Player<'_>) -> Result<(), u64> {
        self.pace.check(&[player.id()])
    }

    /// Waits for a permit to compute a hint.
    pub(super) async fn permit(&self) -> tokio::sync::SemaphorePermit<'_> {
        self.thinking
            .acquire()
            .await
            .expect("the semaphore is never closed")
    }

    /// Remembers the hint for this position.
    pub(super) fn remember(&self, match_id: &str, seat: Seat, hint: &Hint) {
        let mut remembered = self
            .remembered
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if remembered.len() >= MOST_REMEMBERED {
            remembered.clear();
        }
        remembered.insert((match_id.to_owned(), hint.version, seat), hint.clone());
    }
}
