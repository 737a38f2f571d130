//! `decide`: judge an action against the state and say what happens, as events.
//!
//! Judging comes first and changes nothing: a refused action is refused before anything runs.
//! A judged action is a [`Step`]. A simple play or move gives its one event (and a claimed
//! corner) outright. Anything that sets automatic steps going — the end of a turn, a draw, going
//! out, leaving — runs as a [`Script`] that applies each event as it emits it, so each step sees
//! the effect of the one before: the end-of-turn draw, the pass count, the next turn's refills
//! and draw, the end of the hand, the next deal, the end of the match. [`GameState::decide`]
//! runs it on a scratch copy; [`GameState::act`] on the state itself.

use super::action::Action;
use super::card::{Card, PlacedCard, Rank};
use super::error::RuleError;
use super::event::{ChipSettlement, DrawReason, Event, HandOutcome, HandResult, OutReason};
use super::options::{BlockedRule, ChipPay, DrawMode, EmptySide, GameEnd, NextDeal};
use super::pile::{PileId, PileKind};
use super::shuffle;
use super::state::{self, GameState, Status};
use super::{MAX_ACTIONS_PER_TURN, Seat};

impl GameState {
    /// The events that start the match: the first deal and the first turn.
    pub fn start(&self) -> Result<Vec<Event>, RuleError> {
        self.judge_start().map(|step| self.scratch(step))
    }

    /// Judges `action` by `seat`: the events it causes, or why it is refused. Nothing changes
    /// until the events are applied.
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
    /// # use kings_corner::rules::{Action, RuleError};
    /// let seat = state.turn().unwrap();
    /// let refused = state.decide(1 - seat, Action::EndTurn).unwrap_err();
    /// assert_eq!(refused.code(), "not_your_turn");
    ///
    /// for event in state.decide(seat, Action::EndTurn).unwrap() {
    ///     state.apply(&event);
    /// }
    /// assert_eq!(state.turn(), Some(1 - seat));
    /// ```
    pub fn decide(&self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        self.judge_action(seat, action)
            .map(|step| self.scratch(step))
    }

    /// The server's decision when the seat to move has run out of time: it is out, and the
    /// turn passes (docs/rules.md §7.3). `deadline` (RFC 3339) is the one enforced; the engine keeps
    /// no time, so whether it has passed is for the server (and `verify`) to check.
    pub fn forfeit(&self, seat: Seat, deadline: String) -> Result<Vec<Event>, RuleError> {
        self.judge_forfeit(seat, deadline)
            .map(|step| self.scratch(step))
    }

    /// [`start`](GameState::start), applied: the state moves past the events it returns.
    pub fn start_in_place(&mut self) -> Result<Vec<Event>, RuleError> {
        let step = self.judge_start()?;
        Ok(step.run(self))
    }

    /// [`decide`](GameState::decide) and [`apply`](GameState::apply) in one: the same events,
    /// with the state moved past them. A refused action changes nothing. Cheaper than the two
    /// apart: the automatic steps run on this state rather than on a scratch copy.
    pub fn act(&mut self, seat: Seat, action: Action) -> Result<Vec<Event>, RuleError> {
        let step = self.judge_action(seat, action)?;
        Ok(step.run(self))
    }

    /// [`forfeit`](GameState::forfeit), applied: the state moves past the events it returns.
    pub fn forfeit_in_place(
        &mut self,
        seat: Seat,
        deadline: String,
    ) -> Result<Vec<Event>, RuleError> {
        let step = self.judge_forfeit(seat, deadline)?;
        Ok(step.run(self))
    }

    /// The events of `step` without changing this state: its own events when it sets nothing
    /// going, or the automatic steps run on a scratch copy.
    fn scratch(&self, step: Step) -> Vec<Event> {
        match step {
            Step::Events(events) => events,
            step => step.run(&mut self.clone()),
        }
    }

    fn judge_start(&self) -> Result<Step, RuleError> {
        if self.status != Status::NotStarted {
            return Err(RuleError::HandOver);
        }
        let setup = &self.setup;
        let dealer = setup.first_dealer.unwrap_or_else(|| {
            shuffle::first_dealer(&setup.secret, &setup.client_seeds, self.players())
        });
        Ok(Step::Deal { dealer })
    }

    fn judge_forfeit(&self, seat: Seat, deadline: String) -> Result<Step, RuleError> {
        self.check_to_move(seat)?;
        Ok(Step::Leave {
            seat,
            reason: OutReason::Timeout,
            deadline: Some(deadline),
        })
    }

