//! The table's rules: every option of docs/rules.md §4, the presets of §5, and validation.
//!
//! A [`Rules`] value is complete: every option has a value. Clients describe rules as a preset
//! plus overrides (`{"preset": "night-one", "must_play": true}`); [`Rules::resolve`] turns that
//! into a `Rules` and [`Rules::validate`] refuses tables that cannot be played.
//!
//! # Layout
//! - this file: [`Rules`] and its small option types;
//! - [`scoring`]: [`Scoring`], the penalty per card left in hand;
//! - [`game_end`]: [`GameEnd`], when the game ends and who wins;
//! - [`presets`]: [`Preset`] and [`Rules::resolve`];
//! - `validate`: [`Rules::validate`].

pub mod game_end;
pub mod presets;
pub mod scoring;
mod validate;

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use game_end::GameEnd;
use game_end::GameEndSchema;
pub use presets::Preset;
use scoring::ScoringSchema;
pub use scoring::{ScoreTable, Scoring};

/// The fewest players a table seats.
pub const MIN_PLAYERS: u8 = 2;

/// The most players any table seats (two decks).
pub const MAX_PLAYERS: u8 = 8;

/// Every option of docs/rules.md §4. `Rules::default()` is the `standard` preset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// Number of seats: 2–6 with one deck, 2–8 with two.
    #[schema(minimum = 2, maximum = 8, example = 4)]
    pub players: u8,
    /// Decks shuffled together: 1 or 2.
    #[schema(minimum = 1, maximum = 2)]
    pub decks: u8,
    /// Add two jokers per deck; a joker is played as any card the player names.
    pub jokers: bool,
    /// Cards dealt to each player at 2–4 players.
    #[schema(minimum = 1, maximum = 13)]
    pub hand_size: u8,
    /// Cards dealt to each player at 5 or more players.
    #[schema(minimum = 1, maximum = 13)]
    pub hand_size_5_plus: u8,
    /// When the turn's draw happens.
    pub draw: DrawMode,
    /// Cards drawn by the turn's draw: 1 or 2.
    #[schema(minimum = 1, maximum = 2)]
    pub draw_count: u8,
    /// With nothing to play, keep drawing until a card fits, play on, then draw as usual.
    pub draw_until_playable: bool,
    /// The turn cannot end while a card in hand fits somewhere.
    pub must_play: bool,
    /// Points taken by a player who ends a turn holding a king while a corner is empty (0 = off).
    #[schema(maximum = 1000)]
    pub king_hold_penalty: u32,
    /// What fills an empty side space.
    pub empty_side: EmptySide,
    /// A whole pile may also move into an empty side space.
    pub pile_to_empty_side: bool,
    /// The top part of a pile may move as a unit when its lowest card fits.
    pub partial_runs: bool,
    /// How side piles build.
    pub side_build: Build,
    /// How corner piles build (`up_alternating` is not allowed: a corner starts with a king).
    pub corner_build: Build,
    /// "Aces high": a king of the other colour goes on an ace (an ace on a king when building up).
    pub ace_wrap: bool,
    /// A side pile whose only card is an ace takes a 2 of the other colour; then it is finished.
    pub ace_starter_takes_two: bool,
    /// Four ace-up suit foundations `FC FD FH FS`.
    pub foundations: bool,
    /// A player who completes a corner pile down to the ace claims it.
    pub collect_corners: bool,
    /// Who wins a blocked hand.
    pub blocked: BlockedRule,
    /// Penalty per card left in hand.
    #[schema(value_type = ScoringSchema)]
    pub scoring: Scoring,
    /// Play for chips; `null` for no chips.
    pub chips: Option<Chips>,
    /// When the game ends and who wins.
    #[schema(value_type = GameEndSchema)]
    pub game_end: GameEnd,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            players: 4,
            decks: 1,
            jokers: false,
            hand_size: 7,
            hand_size_5_plus: 7,
            draw: DrawMode::End,
            draw_count: 1,
            draw_until_playable: false,
            must_play: false,
            king_hold_penalty: 0,
            empty_side: EmptySide::AnyCard,
            pile_to_empty_side: false,
            partial_runs: false,
            side_build: Build::DownAlternating,
            corner_build: Build::DownAlternating,
            ace_wrap: false,
            ace_starter_takes_two: false,
            foundations: false,
            collect_corners: false,
            blocked: BlockedRule::EveryoneScores,
            scoring: Scoring::Penalty,
            chips: None,
            game_end: GameEnd::Target(50),
        }
    }
}

