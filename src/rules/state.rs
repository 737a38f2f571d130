//! The state of a match, and [`GameState::apply`], the fold of one event into it.
//!
//! `apply` records facts; it never decides anything. Every decision (is this legal, what does
//! the end of a turn bring, who won) is made by [`decide`](super::decide), which emits the events.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Seat;
use super::action::Action;
use super::card::{Card, PlacedCard};
use super::event::{DrawReason, Event, HandResult, OutReason};
use super::options::{DrawMode, Rules, RulesError};
use super::pile::PileId;
use super::shuffle::{self, Secret};

/// Everything fixed when a match starts: the rules, the secret and the client seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The table's rules (validated).
    pub rules: Rules,
    /// The match secret `S` of docs/rules.md §9. Never shown to players before the match ends.
    pub secret: Secret,
    /// One client seed per seat (`""` for none).
    pub client_seeds: Vec<String>,
    /// The first hand's dealer when it is set (a rematch: the deal moves on from the match
    /// before); `None`: drawn from the secret and the client seeds (docs/rules.md §9).
    pub first_dealer: Option<Seat>,
}

/// Where the match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Created; the first hand is not dealt yet: `open`, the word summaries use too (a
    /// replay at version 0 shows it).
    #[serde(rename = "open")]
    NotStarted,
    /// A hand is in play.
    Playing,
    /// The match is over.
    Finished,
    /// The match was called off before its first action (docs/rules.md §7.2).
    Aborted,
}

/// What the player to move has done this turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnProgress {
    /// Play, move and draw actions taken (bounded by [`MAX_ACTIONS_PER_TURN`](super::MAX_ACTIONS_PER_TURN)).
    pub actions: u16,
    /// The player used their `draw` action.
    pub drew_by_action: bool,
    /// Any card was drawn this turn (by any draw).
    pub drew_any: bool,
    /// A card left the player's hand.
    pub played_from_hand: bool,
}

/// The whole state of a match, hidden parts included. Players see it through
/// [`view`](super::view), never directly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameState {
    pub(crate) setup: Arc<Setup>,
    pub(crate) status: Status,
    pub(crate) hand_number: u32,
    pub(crate) dealer: Seat,
    pub(crate) turn: Seat,
    /// Turns begun in the match so far.
    pub(crate) turns_started: u32,
    /// Each seat's hand, kept sorted in canonical order.
    pub(crate) hands: Vec<Vec<Card>>,
    /// Every pile, bottom first, indexed by [`PileId::index`].
    pub(crate) piles: [Vec<PlacedCard>; 12],
    /// The stock with the next card **last**, so a draw is a pop.
    pub(crate) stock: Vec<Card>,
    pub(crate) progress: TurnProgress,
    pub(crate) consecutive_passes: u8,
    /// King-hold penalties taken this hand.
    pub(crate) penalties: Vec<u32>,
    pub(crate) totals: Vec<u32>,
    pub(crate) hands_won: Vec<u32>,
    /// Seats still in the game (`out_at_target`, resignations and timeouts remove seats).
    pub(crate) active: Vec<bool>,
    /// Why each seat that left the match left (docs/rules.md §7), in the order they left.
    pub(crate) left: Vec<(Seat, OutReason)>,
    /// Dead hands set aside this hand by seats that left (they count among the deck's cards).
    pub(crate) set_aside: Vec<Vec<Card>>,
    /// Whether any player has played, moved, drawn or ended a turn yet (§7.2: no abort after).
    pub(crate) begun: bool,
    /// Whether each seat has taken a turn of its own: ended a turn in which it played, moved or
    /// drew, or in which it could have (a turn the server ended because `end_turn` was all the
    /// seat could do does not count, nor one cut short by leaving or going out).
    pub(crate) took_a_turn: Vec<bool>,
    /// Corner piles claimed this hand, per seat.
    pub(crate) claimed: Vec<Vec<Vec<PlacedCard>>>,
    pub(crate) pot: u64,
    pub(crate) chips: Vec<i64>,
    pub(crate) last_hand: Option<HandResult>,
    pub(crate) winners: Option<Vec<Seat>>,
}