    /// Checks `action` by `seat` and says what it sets going; nothing is changed yet.
    fn judge_action(&self, seat: Seat, action: Action) -> Result<Step, RuleError> {
        match action {
            Action::Resign => {
                self.check_still_in(seat)?;
                return Ok(Step::Leave {
                    seat,
                    reason: OutReason::Resign,
                    deadline: None,
                });
            }
            Action::Abort => {
                self.check_still_in(seat)?;
                if !self.can_abort() {
                    return Err(RuleError::TooLateToAbort);
                }
                return Ok(Step::Events(vec![Event::MatchAborted { seat }]));
            }
            _ => self.check_turn(seat, action)?,
        }
        match action {
            Action::Play { card, as_face, to } => {
                let placed = self.check_play(seat, card, as_face, to)?;
                let mut events = vec![Event::CardPlayed {
                    seat,
                    card: placed,
                    to,
                }];
                let top_after = Some(placed);
                self.push_corner_claim(seat, to, top_after, &[placed], &mut events);
                if self.hand(seat).len() == 1 {
                    Ok(Step::GoOut { seat, events })
                } else {
                    Ok(Step::Events(events))
                }
            }
            Action::Move { from, to, count } => {
                let run = self.check_move(from, to, count)?;
                let source = self.pile(from);
                let moved = &source[source.len() - usize::from(run)..];
                let mut events = vec![Event::PileMoved {
                    seat,
                    from,
                    to,
                    count: run,
                }];
                self.push_corner_claim(seat, to, moved.last().copied(), moved, &mut events);
                Ok(Step::Events(events))
            }
            Action::Draw => {
                self.check_draw(seat)?;
                Ok(Step::Draw { seat })
            }
            Action::EndTurn => {
                self.check_end_turn(seat)?;
                Ok(Step::EndTurn { seat })
            }
            Action::Resign | Action::Abort => unreachable!("judged above"),
        }
    }

    #[inline]
    fn check_still_in(&self, seat: Seat) -> Result<(), RuleError> {
        if self.status != Status::Playing {
            return Err(RuleError::HandOver);
        }
        if seat >= self.players() {
            return Err(RuleError::UnknownSeat(seat));
        }
        if !self.is_active(seat) {
            return Err(RuleError::SeatOut(seat));
        }
        Ok(())
    }

    /// Whether `seat` is the seat to move, in a hand being played.
    #[inline]
    pub fn check_to_move(&self, seat: Seat) -> Result<(), RuleError> {
        self.check_still_in(seat)?;
        if seat != self.turn {
            return Err(RuleError::NotYourTurn {
                seat,
                turn: self.turn,
            });
        }
        Ok(())
    }

    fn check_turn(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        self.check_to_move(seat)?;
        if action.counts_towards_bound() && self.progress.actions >= MAX_ACTIONS_PER_TURN {
            return Err(RuleError::ActionLimit);
        }
        Ok(())
    }

    /// `collect_corners`: a corner whose top becomes an ace is claimed by the player (§6.12).
    fn push_corner_claim(
        &self,
        seat: Seat,
        to: PileId,
        top_after: Option<PlacedCard>,
        added: &[PlacedCard],
        events: &mut Vec<Event>,
    ) {
        let completes = self.rules().collect_corners
            && to.kind() == PileKind::Corner
            && top_after.is_some_and(|top| top.face.rank() == Rank::ACE);
        if completes {
            let mut cards = self.pile(to).to_vec();
            cards.extend_from_slice(added);
            events.push(Event::CornerClaimed {
                seat,
                pile: to,
                cards,
            });
        }
    }

    pub(crate) fn check_draw(&self, seat: Seat) -> Result<(), RuleError> {
        self.check_draw_when(|| self.can_play_from_hand(seat))
    }

    /// The draw's conditions, asking whether a card can be played (the costly one) last.
    pub(crate) fn check_draw_when(&self, can_play: impl FnOnce() -> bool) -> Result<(), RuleError> {
        let rules = self.rules();
        let mid_turn_draws = rules.draw == DrawMode::WhenStuck || rules.draw_until_playable;
        if !mid_turn_draws {
            return Err(RuleError::DrawNotAllowed(
                "At this table you draw only as part of the turn: end the turn instead.",
            ));
        }
        if self.progress.drew_by_action {
            return Err(RuleError::DrawNotAllowed(
                "You have already drawn this turn.",
            ));
        }
        if self.stock.is_empty() {
            return Err(RuleError::DrawNotAllowed("The stock is empty."));
        }
        if can_play() {
            return Err(RuleError::DrawNotAllowed(
                "A card in your hand can be played: you may draw only when stuck.",
            ));
        }
        Ok(())
    }

