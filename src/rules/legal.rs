//! Every legal action of the seat to move, in a stable order: plays (by card in canonical
//! order, then pile, then joker identity), moves (by source pile, run length, target pile),
//! then `draw`, then `end_turn`. A client never has to re-implement the rules.

use super::action::Action;
use super::card::{Card, Face, PlacedCard};
use super::pile::PileId;
use super::state::{GameState, Status};
use super::{MAX_ACTIONS_PER_TURN, Seat};

impl GameState {
    /// Every action `seat` may take now; empty when it is not their turn.
    pub fn legal_actions(&self, seat: Seat) -> Vec<Action> {
        let mut actions = Vec::with_capacity(16);
        if self.status != Status::Playing || seat != self.turn {
            return actions;
        }
        if self.progress.actions >= MAX_ACTIONS_PER_TURN {
            actions.push(Action::EndTurn);
            return actions;
        }
        self.push_plays(seat, &mut actions);
        let can_play = !actions.is_empty();
        self.push_moves(&mut actions);
        if self.check_draw_when(|| can_play).is_ok() {
            actions.push(Action::Draw);
        }
        if self.check_end_turn(seat).is_ok() {
            actions.push(Action::EndTurn);
        }
        actions
    }

    fn push_plays(&self, seat: Seat, actions: &mut Vec<Action>) {
        let targets = self.play_targets();
        let mut previous = None;
        for &card in self.hand(seat) {
            if previous == Some(card) {
                continue;
            }
            previous = Some(card);
            for &to in targets {
                match card {
                    Card::Natural(face) => {
                        if self.accepts(to, PlacedCard::natural(face)).is_ok() {
                            actions.push(Action::Play {
                                card,
                                as_face: None,
                                to,
                            });
                        }
                    }
                    Card::Joker => {
                        for face in Face::all() {
                            if self.accepts(to, PlacedCard { face, joker: true }).is_ok() {
                                actions.push(Action::Play {
                                    card,
                                    as_face: Some(face),
                                    to,
                                });
                            }
                        }
                    }
                }
            }
        }
    }

    fn push_moves(&self, actions: &mut Vec<Action>) {
        let partial_runs = self.rules().partial_runs;
        for &from in PileId::TABLEAU {
            let len = self.pile(from).len();
            if len == 0 {
                continue;
            }
            // Without partial runs the whole pile moves (`count` absent, §6.3).
            let counts = if partial_runs { 1..=len } else { len..=len };
            for run in counts {
                let count = partial_runs.then_some(run as u8);
                for &to in self.play_targets() {
                    if self.check_move(from, to, count).is_ok() {
                        actions.push(Action::Move { from, to, count });
                    }
                }
            }
        }
    }
}
