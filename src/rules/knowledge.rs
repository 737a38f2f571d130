//! What one seat may know, and nothing more: [`Knowledge`], all a program playing that seat may
//! decide from.
//!
//! A seat sees its own hand, the layout and foundations, the stock's count, every seat's card
//! count and scores, and every play as it happens (docs/rules.md §8). What the layout no longer
//! shows but everybody saw (the cards of claimed corners, the passes in a row, what the seat to
//! move did this turn) is public history, kept here too. Other hands, dead hands and the stock's
//! order are not: `Knowledge` has no field that could hold them, and no secret.
//!
//! [`Knowledge::sample`] deals the cards the seat has not seen at random into the places it
//! cannot see (the other hands by their counts, dead hands, the stock), giving a whole
//! [`GameState`] that agrees with everything the seat knows: one guess at the truth, for search.

use std::sync::Arc;

use rand_core::RngCore;

use super::Seat;
use super::action::Action;
use super::card::{Card, Face, PlacedCard};
use super::event::OutReason;
use super::options::Rules;
use super::pile::PileId;
use super::state::{GameState, Setup, Status, TurnProgress};

/// One seat's knowledge of a match in play: its view plus the public history a view sums up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knowledge {
    seat: Seat,
    rules: Rules,
    status: Status,
    hand_number: u32,
    dealer: Seat,
    turn: Seat,
    turns_started: u32,
    hand: Vec<Card>,
    piles: [Vec<PlacedCard>; 12],
    stock_count: usize,
    hand_counts: Vec<usize>,
    dead_hand_counts: Vec<usize>,
    progress: TurnProgress,
    consecutive_passes: u8,
    penalties: Vec<u32>,
    totals: Vec<u32>,
    hands_won: Vec<u32>,
    active: Vec<bool>,
    left: Vec<(Seat, OutReason)>,
    begun: bool,
    claimed: Vec<Vec<Vec<PlacedCard>>>,
    pot: u64,
    chips: Vec<i64>,
    legal_actions: Vec<Action>,
}

impl GameState {
    /// What `seat` knows now: only what its view shows and what everybody saw happen.
    pub fn knowledge(&self, seat: Seat) -> Knowledge {
        Knowledge {
            seat,
            rules: self.rules().clone(),
            status: self.status,
            hand_number: self.hand_number,
            dealer: self.dealer,
            turn: self.turn,
            turns_started: self.turns_started,
            hand: self.hand(seat).to_vec(),
            piles: self.piles.clone(),
            stock_count: self.stock.len(),
            hand_counts: self.hands.iter().map(Vec::len).collect(),
            dead_hand_counts: self.set_aside.iter().map(Vec::len).collect(),
            progress: self.progress,
            consecutive_passes: self.consecutive_passes,
            penalties: self.penalties.clone(),
            totals: self.totals.clone(),
            hands_won: self.hands_won.clone(),
            active: self.active.clone(),
            left: self.left.clone(),
            begun: self.begun,
            claimed: self.claimed.clone(),
            pot: self.pot,
            chips: self.chips.clone(),
            legal_actions: self.legal_actions(seat),
        }
    }
}

impl Knowledge {
    /// The seat that knows this.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The table's rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Whether it is this seat's turn in a hand in play.
    pub fn my_turn(&self) -> bool {
        self.status == Status::Playing && self.turn == self.seat
    }

    /// The seat's own hand, in canonical order.
    pub fn hand(&self) -> &[Card] {
        &self.hand
    }

    /// A pile, bottom first.
    pub fn pile(&self, pile: PileId) -> &[PlacedCard] {
        &self.piles[pile.index()]
    }

    /// Cards left in the stock.
    pub fn stock_count(&self) -> usize {
        self.stock_count
    }

    /// How many cards each seat holds.
    pub fn hand_counts(&self) -> &[usize] {
        &self.hand_counts
    }

    /// What the seat to move has done this turn.
    pub fn progress(&self) -> TurnProgress {
        self.progress
    }

    /// Every legal action of this seat now (empty off turn).
    pub fn legal_actions(&self) -> &[Action] {
        &self.legal_actions
    }

    /// The cards this seat has not seen this hand: the deck less its own hand, the layout,
    /// the foundations and the claimed corners. They are in the other hands, the dead hands
    /// and the stock, in an order the seat cannot know.
    pub fn unseen(&self) -> Vec<Card> {
        // Index 0–51: natural cards by face; 52: jokers.
        let mut left = [0u8; 53];
        let slot = |card: Card| card.face().map_or(52, Face::index);
        for face in Face::all() {
            left[face.index()] = self.rules.decks;
        }
        if self.rules.jokers {
            left[52] = 2 * self.rules.decks;
        }
        let placed = self
            .piles
            .iter()
            .chain(self.claimed.iter().flatten())
            .flatten()
            .map(|placed| placed.card());
        for card in self.hand.iter().copied().chain(placed) {
            let count = &mut left[slot(card)];
            *count = count.saturating_sub(1);
        }
        let mut unseen = Vec::with_capacity(self.stock_count + 8 * self.hand_counts.len());
        for face in Face::all() {
            for _ in 0..left[face.index()] {
                unseen.push(Card::Natural(face));
            }
        }
        unseen.extend(std::iter::repeat_n(Card::Joker, usize::from(left[52])));
        unseen
    }

    /// A whole state that agrees with everything this seat knows, the unseen cards dealt at
    /// random into the other hands (by their counts), the dead hands and the stock. Its secret
    /// is random too: hands dealt after this one are anybody's guess.
    pub fn sample(&self, rng: &mut impl RngCore) -> GameState {
        let mut unseen = self.unseen();
        for at in (1..unseen.len()).rev() {
            let other = (rng.next_u64() % (at as u64 + 1)) as usize;
            unseen.swap(at, other);
        }
        let mut deal = unseen.into_iter();
        let mut take = |count: usize| -> Vec<Card> { deal.by_ref().take(count).collect() };
        let sorted = |mut cards: Vec<Card>| {
            cards.sort_unstable();
            cards
        };
        let hands = (0..self.hand_counts.len())
            .map(|seat| {
                if seat == usize::from(self.seat) {
                    self.hand.clone()
                } else {
                    sorted(take(self.hand_counts[seat]))
                }
            })
            .collect();
        let set_aside = self
            .dead_hand_counts
            .iter()
            .map(|count| take(*count))
            .collect();
        // Already in a random order: the next card is the last.
        let stock = take(self.stock_count);
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        GameState {
            setup: Arc::new(Setup {
                rules: self.rules.clone(),
                secret,
                client_seeds: vec![String::new(); self.hand_counts.len()],
                first_dealer: None,
            }),
            status: self.status,
            hand_number: self.hand_number,
            dealer: self.dealer,
            turn: self.turn,
            turns_started: self.turns_started,
            hands,
            piles: self.piles.clone(),
            stock,
            progress: self.progress,
            consecutive_passes: self.consecutive_passes,
            penalties: self.penalties.clone(),
            totals: self.totals.clone(),
            hands_won: self.hands_won.clone(),
            active: self.active.clone(),
            left: self.left.clone(),
            set_aside,
            begun: self.begun,
            // Nothing a decision reads: only a rated match's end asks (docs/ratings.md).
            took_a_turn: vec![false; self.hand_counts.len()],
            claimed: self.claimed.clone(),
            pot: self.pot,
            chips: self.chips.clone(),
            last_hand: None,
            winners: None,
        }
    }
}