    pub(crate) fn check_end_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if self.progress.actions >= MAX_ACTIONS_PER_TURN {
            return Ok(());
        }
        let rules = self.rules();
        let stuck_with_stock = || !self.stock.is_empty() && !self.can_play_from_hand(seat);
        if rules.draw == DrawMode::WhenStuck
            && !self.progress.played_from_hand
            && !self.progress.drew_by_action
        {
            if stuck_with_stock() {
                return Err(RuleError::MustDraw);
            }
            if self.can_play_from_hand(seat) {
                return Err(RuleError::MustPlay(
                    "A card in your hand can be played: play one before ending the turn (or end it after drawing when stuck).",
                ));
            }
        }
        if rules.draw_until_playable && !self.progress.drew_by_action && stuck_with_stock() {
            return Err(RuleError::MustDraw);
        }
        if rules.must_play && self.can_play_from_hand(seat) {
            return Err(RuleError::MustPlay(
                "A card in your hand fits: at this table you must play it before ending the turn.",
            ));
        }
        Ok(())
    }
}

/// What a judged action sets going, not yet run.
enum Step {
    /// A play or move that sets nothing going: its events are all there is.
    Events(Vec<Event>),
    /// The deal of the first hand and the first turn.
    Deal { dealer: Seat },
    /// A play of the last card in hand: its events, then the end of the hand.
    GoOut { seat: Seat, events: Vec<Event> },
    /// The mid-turn draw, and the end of the turn it may bring.
    Draw { seat: Seat },
    /// The end of the turn and everything it brings.
    EndTurn { seat: Seat },
    /// A resignation or a forfeit.
    Leave {
        seat: Seat,
        reason: OutReason,
        deadline: Option<String>,
    },
}

impl Step {
    /// Runs the step on `state`, applying each event as it is emitted; gives the events.
    fn run(self, state: &mut GameState) -> Vec<Event> {
        let mut script = Script {
            state,
            events: Vec::new(),
        };
        match self {
            Step::Events(events) => {
                for event in &events {
                    script.state.apply(event);
                }
                script.events = events;
            }
            Step::Deal { dealer } => script.deal(1, dealer),
            Step::GoOut { seat, events } => {
                for event in events {
                    script.emit(event);
                }
                script.end_hand(HandOutcome::WentOut { seat });
            }
            Step::Draw { seat } => script.draw_action(seat),
            Step::EndTurn { seat } => script.end_turn(seat),
            Step::Leave {
                seat,
                reason,
                deadline,
            } => script.leave(seat, reason, deadline),
        }
        script.events
    }
}

/// A state that applies each event as it is emitted, so each automatic step sees the effect of
/// the one before.
struct Script<'a> {
    state: &'a mut GameState,
    events: Vec<Event>,
}

