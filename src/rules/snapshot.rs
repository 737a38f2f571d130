//! A match's state written out whole, so that reading a long log again (a server just started,
//! or a match its cache let go) can begin at a snapshot instead of the first event.
//!
//! A snapshot is never the record: the log is, and replays, exports and `verify` read only the
//! log. The server takes a snapshot from a state folded from the log and keeps it with the hash
//! of the event it follows (`matches/snapshot.rs`); [`GameState::resumed`] then accepts it only
//! if it fits the table: every per-seat list one entry per seat, twelve piles, each hand in
//! canonical order, seats that exist, and exactly the table's deck among hands, piles, stock,
//! claimed corners and dead hands, no card lost or doubled.
//!
//! The stock's order is in it: a snapshot is stored beside the secret and never served.

use serde::{Deserialize, Serialize};

use super::Seat;
use super::card::{Card, PlacedCard};
use super::event::{HandResult, OutReason};
use super::shuffle;
use super::state::{GameState, Status, TurnProgress};

/// Everything a [`GameState`] holds but its setup (which the match's row gives again).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    status: Status,
    hand_number: u32,
    dealer: Seat,
    turn: Seat,
    turns_started: u32,
    hands: Vec<Vec<Card>>,
    piles: Vec<Vec<PlacedCard>>,
    stock: Vec<Card>,
    progress: TurnProgress,
    consecutive_passes: u8,
    penalties: Vec<u32>,
    totals: Vec<u32>,
    hands_won: Vec<u32>,
    active: Vec<bool>,
    left: Vec<(Seat, OutReason)>,
    set_aside: Vec<Vec<Card>>,
    begun: bool,
    took_a_turn: Vec<bool>,
    claimed: Vec<Vec<Vec<PlacedCard>>>,
    pot: u64,
    chips: Vec<i64>,
    last_hand: Option<HandResult>,
    winners: Option<Vec<Seat>>,
}

