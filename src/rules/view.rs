//! What a seat may see (docs/rules.md §8): the layout in full, the foundations, the stock count,
//! every seat's card count and scores, whose turn it is, the dealer — and only its own hand.
//! A spectator sees the same without any hand. Hands are revealed in `last_hand` when a hand ends.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Seat;
use super::action::Action;
use super::card::{Card, PlacedCard};
use super::event::{HandResult, OutReason};
use super::pile::PileId;
use super::state::{GameState, Status};

/// The OpenAPI shape of [`View::piles`]: each of the eight piles by its id, bottom → top.
#[derive(Serialize, ToSchema)]
#[allow(dead_code, non_snake_case)]
struct Tableau {
    N: Vec<PlacedCard>,
    E: Vec<PlacedCard>,
    S: Vec<PlacedCard>,
    W: Vec<PlacedCard>,
    NE: Vec<PlacedCard>,
    SE: Vec<PlacedCard>,
    SW: Vec<PlacedCard>,
    NW: Vec<PlacedCard>,
}

/// The OpenAPI shape of [`View::foundations`]: each foundation by its id, bottom → top.
#[derive(Serialize, ToSchema)]
#[allow(dead_code, non_snake_case)]
struct Foundations {
    FC: Vec<PlacedCard>,
    FD: Vec<PlacedCard>,
    FH: Vec<PlacedCard>,
    FS: Vec<PlacedCard>,
}

/// The table as one seat (or a spectator) sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct View {
    /// Where the match is.
    pub status: Status,
    /// The hand in play (or the last one), from 1.
    pub hand_number: u32,
    /// The viewer's seat; `null` for a spectator.
    pub your_seat: Option<Seat>,
    /// The viewer's hand in canonical order; `null` for a spectator.
    pub hand: Option<Vec<Card>>,
    /// The eight piles `N E S W NE SE SW NW`, each bottom → top.
    #[schema(value_type = Tableau)]
    pub piles: BTreeMap<PileId, Vec<PlacedCard>>,
    /// The foundations `FC FD FH FS`, bottom → top; `null` when not in play.
    #[schema(value_type = Option<Foundations>)]
    pub foundations: Option<BTreeMap<PileId, Vec<PlacedCard>>>,
    /// Cards left in the stock.
    pub stock_count: usize,
    /// Every seat's public state.
    pub seats: Vec<SeatView>,
    /// The seat to move; `null` when no hand is in play.
    pub turn: Option<Seat>,
    /// Turns begun in the match so far, the one running included: it changes with every new
    /// turn, also when the same seat is to move again (its other turns ended by themselves).
    pub turn_number: u32,
    /// The dealer of the hand.
    pub dealer: Seat,
    /// What the seat to move has done this turn.
    pub turn_progress: TurnProgressView,
    /// Chips in the pot, when playing for chips.
    pub pot: Option<u64>,
    /// The result of the last hand that ended, with every hand revealed.
    pub last_hand: Option<HandResult>,
    /// The winners, once the match is over.
    pub winners: Option<Vec<Seat>>,
    /// Every legal action, when it is the viewer's turn; otherwise empty. `resign` is always
    /// open to a seat still in, and `abort` while `can_abort`: neither is listed here.
    pub legal_actions: Vec<Action>,
    /// Whether the match may still be called off (`{"type": "abort"}`): nobody has acted yet,
    /// and no turn has ended (also a turn the server ended because `end_turn` was all it had).
    pub can_abort: bool,
    /// Every seat's hand: only in the open view of a finished match's replay; otherwise `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_hands: Option<Vec<Vec<Card>>>,
}