/// When the turn's draw happens (docs/rules.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DrawMode {
    /// Play, then `end_turn` draws and passes the turn.
    End,
    /// The server draws when the turn begins; `end_turn` passes without drawing.
    Start,
    /// Draw only when nothing in hand can be played; play the drawn card if it fits.
    WhenStuck,
}

/// What fills an empty side space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EmptySide {
    /// Any card from hand.
    AnyCard,
    /// A king only.
    KingOnly,
    /// The next stock card, at the start of each turn; once the stock is gone, any card from hand.
    FromStock,
}

/// How a kind of pile builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Build {
    /// One rank lower, the other colour.
    DownAlternating,
    /// One rank lower, the same suit.
    DownSuit,
    /// One rank higher, the other colour.
    UpAlternating,
}

impl Build {
    /// Whether piles of this build grow towards the ace.
    pub const fn is_down(self) -> bool {
        !matches!(self, Build::UpAlternating)
    }
}

/// Who wins a blocked hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BlockedRule {
    /// Nobody wins; everyone scores the cards left.
    EveryoneScores,
    /// The single player with the fewest cards wins and scores 0; a tie is a draw.
    FewestCardsWins,
}

/// Chips: antes, idle turns and payments to the player who goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Chips {
    /// Chips each player puts in the pot before the deal.
    #[schema(maximum = 1000)]
    pub ante: u32,
    /// Chips added to the pot by a turn that only draws.
    #[schema(maximum = 1000)]
    pub idle_turn: u32,
    /// What each other player pays the player who goes out.
    pub pay: ChipPay,
}

/// How losers pay the player who goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChipPay {
    /// 1 chip a card, 10 a king (a joker pays as a king).
    Penalty,
    /// 1 chip a king (a joker pays as a king).
    PerKing,
}

/// Why a set of rules was refused; names the option at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{option}: {message}")]
pub struct RulesError {
    /// The option (JSON name) at fault, or `preset`, or `rules` for the whole object.
    pub option: String,
    /// What is wrong, in words.
    pub message: String,
}

impl RulesError {
    pub(crate) fn new(option: &str, message: impl fmt::Display) -> RulesError {
        RulesError {
            option: option.to_owned(),
            message: message.to_string(),
        }
    }
}

impl Rules {
    /// Cards dealt to each player when `players_in` players are dealt in: `hand_size` up to 4,
    /// `hand_size_5_plus` from 5 (docs/rules.md §6.18 counts the players still in, not the seats).
    pub fn hand_size_for(&self, players_in: u8) -> u8 {
        if players_in >= 5 {
            self.hand_size_5_plus
        } else {
            self.hand_size
        }
    }

    /// The most seats these rules deal to: six with one deck, [`MAX_PLAYERS`] with two.
    pub fn most_players(&self) -> u8 {
        if self.decks == 2 { MAX_PLAYERS } else { 6 }
    }

    /// Cards in the shuffled deck, jokers included.
    pub fn deck_size(&self) -> usize {
        usize::from(self.decks) * if self.jokers { 54 } else { 52 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_round_trip_through_their_json_names() {
        let rules = Rules {
            scoring: Scoring::Kings25,
            game_end: GameEnd::OutAtTarget(25),
            chips: Some(Chips {
                ante: 1,
                idle_turn: 1,
                pay: ChipPay::PerKing,
            }),
            ..Rules::default()
        };
        let text = serde_json::to_value(&rules).unwrap();
        assert_eq!(text["scoring"], json!("kings_25"));
        assert_eq!(text["game_end"], json!({"out_at_target": 25}));
        assert_eq!(
            text["chips"],
            json!({"ante": 1, "idle_turn": 1, "pay": "per_king"})
        );
        assert_eq!(serde_json::from_value::<Rules>(text).unwrap(), rules);
        let single: GameEnd = serde_json::from_value(json!("single_hand")).unwrap();
        assert_eq!(single, GameEnd::SingleHand);
        assert_eq!(
            serde_json::to_value(GameEnd::SingleHand).unwrap(),
            json!({"single_hand": true})
        );
    }
}
