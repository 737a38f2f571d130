//! [`Rules::validate`]: refuses tables that cannot be played or cannot end, naming the option
//! at fault (docs/rules.md §4, refused tables and bounds).

use super::{Build, DrawMode, GameEnd, MIN_PLAYERS, Rules, RulesError, Scoring};
use crate::rules::card::Rank;

impl Rules {
    /// Refuses tables that cannot be played, naming the option at fault.
    pub fn validate(&self) -> Result<(), RulesError> {
        if !(1..=2).contains(&self.decks) {
            return Err(RulesError::new("decks", "must be 1 or 2"));
        }
        let max_players = self.most_players();
        if !(MIN_PLAYERS..=max_players).contains(&self.players) {
            return Err(RulesError::new(
                "players",
                format!(
                    "must be {MIN_PLAYERS} to {max_players} with {} deck(s)",
                    self.decks
                ),
            ));
        }
        for (option, size) in [
            ("hand_size", self.hand_size),
            ("hand_size_5_plus", self.hand_size_5_plus),
        ] {
            if !(1..=13).contains(&size) {
                return Err(RulesError::new(option, "must be 1 to 13 cards"));
            }
        }
        // Jokers never turn up on the layout (§6.2), so the natural cards alone must cover the deal
        // (§6.19). Later hands deal only the players still in (§6.18): every count down to two
        // must fit too, unless the game is a single hand.
        let natural_cards = 52 * usize::from(self.decks);
        let fewest_dealt_in = if self.game_end == GameEnd::SingleHand {
            self.players
        } else {
            2
        };
        for players_in in (fewest_dealt_in..=self.players).rev() {
            let hand_size = self.hand_size_for(players_in);
            let dealt = usize::from(players_in) * usize::from(hand_size) + 4;
            if dealt > natural_cards {
                let option = if players_in >= 5 {
                    "hand_size_5_plus"
                } else {
                    "hand_size"
                };
                return Err(RulesError::new(
                    option,
                    format!(
                        "{players_in} players × {hand_size} cards + 4 face up is {dealt}, more than the {natural_cards} cards of {} deck(s)",
                        self.decks
                    ),
                ));
            }
        }
        if !(1..=2).contains(&self.draw_count) {
            return Err(RulesError::new("draw_count", "must be 1 or 2"));
        }
        if self.draw_until_playable && self.draw == DrawMode::WhenStuck {
            return Err(RulesError::new(
                "draw_until_playable",
                "applies to draw modes end and start; when_stuck already draws when nothing can be played",
            ));
        }
        if self.king_hold_penalty > 1000 {
            return Err(RulesError::new(
                "king_hold_penalty",
                "must be 0 to 1000 points",
            ));
        }
        if self.corner_build == Build::UpAlternating {
            return Err(RulesError::new(
                "corner_build",
                "corners start with a king, so they build down",
            ));
        }
        if self.ace_starter_takes_two && !self.side_build.is_down() {
            return Err(RulesError::new(
                "ace_starter_takes_two",
                "needs side piles that build down",
            ));
        }
        if let Some(chips) = self.chips
            && (chips.ante > 1000 || chips.idle_turn > 1000)
        {
            return Err(RulesError::new(
                "chips",
                "ante and idle_turn must be 0 to 1000 chips",
            ));
        }
        if let Scoring::Table(table) = &self.scoring
            && table
                .rank_figures()
                .iter()
                .chain(table.joker.iter())
                .any(|figure| *figure > 1000)
        {
            return Err(RulesError::new(
                "scoring",
                "table figures must be 0 to 1000",
            ));
        }
        let limit = match self.game_end {
            GameEnd::Target(n) | GameEnd::OutAtTarget(n) => Some((n, 100_000)),
            GameEnd::HandsWon(n) | GameEnd::Hands(n) => Some((n, 1000)),
            GameEnd::SingleHand => None,
        };
        if let Some((n, most)) = limit
            && !(1..=most).contains(&n)
        {
            return Err(RulesError::new(
                "game_end",
                format!("n must be 1 to {most}"),
            ));
        }
        let points_accrue = self.king_hold_penalty > 0
            || Rank::all().any(|rank| self.scoring.rank_points(rank) > 0);
        if matches!(self.game_end, GameEnd::Target(_) | GameEnd::OutAtTarget(_)) && !points_accrue {
            return Err(RulesError::new(
                "game_end",
                "no one can ever reach a target when cards score nothing and there is no king-hold penalty",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refuses_impossible_tables_naming_the_option() {
        let cases = [
            (json!({"players": 7}), "players"),
            (
                json!({"decks": 2, "players": 8, "hand_size_5_plus": 13}),
                "hand_size_5_plus",
            ),
            (json!({"hand_size": 0}), "hand_size"),
            (json!({"preset": "poker"}), "preset"),
            (json!({"preset": null}), "preset"),
            (json!({"colour": "red"}), "colour"),
            (json!({"draw": "sometimes"}), "draw"),
            (json!({"scoring": "none"}), "game_end"),
            (json!({"corner_build": "up_alternating"}), "corner_build"),
            (json!({"game_end": {"target": 10, "hands": 2}}), "game_end"),
            (
                json!({"draw": "when_stuck", "draw_until_playable": true}),
                "draw_until_playable",
            ),
            (json!({"scoring": {"A": 1}}), "scoring"),
        ];
        for (spec, option) in cases {
            let error = Rules::resolve(&spec).expect_err(&spec.to_string());
            assert_eq!(error.option, option, "{spec}: {error}");
        }
        // 6 players × 7 cards + 4 = 46 fits one deck; 7 players need two decks.
        assert!(Rules::resolve(&json!({"players": 6})).is_ok());
        assert!(Rules::resolve(&json!({"players": 7, "decks": 2})).is_ok());
    }
}