impl GameState {
    /// A match not started yet. Refuses invalid rules or a wrong number of client seeds.
    ///
    /// ```
    /// # use kings_corner::rules::{GameState, Preset, Rules, Setup};
    /// # let setup = Setup {
    /// #     rules: Rules { players: 2, ..Preset::Standard.rules() },
    /// #     secret: [7; 32],
    /// #     client_seeds: vec![String::new(); 2],
    /// #     first_dealer: None,
    /// # };
    /// let mut state = GameState::new(setup.clone()).unwrap();
    /// for event in state.start().unwrap() {
    ///     state.apply(&event); // the first deal: seven cards each, the four sides
    /// }
    /// assert_eq!(state.view(0).hand.map(|hand| hand.len()), Some(7));
    ///
    /// let short = Setup { client_seeds: vec![String::new()], ..setup };
    /// assert!(GameState::new(short).is_err(), "a seed per seat");
    /// ```
    pub fn new(setup: Setup) -> Result<GameState, RulesError> {
        setup.rules.validate()?;
        let players = usize::from(setup.rules.players);
        if setup.client_seeds.len() != players {
            return Err(RulesError {
                option: "client_seeds".to_owned(),
                message: format!(
                    "need one per seat: {players}, got {}",
                    setup.client_seeds.len()
                ),
            });
        }
        if setup
            .first_dealer
            .is_some_and(|dealer| usize::from(dealer) >= players)
        {
            return Err(RulesError {
                option: "first_dealer".to_owned(),
                message: format!("a seat of the {players}"),
            });
        }
        Ok(GameState {
            setup: Arc::new(setup),
            status: Status::NotStarted,
            hand_number: 0,
            dealer: 0,
            turn: 0,
            turns_started: 0,
            hands: vec![Vec::new(); players],
            piles: Default::default(),
            stock: Vec::new(),
            progress: TurnProgress::default(),
            consecutive_passes: 0,
            penalties: vec![0; players],
            totals: vec![0; players],
            hands_won: vec![0; players],
            active: vec![true; players],
            left: Vec::new(),
            set_aside: vec![Vec::new(); players],
            begun: false,
            took_a_turn: vec![false; players],
            claimed: vec![Vec::new(); players],
            pot: 0,
            chips: vec![0; players],
            last_hand: None,
            winners: None,
        })
    }

    /// The table's rules.
    pub fn rules(&self) -> &Rules {
        &self.setup.rules
    }

    /// The fixed setup (rules, secret, client seeds).
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// How many seats the table has (players out of the game still hold theirs).
    pub fn players(&self) -> u8 {
        self.setup.rules.players
    }

