//! Built-in bots: what a seat should do next, decided from what that seat may know.
//!
//! Pure like [`crate::rules`]: no I/O, no clock, randomness only from the seed a caller gives,
//! so a decision can be replayed. A bot's only input is a [`Knowledge`]: one seat's view and
//! the public history, which has no field for another hand, a dead hand or the stock's order.
//! A bot cannot cheat because it is never handed anything to cheat with.
//!
//! # Levels
//! - [`Level::Random`]: a uniformly random legal action (a baseline, and a fuzzer).
//! - [`Level::Basic`]: the strategy of the source pages as readable heuristics (`basic`).
//! - [`Level::Expert`]: information-set Monte Carlo search (`expert`): it deals the cards it
//!   has not seen at random many times over, plays each candidate out with `basic`, and keeps
//!   the one that wins most often.
//!
//! [`tournament`] plays bots against each other on the engine, for the strength ladder.

mod basic;
mod expert;
mod position;
pub mod tournament;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use crate::rules::{Action, Knowledge};

pub use crate::model::Level;
pub use expert::Budget;

/// What a bot would do, and why in a few words (the hint's answer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// One of the seat's legal actions.
    pub action: Action,
    /// Why, for a person: "puts your king in the north-east corner".
    pub reason: String,
}

/// The action `level` takes for the seat that knows `knowledge`, or `None` when that seat has
/// nothing to do (not its turn). The same knowledge and seed always give the same decision.
pub fn decide(level: Level, knowledge: &Knowledge, seed: u64) -> Option<Decision> {
    decide_within(level, knowledge, seed, Budget::default())
}

/// [`decide`] with an explicit search budget for `expert`.
pub fn decide_within(
    level: Level,
    knowledge: &Knowledge,
    seed: u64,
    budget: Budget,
) -> Option<Decision> {
    let legal = knowledge.legal_actions();
    if legal.is_empty() {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Some(match level {
        Level::Random => {
            let action = legal[below(&mut rng, legal.len())];
            Decision {
                action,
                reason: "a legal action chosen at random".to_owned(),
            }
        }
        Level::Basic => basic::decide(knowledge, legal),
        Level::Expert => expert::decide(knowledge, &mut rng, budget),
    })
}

/// A uniform number below `bound` (> 0).
fn below(rng: &mut impl RngCore, bound: usize) -> usize {
    // The modulo bias over 2^64 is far below anything a game could notice.
    (rng.next_u64() % bound as u64) as usize
}