impl Script<'_> {
    fn emit(&mut self, event: Event) {
        self.state.apply(&event);
        self.events.push(event);
    }

    /// The next `count` stock cards, next first.
    fn peek_stock(&self, count: usize) -> Vec<Card> {
        self.state.stock.iter().rev().take(count).copied().collect()
    }

    fn draw(&mut self, seat: Seat, reason: DrawReason, count: usize) {
        let cards = self.peek_stock(count);
        if !cards.is_empty() {
            self.emit(Event::CardsDrawn {
                seat,
                reason,
                count: cards.len() as u8,
                cards: Some(cards),
            });
        }
    }

    fn deal(&mut self, hand: u32, dealer: Seat) {
        let dealt = state::deal(self.state, hand, dealer);
        self.emit(dealt);
        let first = self.state.next_active(dealer);
        self.start_turn(first);
    }

    fn start_turn(&mut self, seat: Seat) {
        self.emit(Event::TurnStarted { seat });
        let rules = self.state.rules().clone();
        if rules.empty_side == EmptySide::FromStock {
            // Refill first, then the start-of-turn draw (§6.8).
            for pile in PileId::SIDES {
                if !self.state.pile(pile).is_empty() {
                    continue;
                }
                let next_natural = self.state.stock.iter().rev().find_map(|card| card.face());
                match next_natural {
                    Some(card) => self.emit(Event::SideRefilled { pile, card }),
                    None => break,
                }
            }
        }
        if rules.draw == DrawMode::Start {
            self.draw(seat, DrawReason::TurnStart, usize::from(rules.draw_count));
        }
    }

    /// The player's mid-turn draw (`when_stuck`, `draw_until_playable`).
    fn draw_action(&mut self, seat: Seat) {
        let rules = self.state.rules().clone();
        if rules.draw == DrawMode::WhenStuck {
            self.draw(seat, DrawReason::Draw, usize::from(rules.draw_count));
            // §6.7: if none of the drawn cards can be played, the turn ends by itself.
            if !self.state.can_play_from_hand(seat) {
                self.end_turn(seat);
            }
        } else {
            // §6.6: one card at a time until one can be played or the stock is empty.
            let mut count = 0;
            for card in self.state.stock.iter().rev() {
                count += 1;
                if self.state.card_can_be_played(*card) {
                    break;
                }
            }
            self.draw(seat, DrawReason::Draw, count);
        }
    }

    fn end_turn(&mut self, seat: Seat) {
        let rules = self.state.rules().clone();
        let holds_king = self.state.hand(seat).iter().any(|card| card.is_king());
        let corner_empty = PileId::CORNERS
            .iter()
            .any(|corner| self.state.pile(*corner).is_empty());
        if rules.king_hold_penalty > 0 && holds_king && corner_empty {
            self.emit(Event::KingHoldPenalized {
                seat,
                points: rules.king_hold_penalty,
            });
        }
        if rules.draw == DrawMode::End {
            self.draw(seat, DrawReason::TurnEnd, usize::from(rules.draw_count));
        }
        let progress = self.state.progress;
        if let Some(chips) = rules.chips
            && chips.idle_turn > 0
            && progress.drew_any
            && !progress.played_from_hand
        {
            self.emit(Event::ChipsToPot {
                seat,
                chips: chips.idle_turn,
            });
        }
        let passed =
            self.state.stock.is_empty() && !progress.drew_any && !progress.played_from_hand;
        self.emit(Event::TurnEnded { seat, passed });
        if passed && usize::from(self.state.consecutive_passes) >= self.state.active_count() {
            self.end_hand(HandOutcome::Blocked);
        } else {
            let next = self.state.next_active(seat);
            self.start_turn(next);
        }
    }

    /// A seat leaves the match: its hand is set aside; if it was its turn, the turn passes at
    /// once (no draw, no penalty); the last seat still in wins the match (§7.3–4).
    fn leave(&mut self, seat: Seat, reason: OutReason, deadline: Option<String>) {
        let had_the_turn = self.state.turn == seat;
        let hand = self.state.hand(seat).to_vec();
        self.emit(Event::SeatOut {
            seat,
            reason,
            deadline,
            hand: Some(hand),
        });
        if self.state.active_count() == 1 {
            let winners = (0..self.state.players())
                .filter(|seat| self.state.is_active(*seat))
                .collect();
            let totals = self.state.totals.clone();
            self.emit(Event::GameEnded { winners, totals });
        } else if had_the_turn {
            let next = self.state.next_active(seat);
            self.start_turn(next);
        }
    }

    fn end_hand(&mut self, outcome: HandOutcome) {
        let result = hand_result(self.state, outcome);
        let hand = result.hand;
        let single_winner = match result.winners[..] {
            [winner] => Some(winner),
            _ => None,
        };
        self.emit(Event::HandEnded(Box::new(result)));
        // docs/rules.md §4 `next_deal`: the winner deals when there is one, still in the game
        // (with `out_at_target`, a winner by corners may reach the target and be out).
        let next_dealer = match (self.state.rules().next_deal, single_winner) {
            (NextDeal::Winner, Some(winner)) if self.state.is_active(winner) => winner,
            _ => self.state.next_active(self.state.dealer),
        };
        match game_winners(self.state) {
            Some(winners) => {
                let totals = self.state.totals.clone();
                self.emit(Event::GameEnded { winners, totals });
            }
            None => self.deal(hand + 1, next_dealer),
        }
    }
}