    /// Where the match is.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The current (or last) hand number, from 1; 0 before the start.
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }

    /// The seat to move, while a hand is in play.
    pub fn turn(&self) -> Option<Seat> {
        (self.status == Status::Playing).then_some(self.turn)
    }

    /// The dealer of the current hand.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    /// A seat's hand (canonical order).
    pub fn hand(&self, seat: Seat) -> &[Card] {
        self.hands.get(usize::from(seat)).map_or(&[], Vec::as_slice)
    }

    /// A pile, bottom first.
    pub fn pile(&self, pile: PileId) -> &[PlacedCard] {
        &self.piles[pile.index()]
    }

    /// Cards left in the stock.
    pub fn stock_count(&self) -> usize {
        self.stock.len()
    }

    /// Running totals per seat.
    pub fn totals(&self) -> &[u32] {
        &self.totals
    }

    /// The winners, once the match is over.
    pub fn winners(&self) -> Option<&[Seat]> {
        self.winners.as_deref()
    }

    /// The result of the last hand that ended.
    pub fn last_hand(&self) -> Option<&HandResult> {
        self.last_hand.as_ref()
    }

    /// What the player to move has done this turn.
    pub fn progress(&self) -> TurnProgress {
        self.progress
    }

    /// Whether a seat is still in the game.
    pub fn is_active(&self, seat: Seat) -> bool {
        self.active.get(usize::from(seat)).copied().unwrap_or(false)
    }

    /// Why a seat left the match, if it resigned or timed out.
    pub fn left_because(&self, seat: Seat) -> Option<OutReason> {
        self.left
            .iter()
            .find(|(left, _)| *left == seat)
            .map(|(_, reason)| *reason)
    }

    /// Seats that resigned or timed out, in the order they left.
    pub fn left(&self) -> &[(Seat, OutReason)] {
        &self.left
    }

    /// The seats that left the match (resigned or timed out) before they had taken a turn of
    /// their own, in the order they left.
    pub fn left_before_taking_a_turn(&self) -> impl Iterator<Item = Seat> + '_ {
        self.left
            .iter()
            .map(|(seat, _)| *seat)
            .filter(|seat| !self.took_a_turn[usize::from(*seat)])
    }

    /// Called as `seat`'s turn begins to end (before its end-of-turn draw, or at `turn_ended`
    /// when there is none): whether the turn was the seat's own. A turn with an action in it
    /// is; a turn without one is only if the seat had something else it could do, which is
    /// weighed on the table as it stood, so the log alone decides it (`verify` agrees).
    fn weigh_turn_end(&mut self, seat: Seat) {
        let index = usize::from(seat);
        if self.took_a_turn[index] {
            return;
        }
        // Only a seat that has not yet taken a turn pays for listing its actions, and only
        // at a turn without one.
        self.took_a_turn[index] =
            self.progress.actions > 0 || self.legal_actions(seat) != [Action::EndTurn];
    }

    /// Whether `abort` is still allowed: a hand is in play and nobody has acted yet (§7.2).
    pub fn can_abort(&self) -> bool {
        self.status == Status::Playing && self.hand_number == 1 && !self.begun
    }

    /// The next seat to the left that is still in the game.
    pub(crate) fn next_active(&self, seat: Seat) -> Seat {
        let players = self.players();
        let mut next = seat;
        for _ in 0..players {
            next = (next + 1) % players;
            if self.active[usize::from(next)] {
                return next;
            }
        }
        seat
    }

    pub(crate) fn active_count(&self) -> usize {
        self.active.iter().filter(|active| **active).count()
    }

    /// Every card the match's deck holds, wherever it is now (hands, layout, stock, claimed
    /// corners). Used to check that no card is ever lost or duplicated.
    pub fn all_cards(&self) -> Vec<Card> {
        let mut cards: Vec<Card> = self.hands.iter().flatten().copied().collect();
        cards.extend(self.set_aside.iter().flatten().copied());
        cards.extend(self.piles.iter().flatten().map(|placed| placed.card()));
        cards.extend(
            self.claimed
                .iter()
                .flatten()
                .flatten()
                .map(|placed| placed.card()),
        );
        cards.extend(self.stock.iter().copied());
        cards
    }

    /// Folds one event into the state. Events must come from [`decide`](super::decide) (or a
    /// log checked by [`replay`](super::replay)); `apply` records them without judging them.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::CardsDrawn {
                seat,
                reason: DrawReason::TurnEnd,
                ..
            } => self.weigh_turn_end(*seat),
            // With `draw: end`, a turn ended without an action was weighed before its draw
            // (the drawn cards would make plays it never had).
            Event::TurnEnded { seat, .. }
                if !(self.rules().draw == DrawMode::End && self.progress.drew_any) =>
            {
                self.weigh_turn_end(*seat)
            }
            _ => {}
        }
        match event {
            Event::HandDealt {
                hand,
                dealer,
                hands,
                layout,
                stock,
                ..
            } => {
                self.status = Status::Playing;
                self.hand_number = *hand;
                self.dealer = *dealer;
                for (seat_hand, dealt) in self.hands.iter_mut().zip(hands) {
                    *seat_hand = dealt.clone().unwrap_or_default();
                    seat_hand.sort_unstable();
                }
                for pile in &mut self.piles {
                    pile.clear();
                }
                for (side, face) in PileId::SIDES.iter().zip(layout) {
                    self.piles[side.index()].push(PlacedCard::natural(*face));
                }
                self.stock = stock.clone().unwrap_or_default();
                self.stock.reverse();
                self.consecutive_passes = 0;
                self.penalties.iter_mut().for_each(|points| *points = 0);
                self.claimed.iter_mut().for_each(Vec::clear);
                self.set_aside.iter_mut().for_each(Vec::clear);
                if let Some(chips) = self.setup.rules.chips {
                    for (balance, active) in self.chips.iter_mut().zip(&self.active) {
                        if *active {
                            *balance -= i64::from(chips.ante);
                            self.pot += u64::from(chips.ante);
                        }
                    }
                }
            }
            Event::TurnStarted { seat } => {
                self.turn = *seat;
                self.turns_started += 1;
                self.progress = TurnProgress::default();
            }
            Event::SideRefilled { pile, card } => {
                // Jokers met on the way went to the bottom of the stock (§6.2).
                while let Some(next) = self.stock.pop() {
                    if next == Card::Natural(*card) {
                        break;
                    }
                    self.stock.insert(0, next);
                }
                self.piles[pile.index()].push(PlacedCard::natural(*card));
            }
            Event::CardsDrawn {
                seat,
                reason,
                count,
                ..
            } => {
                let drawn = usize::from(*count).min(self.stock.len());
                let hand = &mut self.hands[usize::from(*seat)];
                for card in self.stock.drain(self.stock.len() - drawn..) {
                    let at = hand.partition_point(|held| *held < card);
                    hand.insert(at, card);
                }
                self.progress.drew_any = true;
                if *reason == DrawReason::Draw {
                    self.progress.drew_by_action = true;
                    self.progress.actions += 1;
                    self.begun = true;
                }
            }
            Event::CardPlayed { seat, card, to } => {
                let hand = &mut self.hands[usize::from(*seat)];
                if let Ok(at) = hand.binary_search(&card.card()) {
                    hand.remove(at);
                }
                self.piles[to.index()].push(*card);
                self.progress.played_from_hand = true;
                self.progress.actions += 1;
                self.begun = true;
            }
            Event::PileMoved {
                from, to, count, ..
            } => {
                let source = &mut self.piles[from.index()];
                let run = source.split_off(source.len().saturating_sub(usize::from(*count)));
                self.piles[to.index()].extend(run);
                self.progress.actions += 1;
                self.begun = true;
            }
            Event::CornerClaimed { seat, pile, .. } => {
                let cards = std::mem::take(&mut self.piles[pile.index()]);
                self.claimed[usize::from(*seat)].push(cards);
            }
            Event::KingHoldPenalized { seat, points } => {
                self.penalties[usize::from(*seat)] += points;
            }
            Event::ChipsToPot { seat, chips } => {
                self.chips[usize::from(*seat)] -= i64::from(*chips);
                self.pot += u64::from(*chips);
            }
            Event::TurnEnded { passed, .. } => {
                self.consecutive_passes = if *passed {
                    self.consecutive_passes + 1
                } else {
                    0
                };
                self.begun = true;
            }
            Event::HandEnded(result) => {
                self.totals.clone_from(&result.totals);
                for winner in &result.winners {
                    self.hands_won[usize::from(*winner)] += 1;
                }
                for seat in &result.eliminated {
                    self.active[usize::from(*seat)] = false;
                }
                if let Some(settlement) = &result.chips {
                    for (balance, payment) in self.chips.iter_mut().zip(&settlement.payments) {
                        *balance += payment;
                    }
                    if settlement.pot_won_by.is_some() {
                        self.pot = 0;
                    }
                }
                self.last_hand = Some(HandResult::clone(result));
            }
            Event::GameEnded { winners, .. } => {
                self.status = Status::Finished;
                self.winners = Some(winners.clone());
            }
            Event::SeatOut { seat, reason, .. } => {
                let index = usize::from(*seat);
                self.active[index] = false;
                self.left.push((*seat, *reason));
                self.set_aside[index] = std::mem::take(&mut self.hands[index]);
            }
            Event::MatchAborted { .. } => {
                self.status = Status::Aborted;
            }
        }
    }

    /// A state for tests: the given setup, a hand in play with this layout, hands and stock.
    #[doc(hidden)]
    pub fn arrange(
        setup: Setup,
        turn: Seat,
        hands: Vec<Vec<Card>>,
        piles: &[(PileId, Vec<PlacedCard>)],
        stock: Vec<Card>,
    ) -> GameState {
        let mut state = GameState::new(setup).expect("valid setup");
        state.status = Status::Playing;
        state.hand_number = 1;
        state.turn = turn;
        state.dealer = (turn + state.players() - 1) % state.players();
        for (seat, mut hand) in hands.into_iter().enumerate() {
            hand.sort_unstable();
            state.hands[seat] = hand;
        }
        for (pile, cards) in piles {
            state.piles[pile.index()] = cards.clone();
        }
        state.stock = stock;
        state.stock.reverse();
        state
    }
}

