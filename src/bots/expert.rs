//! `expert`: information-set Monte Carlo search.
//!
//! The seat cannot see the other hands or the stock, so it imagines them: each sample deals the
//! cards it has not seen at random into the places it cannot see ([`Knowledge::sample`]),
//! consistent with every count it knows. On each imagined deal every candidate (the legal
//! actions `basic` ranks highest) is played, then the hand is played out to its end with
//! `basic` for every seat. The candidate that wins the most imagined hands is chosen. All
//! candidates meet the same imagined deals, so they are compared on equal luck.

use rand_core::RngCore;

use super::Decision;
use super::basic;
use super::position::Imagined;
use crate::rules::{Action, Event, GameState, Knowledge, Seat, Status};

/// How much search one decision may use. A budget in samples rather than time keeps decisions
/// reproducible from their seed, on any machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Imagined deals per decision.
    pub samples: usize,
    /// The legal actions searched, best first by `basic`.
    pub candidates: usize,
}

impl Default for Budget {
    /// Measured with `kings-corner tournament` (docs/bots.md): about 25 ms a decision on this
    /// project's 2-core machine, well inside the 100 ms target.
    fn default() -> Budget {
        Budget {
            samples: 64,
            candidates: 8,
        }
    }
}

/// Most actions one imagined playout takes before it is scored as it stands.
const PLAYOUT_LIMIT: usize = 3_000;

pub(crate) fn decide(knowledge: &Knowledge, rng: &mut impl RngCore, budget: Budget) -> Decision {
    let ranked = basic::ranked(knowledge, knowledge.legal_actions());
    let candidates = &ranked[..ranked.len().min(budget.candidates.max(1))];
    let seat = knowledge.seat();
    if candidates.len() == 1 || budget.samples == 0 {
        return explained(knowledge, candidates[0], None);
    }
    let mut wins = vec![0.0f64; candidates.len()];
    for _ in 0..budget.samples {
        let imagined = knowledge.sample(rng);
        for (candidate, total) in candidates.iter().zip(&mut wins) {
            *total += playout(&imagined, seat, *candidate);
        }
    }
    // The first of equals: `basic`'s favourite among them.
    let mut best = 0;
    for (index, total) in wins.iter().enumerate() {
        if *total > wins[best] {
            best = index;
        }
    }
    let share = wins[best] / budget.samples as f64;
    explained(knowledge, candidates[best], Some((share, budget.samples)))
}

fn explained(knowledge: &Knowledge, action: Action, won: Option<(f64, usize)>) -> Decision {
    let mut reason = basic::reason(knowledge, &action);
    if let Some((share, samples)) = won {
        reason.push_str(&format!(
            " (won {:.0} % of {samples} imagined hands)",
            share * 100.0
        ));
    }
    Decision { action, reason }
}

/// `first` by `seat` on an imagined deal, then the hand played out by `basic` for everyone:
/// 1 for a hand `seat` wins alone, a share for a shared win, 0 otherwise (a little for a lower
/// score than the others, so that a lost hand is lost by as little as possible).
fn playout(imagined: &GameState, seat: Seat, first: Action) -> f64 {
    let mut state = imagined.clone();
    let mut action = first;
    let mut mover = seat;
    for _ in 0..PLAYOUT_LIMIT {
        let Ok(events) = state.act(mover, action) else {
            // The engine refused what `basic` chose from its own legal list: score it as lost
            // rather than stop a match (the property tests make sure this never happens).
            return 0.0;
        };
        for event in &events {
            if let Event::HandEnded(result) = event {
                return hand_value(seat, &result.winners, &result.hand_scores);
            }
        }
        if state.status() != Status::Playing {
            return 0.0;
        }
        let Some(next) = state.turn() else {
            return 0.0;
        };
        mover = next;
        let position = Imagined {
            state: &state,
            seat: mover,
        };
        let legal = position.legal_actions();
        action = basic::best(&position, &legal);
    }
    // Played out too long without an end: as good as the hand counts show.
    let counts: Vec<u32> = (0..state.players())
        .map(|other| state.hand(other).len() as u32)
        .collect();
    hand_value(seat, &[], &counts)
}

fn hand_value(seat: Seat, winners: &[Seat], scores: &[u32]) -> f64 {
    let mine = f64::from(scores[usize::from(seat)]);
    let others = scores.len().saturating_sub(1).max(1) as f64;
    let mean_other = (scores.iter().map(|score| f64::from(*score)).sum::<f64>() - mine) / others;
    let margin = ((mean_other - mine) / 100.0).clamp(-0.05, 0.05);
    let win = if winners.contains(&seat) {
        1.0 / winners.len() as f64
    } else {
        0.0
    };
    win + margin
}