/// Why a snapshot does not fit the table it is read for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// A per-seat list holds a different number of entries than the table has seats.
    #[error("{0} does not hold one entry per seat")]
    Seats(&'static str),
    /// Not the twelve piles of docs/rules.md §2.
    #[error("the layout does not hold twelve piles")]
    Piles,
    /// A seat number beyond the table.
    #[error("{0} names a seat the table does not have")]
    UnknownSeat(&'static str),
    /// A hand out of canonical order, which the engine relies on.
    #[error("a hand is not in canonical order")]
    HandOrder,
    /// The cards are not exactly the table's deck.
    #[error("the cards are not the table's deck")]
    Cards,
}

impl GameState {
    /// The state written out, its setup aside.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            status: self.status,
            hand_number: self.hand_number,
            dealer: self.dealer,
            turn: self.turn,
            turns_started: self.turns_started,
            hands: self.hands.clone(),
            piles: self.piles.to_vec(),
            stock: self.stock.clone(),
            progress: self.progress,
            consecutive_passes: self.consecutive_passes,
            penalties: self.penalties.clone(),
            totals: self.totals.clone(),
            hands_won: self.hands_won.clone(),
            active: self.active.clone(),
            left: self.left.clone(),
            set_aside: self.set_aside.clone(),
            begun: self.begun,
            took_a_turn: self.took_a_turn.clone(),
            claimed: self.claimed.clone(),
            pot: self.pot,
            chips: self.chips.clone(),
            last_hand: self.last_hand.clone(),
            winners: self.winners.clone(),
        }
    }

    /// The match at `snapshot`, its setup taken from `self` (the match as created, from its
    /// row), if the snapshot fits the table (see the module's header).
    pub fn resumed(&self, snapshot: Snapshot) -> Result<GameState, SnapshotError> {
        let players = usize::from(self.players());
        let per_seat = [
            ("hands", snapshot.hands.len()),
            ("penalties", snapshot.penalties.len()),
            ("totals", snapshot.totals.len()),
            ("hands_won", snapshot.hands_won.len()),
            ("active", snapshot.active.len()),
            ("took_a_turn", snapshot.took_a_turn.len()),
            ("set_aside", snapshot.set_aside.len()),
            ("claimed", snapshot.claimed.len()),
            ("chips", snapshot.chips.len()),
        ];
        if let Some((list, _)) = per_seat.iter().find(|(_, len)| *len != players) {
            return Err(SnapshotError::Seats(list));
        }
        let seats = self.players();
        let beyond = |seat: &Seat| *seat >= seats;
        if beyond(&snapshot.dealer) {
            return Err(SnapshotError::UnknownSeat("dealer"));
        }
        if beyond(&snapshot.turn) {
            return Err(SnapshotError::UnknownSeat("turn"));
        }
        if snapshot.left.iter().any(|(seat, _)| beyond(seat)) {
            return Err(SnapshotError::UnknownSeat("left"));
        }
        if snapshot.winners.iter().flatten().any(beyond) {
            return Err(SnapshotError::UnknownSeat("winners"));
        }
        if snapshot.hands.iter().any(|hand| !hand.is_sorted()) {
            return Err(SnapshotError::HandOrder);
        }
        let piles: [Vec<PlacedCard>; 12] = snapshot
            .piles
            .try_into()
            .map_err(|_| SnapshotError::Piles)?;
        let state = GameState {
            setup: self.setup.clone(),
            status: snapshot.status,
            hand_number: snapshot.hand_number,
            dealer: snapshot.dealer,
            turn: snapshot.turn,
            turns_started: snapshot.turns_started,
            hands: snapshot.hands,
            piles,
            stock: snapshot.stock,
            progress: snapshot.progress,
            consecutive_passes: snapshot.consecutive_passes,
            penalties: snapshot.penalties,
            totals: snapshot.totals,
            hands_won: snapshot.hands_won,
            active: snapshot.active,
            left: snapshot.left,
            set_aside: snapshot.set_aside,
            begun: snapshot.begun,
            took_a_turn: snapshot.took_a_turn,
            claimed: snapshot.claimed,
            pot: snapshot.pot,
            chips: snapshot.chips,
            last_hand: snapshot.last_hand,
            winners: snapshot.winners,
        };
        // Before the first deal nothing is on the table; from it on, the whole deck is.
        let mut cards = state.all_cards();
        cards.sort_unstable();
        let expected = if state.status == Status::NotStarted {
            Vec::new()
        } else {
            let rules = state.rules();
            let mut deck = shuffle::unshuffled_deck(rules.decks, rules.jokers);
            deck.sort_unstable();
            deck
        };
        if cards != expected {
            return Err(SnapshotError::Cards);
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Preset, Setup};

    fn started(preset: Preset, players: u8) -> GameState {
        let mut rules = preset.rules();
        rules.players = players;
        let mut state = GameState::new(Setup {
            rules,
            secret: [7; 32],
            client_seeds: vec![String::new(); usize::from(players)],
            first_dealer: None,
        })
        .unwrap();
        for event in state.start().unwrap() {
            state.apply(&event);
        }
        state
    }

    fn round_trip(snapshot: &Snapshot) -> Snapshot {
        serde_json::from_str(&serde_json::to_string(snapshot).unwrap()).unwrap()
    }

    #[test]
    fn a_snapshot_read_back_is_the_same_state() {
        for preset in Preset::ALL {
            let state = started(preset, 3);
            let back = state.resumed(round_trip(&state.snapshot())).unwrap();
            assert_eq!(back, state, "{preset:?}");
        }
    }

    #[test]
    fn a_snapshot_that_does_not_fit_the_table_is_refused() {
        let state = started(Preset::Standard, 4);
        let resumed = |edit: &dyn Fn(&mut Snapshot)| {
            let mut snapshot = state.snapshot();
            edit(&mut snapshot);
            state.resumed(snapshot)
        };
        assert_eq!(resumed(&|_| {}), Ok(state.clone()));
        assert_eq!(
            resumed(&|s| s.stock.push(s.stock[0])),
            Err(SnapshotError::Cards)
        );
        assert_eq!(
            resumed(&|s| {
                s.stock.pop();
            }),
            Err(SnapshotError::Cards)
        );
        assert_eq!(
            resumed(&|s| s.totals.push(0)),
            Err(SnapshotError::Seats("totals"))
        );
        assert_eq!(
            resumed(&|s| s.piles.truncate(11)),
            Err(SnapshotError::Piles)
        );
        assert_eq!(
            resumed(&|s| s.turn = 4),
            Err(SnapshotError::UnknownSeat("turn"))
        );
        assert_eq!(
            resumed(&|s| s.hands[0].reverse()),
            Err(SnapshotError::HandOrder)
        );
        // A card moved from one place to another keeps the deck whole, and so passes: the
        // snapshot is trusted that far because the log's hash vouches for where it was taken.
        assert!(
            resumed(&|s| {
                let card = s.stock.pop().unwrap();
                s.set_aside[1].push(card);
            })
            .is_ok()
        );
    }
}
