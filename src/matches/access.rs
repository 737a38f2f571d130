//! Who may see a match and who may act in it: the rules of access, in one place.
//!
//! Anyone may watch a public match, also without an account ([`NOBODY`]); only its players
//! (and the players a rematch keeps seats for) see a private one, which is invisible
//! (`not_found`) to everybody else, but for whoever brings its spectator code ([`spectator`]):
//! they watch it as a spectator. Only a seated
//! player acts, and only from their own seat.

use std::collections::HashMap;

use super::MatchError;
use crate::bots::Level;
use crate::model::Visibility;
use crate::rules::Seat;
use crate::store::{MatchRow, SeatRow};

/// What stays fixed once a match has started: who sits where, who may watch, and whether the
/// server ends forced turns. Kept with the match's cached state.
#[derive(Debug)]
pub struct Table {
    public: bool,
    /// A private match's spectator code (see [`spectator`]).
    spectator_code: Option<String>,
    seats: HashMap<String, Seat>,
    /// Who sits where, by seat.
    accounts: Vec<String>,
    /// The bot in each seat a bot holds, by seat.
    bots: Vec<Option<Level>>,
    /// Whether the server ends a turn whose only legal action is `end_turn`.
    pub auto_end_turn: bool,
    /// Whether a seated player may ask for a hint.
    pub hints: bool,
}

impl Table {
    /// The table of a started match from its row and seats.
    pub fn new(row: &MatchRow, seats: &[SeatRow]) -> Table {
        let mut table = Table::seated(
            row.visibility == Visibility::Public,
            row.auto_end_turn,
            seats
                .iter()
                .map(|seat| (seat.account_id.clone(), seat.seat)),
        );
        for seat in seats {
            if let Some(slot) = table.bots.get_mut(usize::from(seat.seat)) {
                *slot = seat.bot;
            }
        }
        table.hints = row.hints;
        table.spectator_code.clone_from(&row.spectator_code);
        table
    }

    /// A table of these `(account id, seat)` pairs, people all, hints allowed.
    pub fn seated(
        public: bool,
        auto_end_turn: bool,
        seats: impl IntoIterator<Item = (String, Seat)>,
    ) -> Table {
        let seats: HashMap<String, Seat> = seats.into_iter().collect();
        let mut by_seat: Vec<(Seat, String)> = seats
            .iter()
            .map(|(account_id, seat)| (*seat, account_id.clone()))
            .collect();
        by_seat.sort();
        Table {
            public,
            spectator_code: None,
            bots: vec![None; by_seat.len()],
            accounts: by_seat
                .into_iter()
                .map(|(_, account_id)| account_id)
                .collect(),
            seats,
            auto_end_turn,
            hints: true,
        }
    }

    /// How many seats the table has.
    pub fn seat_count(&self) -> usize {
        self.accounts.len()
    }

    /// The account in `seat`.
    pub fn account_at(&self, seat: Seat) -> Option<&str> {
        self.accounts.get(usize::from(seat)).map(String::as_str)
    }

    /// The bot in `seat`, if a bot holds it.
    pub fn bot_at(&self, seat: Seat) -> Option<Level> {
        self.bots.get(usize::from(seat)).copied().flatten()
    }

    /// The caller's seat (`None` for a spectator), if they may see the match at all.
    pub fn viewer(&self, account_id: &str) -> Result<Option<Seat>, MatchError> {
        let seat = self.seats.get(account_id).copied();
        let by_code = watches_by(account_id, self.spectator_code.as_deref());
        visible(self.public || by_code, seat)
    }
}

/// The account id of a caller without an account: no seat is ever held by it, so it watches
/// public matches as a spectator and does not see private ones at all.
pub const NOBODY: &str = "";

/// How a caller bringing a spectator code is named in place of an account id.
const SPECTATOR_PREFIX: &str = "watch:";

/// Who a caller bringing a match's spectator `code` is: a spectator of that match alone (no
/// account id has this form: they are UUIDs, `bot:n`, or [`NOBODY`]).
pub fn spectator(code: &str) -> String {
    format!("{SPECTATOR_PREFIX}{code}")
}

/// Whether `account_id` is the spectator of a match with this code (none: nobody is).
fn watches_by(account_id: &str, code: Option<&str>) -> bool {
    code.is_some_and(|code| account_id.strip_prefix(SPECTATOR_PREFIX) == Some(code))
}

/// Whether `account_id`, with `seat` (or none), may see a match of this row.
pub fn check_visible(
    row: &MatchRow,
    account_id: &str,
    seat: Option<Seat>,
) -> Result<Option<Seat>, MatchError> {
    let by_code = watches_by(account_id, row.spectator_code.as_deref());
    visible(row.visibility == Visibility::Public || by_code, seat)
}

fn visible(public: bool, seat: Option<Seat>) -> Result<Option<Seat>, MatchError> {
    if seat.is_some() || public {
        Ok(seat)
    } else {
        Err(MatchError::NotFound)
    }
}

/// The seat the caller acts from.
pub fn player(seat: Option<Seat>) -> Result<Seat, MatchError> {
    seat.ok_or(MatchError::NotAPlayer)
}
