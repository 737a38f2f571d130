//! [`MatchState`]: a started match at a version of its log, as the ledger folds it and the
//! state cache keeps it: the game, who sits where, the clock, and where the log's hash chain
//! stands.

use std::sync::Arc;

use super::kept_views::KeptViews;
use crate::matches::MatchError;
use crate::matches::access::Table;
use crate::matches::log::Entry;
use crate::matches::match_clock::MatchClock;
use crate::rules::{GameState, Setup};
use crate::store::{MatchRow, SeatRow};

/// A started match at a version.
#[derive(Clone, Debug)]
pub struct MatchState {
    /// Who sits where; fixed since the start.
    pub table: Arc<Table>,
    /// The state after `version` events.
    pub state: GameState,
    /// How many events of the log are folded in.
    pub version: i64,
    /// The version after the last event that changed the table. A move chosen at any version
    /// from this one to `version` is still current: what came since (table talk, reminders)
    /// changes nothing a move is chosen from.
    pub table_version: i64,
    /// Hash of event `version`, which the next event's hash chains to.
    pub last_hash: String,
    /// How its events are chained (see [`crate::matches::log`]).
    pub log_format: u8,
    /// Its clock, if it has one.
    pub clock: Option<MatchClock>,
    /// Its views as sent, for the clients that ask again at this version (empty in a copy).
    pub views: KeptViews,
}

impl MatchState {
    /// Folds one entry of the log, written at `at`: a game event into the game, and every
    /// entry into the clock.
    pub fn observe(&mut self, entry: &Entry, at: i64) {
        if let Entry::Game(event) = entry {
            self.state.apply(event);
        }
        if let Some(clock) = &mut self.clock {
            clock.observe(entry, at);
        }
    }

    /// Whether a move chosen from the view at version `expected` may be played now.
    pub fn current_for(&self, expected: i64) -> bool {
        (self.table_version..=self.version).contains(&expected)
    }

    /// A match with every seat taken, before its first event.
    pub fn before_start(
        row: &MatchRow,
        seats: &[SeatRow],
        secret_hex: &str,
    ) -> Result<MatchState, MatchError> {
        Ok(MatchState {
            table: Arc::new(Table::new(row, seats)),
            state: new_game(row, secret_hex, seats)?,
            version: 0,
            table_version: 0,
            last_hash: String::new(),
            log_format: row.log_format,
            clock: row.clock.map(|settings| {
                MatchClock::new(settings, row.on_timeout, row.vacations, row.seat_count)
            }),
            views: KeptViews::default(),
        })
    }
}

/// A match not started yet, from its rules, hex secret and seats.
fn new_game(row: &MatchRow, secret_hex: &str, seats: &[SeatRow]) -> Result<GameState, MatchError> {
    let rules = &row.rules;
    let secret: [u8; 32] = hex::decode(secret_hex)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| MatchError::Corrupt("bad secret".into()))?;
    let mut client_seeds = vec![String::new(); usize::from(rules.players)];
    for seat in seats {
        if let Some(slot) = client_seeds.get_mut(usize::from(seat.seat)) {
            slot.clone_from(&seat.client_seed);
        }
    }
    GameState::new(Setup {
        rules: rules.clone(),
        secret,
        client_seeds,
        first_dealer: row.first_dealer,
    })
    .map_err(|error| MatchError::Corrupt(error.to_string()))
}