/// One seat as everybody sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatView {
    /// Seats are numbered from 0 in clockwise order.
    pub seat: Seat,
    /// How many cards the seat holds; never which.
    pub hand_count: usize,
    /// Penalty points taken this hand so far (king-hold penalties).
    pub hand_penalties: u32,
    /// Penalty points over the hands played so far.
    pub total: u32,
    /// How many hands the seat has won (for `game_end: hands_won`).
    pub hands_won: u32,
    /// Corner piles claimed this hand (`collect_corners`).
    pub claimed_corners: usize,
    /// Those piles, each bottom → top, as they left the layout.
    pub claimed: Vec<Vec<PlacedCard>>,
    /// Whether the seat is still in the game.
    pub in_game: bool,
    /// Why the seat left the match, if it resigned or timed out (docs/rules.md §7).
    pub left: Option<OutReason>,
    /// Chip balance, when playing for chips.
    pub chips: Option<i64>,
}

/// The public progress of the current turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TurnProgressView {
    /// Play, move and draw actions taken this turn.
    pub actions: u16,
    /// Whether the player used their mid-turn draw.
    pub drew: bool,
    /// Whether the player played a card from hand.
    pub played: bool,
}

impl GameState {
    /// The table as `seat` sees it: its own hand, everything public, and its legal actions.
    ///
    /// ```
    /// # use kings_corner::rules::{GameState, Preset, Rules, Setup};
    /// # let setup = Setup {
    /// #     rules: Rules { players: 2, ..Preset::Standard.rules() },
    /// #     secret: [7; 32],
    /// #     client_seeds: vec![String::new(); 2],
    /// #     first_dealer: None,
    /// # };
    /// # let mut state = GameState::new(setup).unwrap();
    /// # for event in state.start().unwrap() {
    /// #     state.apply(&event);
    /// # }
    /// let mine = state.view(0);
    /// assert!(mine.hand.is_some(), "its own hand");
    /// assert_eq!(mine.seats[1].hand_count, 7, "of the others, only how many cards they hold");
    /// assert!(state.spectator_view().hand.is_none());
    /// ```
    pub fn view(&self, seat: Seat) -> View {
        let mut view = self.spectator_view();
        if seat < self.players() {
            view.your_seat = Some(seat);
            view.hand = Some(self.hand(seat).to_vec());
            view.legal_actions = self.legal_actions(seat);
        }
        view
    }

    /// The table as a spectator sees it: everything public, no hand.
    pub fn spectator_view(&self) -> View {
        let chips_on = self.rules().chips.is_some();
        let piles_of = |ids: &[PileId]| {
            ids.iter()
                .map(|id| (*id, self.pile(*id).to_vec()))
                .collect()
        };
        View {
            status: self.status,
            hand_number: self.hand_number,
            your_seat: None,
            hand: None,
            piles: piles_of(PileId::TABLEAU),
            foundations: self
                .rules()
                .foundations
                .then(|| piles_of(PileId::FOUNDATIONS)),
            stock_count: self.stock.len(),
            seats: (0..self.players())
                .map(|seat| {
                    let index = usize::from(seat);
                    SeatView {
                        seat,
                        hand_count: self.hands[index].len(),
                        hand_penalties: self.penalties[index],
                        total: self.totals[index],
                        hands_won: self.hands_won[index],
                        claimed_corners: self.claimed[index].len(),
                        claimed: self.claimed[index].clone(),
                        in_game: self.active[index],
                        left: self.left_because(seat),
                        chips: chips_on.then_some(self.chips[index]),
                    }
                })
                .collect(),
            turn: self.turn(),
            turn_number: self.turns_started,
            dealer: self.dealer,
            turn_progress: TurnProgressView {
                actions: self.progress.actions,
                drew: self.progress.drew_by_action,
                played: self.progress.played_from_hand,
            },
            pot: chips_on.then_some(self.pot),
            last_hand: self.last_hand.clone(),
            winners: self.winners.clone(),
            legal_actions: Vec::new(),
            can_abort: self.can_abort(),
            all_hands: None,
        }
    }

    /// Everything, every hand included: for replays of a finished match, when nothing is secret.
    pub fn open_view(&self) -> View {
        View {
            all_hands: Some(self.hands.clone()),
            ..self.spectator_view()
        }
    }
}
