//! [`GameState::standings`]: every seat's place once the match is over (docs/rules.md §7.5),
//! what a rated table's ratings are computed from.

use super::options::GameEnd;
use super::state::{GameState, Status};

impl GameState {
    /// Each seat's place, 1 the best, once the match has finished (`None` before, and for an
    /// aborted match): the winners first; then the other seats still in by the game's end
    /// (their totals, lowest first; at a `single_hand` table the hand's scores; at a
    /// `hands_won` table hands won, most first, then totals); then the seats out at the target
    /// (`out_at_target`) by their totals; then the seats that resigned or timed out, a later
    /// leaver above an earlier one. Seats that compare equal share a place, and the next place
    /// counts them (1, 1, 3).
    pub fn standings(&self) -> Option<Vec<u8>> {
        if self.status != Status::Finished {
            return None;
        }
        let winners = self.winners.as_deref().unwrap_or(&[]);
        let players = usize::from(self.players());
        let hand_scores = self
            .last_hand
            .as_ref()
            .map(|hand| hand.hand_scores.as_slice());
        // Lower keys place higher: (group, measure, tiebreak), compared in that order.
        let key = |seat: usize| -> (u8, i64, i64) {
            if winners.contains(&(seat as u8)) {
                return (0, 0, 0);
            }
            if let Some(order) = self
                .left
                .iter()
                .position(|(left, _)| usize::from(*left) == seat)
            {
                // Leavers last; the later one left, the higher it places.
                return (3, -(order as i64), 0);
            }
            let total = i64::from(self.totals[seat]);
            if !self.active[seat] {
                return (2, total, 0);
            }
            match self.rules().game_end {
                GameEnd::SingleHand => (
                    1,
                    hand_scores.map_or(0, |scores| i64::from(scores[seat])),
                    0,
                ),
                GameEnd::HandsWon(_) => (1, -i64::from(self.hands_won[seat]), total),
                GameEnd::Target(_) | GameEnd::Hands(_) | GameEnd::OutAtTarget(_) => (1, total, 0),
            }
        };
        let keys: Vec<_> = (0..players).map(key).collect();
        Some(
            keys.iter()
                .map(|mine| 1 + keys.iter().filter(|other| *other < mine).count() as u8)
                .collect(),
        )
    }
}
