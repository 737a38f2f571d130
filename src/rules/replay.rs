//! The checked replay of a stored log: every group of events must be exactly what
//! [`decide`](super::decide) (or [`GameState::start`]) gives for the action that opens it.
//! A corrupt or tampered log fails loudly, at the index where it goes wrong.

use super::Seat;
use super::action::Action;
use super::error::RuleError;
use super::event::{DrawReason, Event, OutReason};
use super::options::RulesError;
use super::state::{GameState, Setup, Status};

/// Where and why a log does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The setup itself is invalid.
    #[error("the match setup is invalid: {0}")]
    Setup(#[from] RulesError),
    /// The event at `index` is not one a player's action can open with.
    #[error("event {index} ({found}) does not follow from any action at that point")]
    NotAnAction {
        /// 0-based index in the log.
        index: usize,
        /// The event found, as JSON.
        found: String,
    },
    /// The action behind the event at `index` is refused by the rules.
    #[error("event {index} records an action the rules refuse: {error}")]
    Refused {
        /// 0-based index in the log.
        index: usize,
        /// Why the rules refuse it.
        error: RuleError,
    },
    /// The event at `index` differs from what the rules say happens.
    #[error("event {index} should be {expected} but the log has {found}")]
    Mismatch {
        /// 0-based index in the log.
        index: usize,
        /// What the rules produce, as JSON.
        expected: String,
        /// What the log holds, as JSON (`end of log` when it stops short).
        found: String,
    },
}

fn to_json(event: &Event) -> String {
    serde_json::to_string(event).unwrap_or_else(|_| format!("{event:?}"))
}

impl GameState {
    /// The action that the event opening a group records, if it can open one.
    pub fn action_behind(&self, event: &Event) -> Option<(Seat, Action)> {
        match *event {
            Event::CardPlayed { seat, card, to } => Some((
                seat,
                Action::Play {
                    card: card.card(),
                    as_face: card.joker.then_some(card.face),
                    to,
                },
            )),
            Event::PileMoved {
                seat,
                from,
                to,
                count,
            } => Some((
                seat,
                Action::Move {
                    from,
                    to,
                    count: self.rules().partial_runs.then_some(count),
                },
            )),
            Event::CardsDrawn {
                seat,
                reason: DrawReason::Draw,
                ..
            } => Some((seat, Action::Draw)),
            Event::CardsDrawn {
                seat,
                reason: DrawReason::TurnEnd,
                ..
            }
            | Event::KingHoldPenalized { seat, .. }
            | Event::ChipsToPot { seat, .. }
            | Event::TurnEnded { seat, .. } => Some((seat, Action::EndTurn)),
            Event::SeatOut {
                seat,
                reason: OutReason::Resign,
                ..
            } => Some((seat, Action::Resign)),
            Event::MatchAborted { seat } => Some((seat, Action::Abort)),
            _ => None,
        }
    }

    /// Checks the next group of a log (starting at `index`) and applies it; returns its length.
    ///
    /// The group is worked out on this state itself, so after an error the state is part-way
    /// through the refused or mismatched group: a caller stops there and drops it.
    pub fn replay_step(&mut self, events: &[Event], index: usize) -> Result<usize, ReplayError> {
        let first = &events[index];
        let refused = |error| ReplayError::Refused { index, error };
        let expected = if self.status == Status::NotStarted {
            self.start_in_place().map_err(refused)?
        } else if let Event::SeatOut {
            seat,
            reason: OutReason::Timeout,
            deadline: Some(deadline),
            ..
        } = first
        {
            // The server's forfeit of a seat out of time (whether the deadline had passed is
            // checked against the log's times by `verify`, not here: the engine keeps no time).
            self.forfeit_in_place(*seat, deadline.clone())
                .map_err(refused)?
        } else {
            let (seat, action) =
                self.action_behind(first)
                    .ok_or_else(|| ReplayError::NotAnAction {
                        index,
                        found: to_json(first),
                    })?;
            self.act(seat, action).map_err(refused)?
        };
        let logged = &events[index..(index + expected.len()).min(events.len())];
        if logged != expected.as_slice() {
            let offset = expected
                .iter()
                .zip(logged)
                .take_while(|(expected, logged)| expected == logged)
                .count();
            return Err(ReplayError::Mismatch {
                index: index + offset,
                expected: to_json(&expected[offset]),
                found: logged
                    .get(offset)
                    .map_or_else(|| "end of log".to_owned(), to_json),
            });
        }
        Ok(expected.len())
    }
}

/// Replays a whole log through the checked path and gives the resulting state: every group of
/// events must be what `decide` would say for some legal action, so a forged or reordered log
/// is refused.
///
/// ```
/// use kings_corner::rules::{Action, GameState, Preset, Rules, Setup, replay};
///
/// let setup = Setup {
///     rules: Rules { players: 2, ..Preset::Standard.rules() },
///     secret: [7; 32],
///     client_seeds: vec![String::new(); 2],
///     first_dealer: None,
/// };
/// let mut state = GameState::new(setup.clone()).unwrap();
/// let mut log = state.start().unwrap();
/// log.iter().for_each(|event| state.apply(event));
/// let seat = state.turn().unwrap();
/// log.extend(state.decide(seat, Action::EndTurn).unwrap());
///
/// assert_eq!(replay(setup.clone(), &log).unwrap().turn(), Some(1 - seat));
/// log.swap(0, 1);
/// assert!(replay(setup, &log).is_err(), "a reordered log is refused");
/// ```
pub fn replay(setup: Setup, events: &[Event]) -> Result<GameState, ReplayError> {
    let mut state = GameState::new(setup)?;
    let mut index = 0;
    while index < events.len() {
        index += state.replay_step(events, index)?;
    }
    Ok(state)
}