/// Draws the deck of a hand and deals it (docs/rules.md §6.1, §6.2): one card at a time to the
/// active seats from the dealer's left, as many rounds as the players dealt in get cards (§6.18); then four natural cards face up
/// (a joker turned up goes to the bottom of the stock); the rest is the stock, next card first.
pub(crate) fn deal(state: &GameState, hand: u32, dealer: Seat) -> Event {
    let setup = &state.setup;
    let rules = &setup.rules;
    let deck = shuffle::shuffled_deck(
        &setup.secret,
        &setup.client_seeds,
        hand,
        rules.decks,
        rules.jokers,
    );
    let players = usize::from(rules.players);
    let mut order = Vec::with_capacity(players);
    let mut seat = dealer;
    for _ in 0..state.active_count() {
        seat = state.next_active(seat);
        order.push(usize::from(seat));
    }
    let mut hands: Vec<Vec<Card>> = vec![Vec::new(); players];
    let mut cursor = 0;
    for _ in 0..rules.hand_size_for(order.len() as u8) {
        for &seat in &order {
            hands[seat].push(deck[cursor]);
            cursor += 1;
        }
    }
    let mut rest: std::collections::VecDeque<Card> = deck[cursor..].iter().copied().collect();
    let mut layout = Vec::with_capacity(4);
    // Validation guarantees at least four natural cards remain, so this ends.
    while layout.len() < 4 {
        match rest.pop_front() {
            Some(Card::Natural(face)) => layout.push(face),
            Some(Card::Joker) => rest.push_back(Card::Joker),
            None => break,
        }
    }
    let stock: Vec<Card> = rest.into_iter().collect();
    Event::HandDealt {
        hand,
        dealer,
        hands: hands.into_iter().map(Some).collect(),
        layout,
        stock_count: stock.len() as u16,
        stock: Some(stock),
    }
}
