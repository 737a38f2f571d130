//! Who may see a match and who may act in it: the rules of access, in one place.
//!
//! Anyone may watch a public match, also without an account ([`Viewer::Anonymous`]); only its
//! players (and the players a rematch keeps seats for) see a private one, which is invisible
//! (`not_found`) to everybody else, but for whoever brings its spectator code
//! ([`Viewer::Spectator`]): they watch it as a spectator. Only a seated player acts, and only
//! from their own seat.

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

    /// The viewer's seat (`None` for a spectator), if they may see the match at all.
    pub fn viewer(&self, viewer: Viewer<'_>) -> Result<Option<Seat>, MatchError> {
        let seat = viewer
            .account()
            .and_then(|account_id| self.seats.get(account_id).copied());
        let by_code = viewer.watches_by(self.spectator_code.as_deref());
        visible(self.public || by_code, seat)
    }
}

/// Who asks about a match: built once per request at the HTTP edge (the `Watcher` extractor),
/// and never spelled as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer<'a> {
    /// A signed-in account, by id.
    Account(&'a str),
    /// Whoever brings a private match's spectator code (`?watch=`): a spectator of that match
    /// alone.
    Spectator {
        /// The code brought.
        code: &'a str,
    },
    /// Nobody in particular (no token, no code): a spectator of public matches only.
    Anonymous,
}

impl<'a> Viewer<'a> {
    /// The viewer's account, if they signed in.
    pub fn account(self) -> Option<&'a str> {
        match self {
            Viewer::Account(account_id) => Some(account_id),
            Viewer::Spectator { .. } | Viewer::Anonymous => None,
        }
    }

    /// Whether the viewer brings `code` (none: nobody does).
    fn watches_by(self, code: Option<&str>) -> bool {
        matches!((self, code), (Viewer::Spectator { code: brought }, Some(code)) if brought == code)
    }
}

/// Whether `viewer`, with `seat` (or none), may see a match of this row.
pub fn check_visible(
    row: &MatchRow,
    viewer: Viewer<'_>,
    seat: Option<Seat>,
) -> Result<Option<Seat>, MatchError> {
    let by_code = viewer.watches_by(row.spectator_code.as_deref());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Who sees a started match, by kind of viewer, public and private.
    #[test]
    fn each_kind_of_viewer_sees_what_it_may() {
        let seated = || [("a".to_owned(), 0), ("b".to_owned(), 1)];
        let public = Table::seated(true, false, seated());
        let mut private = Table::seated(false, false, seated());
        private.spectator_code = Some("code".to_owned());

        // What the viewer sees: its seat (none for a spectator), or `not_found`.
        type Sees = Result<Option<Seat>, ()>;
        let cases: [(Viewer, Sees, Sees); 6] = [
            (Viewer::Account("a"), Ok(Some(0)), Ok(Some(0))),
            (Viewer::Account("b"), Ok(Some(1)), Ok(Some(1))),
            (Viewer::Account("c"), Ok(None), Err(())),
            (Viewer::Spectator { code: "code" }, Ok(None), Ok(None)),
            (Viewer::Spectator { code: "other" }, Ok(None), Err(())),
            (Viewer::Anonymous, Ok(None), Err(())),
        ];
        for (viewer, on_public, on_private) in cases {
            assert_eq!(
                public.viewer(viewer).map_err(|_| ()),
                on_public,
                "{viewer:?} public"
            );
            assert_eq!(
                private.viewer(viewer).map_err(|_| ()),
                on_private,
                "{viewer:?} private"
            );
        }
        // A spectator is never seated, even one whose code spells an account id.
        assert_eq!(private.viewer(Viewer::Spectator { code: "a" }).ok(), None);
    }
}
