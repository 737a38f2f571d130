//! A state's views, serialised once and sent again while the match stays at that version.
//!
//! A client that polls its view (play by mail) and the spectators of one table ask for the same
//! view until the next event. Serialising it was a fifth of a view's time on the server (issue
//! 19), so the bytes are kept with the state they were made from ([`super::MatchState`])
//! and go when a newer state replaces it. Only the clock changes with time: it is written
//! afresh into the kept bytes at each answer.
//!
//! A view is kept once it is asked for a second time at the same version, so that states read
//! once, as in a turn played straight through, hold no bytes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde::Serialize;

use crate::rules::Seat;
use crate::rules::options::MAX_PLAYERS;

/// The text the clock's value follows in a serialised view: its first field whose name is
/// `clock` (in a match's view, the fields before it, `match_id` to `hints`, have none of that
/// name).
const CLOCK_FIELD: &str = "\"clock\":";

/// A view (`matches/view.rs`) serialised without its clock, with the place its clock goes.
#[derive(Debug)]
pub struct SerialisedView {
    json: String,
    /// Where the clock's value starts in `json`; `null` follows.
    clock_at: usize,
}

impl SerialisedView {
    /// `view`, whose clock is left out (`null`): it is written at each answer.
    pub fn of(view: &impl Serialize) -> SerialisedView {
        let json = serde_json::to_string(view).expect("views serialise");
        let clock_at =
            json.find(CLOCK_FIELD).expect("a view has a clock field") + CLOCK_FIELD.len();
        debug_assert!(
            json[clock_at..].starts_with("null"),
            "kept without its clock"
        );
        SerialisedView { json, clock_at }
    }

    /// The view's JSON with `clock` in it: what `serde_json` makes of the whole view.
    pub fn with_clock(&self, clock: Option<&impl Serialize>) -> String {
        let Some(clock) = clock else {
            return self.json.clone();
        };
        let clock = serde_json::to_string(clock).expect("clocks serialise");
        let rest = &self.json[self.clock_at + "null".len()..];
        let mut json = String::with_capacity(self.json.len() + clock.len());
        json.push_str(&self.json[..self.clock_at]);
        json.push_str(&clock);
        json.push_str(rest);
        json
    }
}

/// The serialised views of one state: a place for each seat and one for spectators, made when
/// a view is first asked for (a state nobody looks at costs a pointer).
///
/// A copy is empty: a state is copied to make the next one, whose views differ.
#[derive(Debug, Default)]
pub struct KeptViews {
    places: OnceLock<Box<[Place; MAX_PLAYERS as usize + 1]>>,
}

#[derive(Debug, Default)]
struct Place {
    asked: AtomicBool,
    view: OnceLock<Arc<SerialisedView>>,
}

impl KeptViews {
    /// The view of `seat` (`None`: a spectator's), made by `make` unless it is kept; kept from
    /// its second asking on.
    pub fn get_or_make(
        &self,
        seat: Option<Seat>,
        make: impl FnOnce() -> SerialisedView,
    ) -> Arc<SerialisedView> {
        let places = self.places.get_or_init(Box::default);
        let place = &places[seat.map_or(MAX_PLAYERS as usize, usize::from)];
        if let Some(kept) = place.view.get() {
            return kept.clone();
        }
        let made = Arc::new(make());
        if place.asked.swap(true, Ordering::Relaxed) {
            let _ = place.view.set(made.clone());
        }
        made
    }

    /// How many views are kept (for tests).
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.places.get().map_or(0, |places| {
            places
                .iter()
                .filter(|place| place.view.get().is_some())
                .count()
        })
    }
}

impl Clone for KeptViews {
    fn clone(&self) -> Self {
        KeptViews::default()
    }
}
