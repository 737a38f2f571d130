//! Every legal action of the seat to move, in a stable order: plays (by card in canonical
//! order, then pile, then joker identity), moves (by source pile, run length, target pile),
//! then `draw`, then `end_turn`. A client never has to re-implement the rules.

use super::action::Action;
use super::card::{Card, Face};
use super::faces::{FaceSet, set_bits};
use super::pile::PileId;
use super::state::{GameState, Status};
use super::{MAX_ACTIONS_PER_TURN, Seat};

/// The faces each pile accepts, by [`PileId::index`].
type Accepted = [FaceSet; PileId::ALL.len()];

impl GameState {
    /// Every action `seat` may take now; empty when it is not their turn.
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
    /// # use kings_corner::rules::Action;
    /// let seat = state.turn().unwrap();
    /// let legal = state.legal_actions(seat);
    /// assert!(legal.contains(&Action::EndTurn), "a turn may always end (§3)");
    /// assert!(state.legal_actions(1 - seat).is_empty(), "not the other seat's turn");
    /// ```
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut actions = Vec::with_capacity(16);
        if self.status != Status::Playing || seat != self.turn {
            return actions;
        }
        if self.progress.actions >= MAX_ACTIONS_PER_TURN {
            actions.push(Action::EndTurn);
            return actions;
        }
        // What each pile takes, worked out once for every play and move listed.
        let mut accepted = [FaceSet::EMPTY; PileId::ALL.len()];
        for &pile in self.play_targets() {
            accepted[pile.index()] = self.accepted(pile);
        }
        let playable = accepted
            .iter()
            .fold(FaceSet::EMPTY, |faces, pile| faces.union(*pile));
        self.push_plays(seat, &accepted, playable, &mut actions);
        let can_play = !actions.is_empty();
        self.push_moves(&accepted, playable, &mut actions);
        if self.check_draw_when(|| can_play).is_ok() {
            actions.push(Action::Draw);
        }
        if self.check_end_turn(seat).is_ok() {
            actions.push(Action::EndTurn);
        }
        actions
    }

    /// `playable`: the faces some pile takes.
    fn push_plays(
        &self,
        seat: Seat,
        accepted: &Accepted,
        playable: FaceSet,
        actions: &mut Vec<Action>,
    ) {
        let targets = self.play_targets();
        if playable.is_empty() {
            return;
        }
        // Natural cards order before jokers (the hand's canonical order): the natural cards
        // that fit somewhere, each once, then a joker's every identity on every pile.
        let hand = self.hand(seat);
        let naturals: FaceSet = hand.iter().filter_map(|card| card.face()).collect();
        for face in naturals.intersection(playable).iter() {
            actions.extend(piles_in(takers(accepted, face)).map(|to| Action::Play {
                card: Card::Natural(face),
                as_face: None,
                to,
            }));
        }
        if hand.last() == Some(&Card::Joker) {
            for &to in targets {
                actions.extend(accepted[to.index()].iter().map(|face| Action::Play {
                    card: Card::Joker,
                    as_face: Some(face),
                    to,
                }));
            }
        }
    }

    fn push_moves(&self, accepted: &Accepted, playable: FaceSet, actions: &mut Vec<Action>) {
        let partial_runs = self.rules().partial_runs;
        for &from in PileId::TABLEAU {
            let source = self.pile(from);
            let len = source.len();
            if len == 0 {
                continue;
            }
            // Without partial runs the whole pile moves (`count` absent, §6.3).
            let counts = if partial_runs { 1..=len } else { len..=len };
            for run in counts {
                let count = partial_runs.then_some(run as u8);
                // The card that lands is the run's lowest, or the top card alone to a
                // foundation: a target that takes neither is passed over before the full check.
                let (lowest, top) = (source[len - run].face, source[len - 1].face);
                if !playable.contains(lowest) && !playable.contains(top) {
                    continue;
                }
                let lands = takers(accepted, lowest) | takers(accepted, top);
                for to in piles_in(lands) {
                    if self
                        .check_move_onto(from, to, count, accepted[to.index()])
                        .is_ok()
                    {
                        actions.push(Action::Move { from, to, count });
                    }
                }
            }
        }
    }
}

/// The piles that take `face`, as bits by [`PileId::index`] (worked out without a branch per
/// pile: which piles take a card is as good as random to a branch predictor).
fn takers(accepted: &Accepted, face: Face) -> u16 {
    accepted
        .iter()
        .enumerate()
        .fold(0, |piles, (index, faces)| {
            piles | u16::from(faces.contains(face)) << index
        })
}

/// The piles whose bits are set, in canonical order.
fn piles_in(piles: u16) -> impl Iterator<Item = PileId> {
    set_bits(u64::from(piles)).map(|index| PileId::ALL[index])
}