/// Scores the hand that just ended (docs/rules.md §2 scoring, §6.10–§6.14).
fn hand_result(state: &GameState, outcome: HandOutcome) -> HandResult {
    let rules = state.rules();
    let players = usize::from(state.players());
    let seats = || (0..players).filter(|seat| state.active[*seat]);
    let card_points: Vec<u32> = state
        .hands
        .iter()
        .map(|hand| {
            hand.iter()
                .map(|card| rules.scoring.card_points(*card))
                .sum()
        })
        .collect();
    let base_winner: Option<usize> = match outcome {
        HandOutcome::WentOut { seat } => Some(usize::from(seat)),
        HandOutcome::Blocked if rules.blocked == BlockedRule::FewestCardsWins => {
            let fewest = seats()
                .map(|seat| state.hands[seat].len())
                .min()
                .unwrap_or(0);
            let mut with_fewest = seats().filter(|seat| state.hands[*seat].len() == fewest);
            match (with_fewest.next(), with_fewest.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        }
        HandOutcome::Blocked => None,
    };
    let mut hand_scores = vec![0; players];
    for seat in seats() {
        let cards = if Some(seat) == base_winner {
            0
        } else {
            card_points[seat]
        };
        hand_scores[seat] = cards + state.penalties[seat];
    }
    let claimed_corners: Vec<u8> = state
        .claimed
        .iter()
        .map(|claimed| claimed.len() as u8)
        .collect();
    let most_claimed = claimed_corners.iter().copied().max().unwrap_or(0);
    let winners: Vec<Seat> = if rules.collect_corners && most_claimed > 0 {
        seats()
            .filter(|seat| claimed_corners[*seat] == most_claimed)
            .map(|seat| seat as Seat)
            .collect()
    } else {
        base_winner.map(|seat| seat as Seat).into_iter().collect()
    };
    let totals: Vec<u32> = state
        .totals
        .iter()
        .zip(&hand_scores)
        .map(|(total, score)| total + score)
        .collect();
    let chips = rules.chips.map(|chips| {
        let mut payments = vec![0i64; players];
        let pot_won_by = match outcome {
            HandOutcome::WentOut { seat } => Some(seat),
            HandOutcome::Blocked => None,
        };
        if let Some(winner) = pot_won_by {
            for seat in seats().filter(|seat| *seat != usize::from(winner)) {
                let owed: i64 = state.hands[seat]
                    .iter()
                    .map(|card| {
                        let kingly = card.is_king() || *card == Card::Joker;
                        match (chips.pay, kingly) {
                            (ChipPay::Penalty, true) => 10,
                            (ChipPay::Penalty, false) => 1,
                            (ChipPay::PerKing, true) => 1,
                            (ChipPay::PerKing, false) => 0,
                        }
                    })
                    .sum();
                payments[seat] -= owed;
                payments[usize::from(winner)] += owed;
            }
            payments[usize::from(winner)] += state.pot as i64;
        }
        ChipSettlement {
            pot_won_by,
            pot: state.pot,
            payments,
        }
    });
    let eliminated = match rules.game_end {
        GameEnd::OutAtTarget(target) => seats()
            .filter(|seat| totals[*seat] >= target)
            .map(|seat| seat as Seat)
            .collect(),
        _ => Vec::new(),
    };
    HandResult {
        hand: state.hand_number,
        outcome,
        hands: state.hands.clone(),
        hand_scores,
        totals,
        winners,
        claimed_corners,
        chips,
        eliminated,
    }
}

/// Whether the match ends after the hand just recorded, and who won (docs/rules.md §4 `game_end`).
fn game_winners(state: &GameState) -> Option<Vec<Seat>> {
    let result = state.last_hand.as_ref()?;
    let totals = &state.totals;
    let players = state.players();
    let lowest = |candidates: &mut dyn Iterator<Item = Seat>, score: &dyn Fn(Seat) -> u32| {
        let candidates: Vec<Seat> = candidates.collect();
        let best = candidates.iter().map(|seat| score(*seat)).min()?;
        Some(
            candidates
                .into_iter()
                .filter(|seat| score(*seat) == best)
                .collect::<Vec<_>>(),
        )
    };
    let total_of = |seat: Seat| totals[usize::from(seat)];
    // Seats that resigned or timed out rank below every seat still in (§7.5).
    let still_in = || (0..players).filter(|seat| state.is_active(*seat));
    match state.rules().game_end {
        GameEnd::Target(target) => {
            if still_in().any(|seat| total_of(seat) >= target) {
                lowest(&mut still_in(), &total_of)
            } else {
                None
            }
        }
        GameEnd::SingleHand => {
            if result.winners.is_empty() {
                let score_of = |seat: Seat| result.hand_scores[usize::from(seat)];
                lowest(
                    &mut (0..players).filter(|seat| state.is_active(*seat)),
                    &score_of,
                )
            } else {
                Some(result.winners.clone())
            }
        }
        GameEnd::OutAtTarget(_) => match state.active_count() {
            0 => lowest(&mut result.eliminated.iter().copied(), &total_of),
            1 => Some((0..players).filter(|seat| state.is_active(*seat)).collect()),
            _ => None,
        },
        GameEnd::HandsWon(needed) => {
            let won = |seat: Seat| state.hands_won[usize::from(seat)];
            let most = still_in().map(won).max().unwrap_or(0);
            (most >= needed).then(|| still_in().filter(|seat| won(*seat) == most).collect())
        }
        GameEnd::Hands(count) => {
            if state.hand_number >= count {
                lowest(&mut still_in(), &total_of)
            } else {
                None
            }
        }
    }
}
