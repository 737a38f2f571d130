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
    /// Who deals the next hand: the deal passes left, or the hand's winner takes it.
    // Written only when it is not the default, as every option added after matches were
    // stored: their rules, and the exports that carry them, read back byte for byte.
    #[serde(skip_serializing_if = "NextDeal::is_left")]
    pub next_deal: NextDeal,
}

/// `(name, type, values, description, source)` of every option, in the rule book's order
/// (docs/rules.md §4): what `GET /v1/rules` says of each (`catalog.rs`), kept beside the fields.
pub const OPTIONS: [(&str, &str, &str, &str, &str); 24] = [
    (
        "players",
        "integer",
        "2–6; 2–8 with two decks",
        "Number of seats. Players × hand size + 4 must not exceed the natural cards of the deck(s).",
        "000, 001",
    ),
    (
        "decks",
        "integer",
        "1, 2",
        "Decks shuffled together; with two, a fifth king waits while all corners are taken.",
        "001",
    ),
    (
        "jokers",
        "boolean",
        "false, true",
        "Add 2 jokers per deck. A joker is played as any card the player names (`as`) and counts as that card from then on. A joker turned face up goes to the bottom of the stock.",
        "000",
    ),
    (
        "hand_size",
        "integer",
        "1–13",
        "Cards dealt to each player at 2–4 players.",
        "all",
    ),
    (
        "hand_size_5_plus",
        "integer",
        "1–13",
        "Cards dealt to each player at 5 or more players.",
        "003, 004",
    ),
    (
        "draw",
        "string",
        "end, start, when_stuck",
        "When the turn's draw happens: `end_turn` draws; the server draws when the turn begins; or `draw` only when nothing in hand can be played (an unplayable draw ends the turn).",
        "000, 001, 002",
    ),
    (
        "draw_count",
        "integer",
        "1, 2",
        "Cards drawn by the turn's draw (fewer if the stock is short).",
        "000",
    ),
    (
        "draw_until_playable",
        "boolean",
        "false, true",
        "With nothing to play, one mid-turn `draw` takes cards until one can be played (then `end_turn` draws as usual). For draw modes end and start.",
        "000",
    ),
    (
        "must_play",
        "boolean",
        "false, true",
        "The turn cannot end while a card in hand can be played.",
        "000, 001",
    ),
    (
        "king_hold_penalty",
        "integer",
        "0–1000",
        "Points taken by a player who ends a turn holding a king while a corner is empty (0 = off). Checked on the hand held before the end-of-turn draw.",
        "000",
    ),
    (
        "empty_side",
        "string",
        "any_card, king_only, from_stock",
        "What fills an empty side space: any card from hand; a king only; or the next stock card at the start of each turn, and any card from hand once the stock is gone.",
        "000, 002, 003",
    ),
    (
        "pile_to_empty_side",
        "boolean",
        "false, true",
        "A pile (or run) may also move into an empty side space where a card from hand could fill it.",
        "000",
    ),
    (
        "partial_runs",
        "boolean",
        "false, true",
        "The top part of a pile may move as a unit when its lowest card fits; every move then carries `count`.",
        "002",
    ),
    (
        "side_build",
        "string",
        "down_alternating, down_suit, up_alternating",
        "How side piles build.",
        "000",
    ),
    (
        "corner_build",
        "string",
        "down_alternating, down_suit",
        "How corner piles build.",
        "000",
    ),
    (
        "ace_wrap",
        "boolean",
        "false, true",
        "\"Aces high\": a king of the other colour goes on an ace (an ace on a king when building up).",
        "001, 004",
    ),
    (
        "ace_starter_takes_two",
        "boolean",
        "false, true",
        "A side pile whose only card is an ace takes a 2 of the other colour (with `ace_wrap`, also a king of the other colour); a 2 on a starter ace closes that pair wherever it moves.",
        "003",
    ),
    (
        "foundations",
        "boolean",
        "false, true",
        "Four foundations FC FD FH FS build up in suit from the ace, from hand or from the top of a pile; nothing comes back.",
        "002",
    ),
    (
        "collect_corners",
        "boolean",
        "false, true",
        "A player who completes a corner pile down to the ace claims it; the players with most claimed corners win the hand.",
        "000",
    ),
    (
        "blocked",
        "string",
        "everyone_scores, fewest_cards_wins",
        "Who wins a blocked hand (stock empty, a full round of passes): nobody, or the single player with the fewest cards (a tie is a draw).",
        "000, 002",
    ),
    (
        "scoring",
        "string or object",
        "penalty, jq_two, face_value, kings_25, pip, none, or {\"A\": n, …, \"K\": n, \"joker\": n}",
        "Penalty per card left in hand. A joker scores the scheme's highest figure unless a table gives it one.",
        "000, 001, 002",
    ),
    (
        "chips",
        "object or null",
        "null, {\"ante\": n, \"idle_turn\": n, \"pay\": \"penalty\" | \"per_king\"}",
        "Play for chips: antes before the deal, chips for a turn that only draws; the player who goes out takes the pot and is paid per card left.",
        "000, 004",
    ),
    (
        "game_end",
        "object",
        "{\"target\": n}, {\"single_hand\": true}, {\"out_at_target\": n}, {\"hands_won\": n}, {\"hands\": n}",
        "When the game ends: lowest total once someone reaches the target; one hand; players at the target are out and the last one left wins; first to win n hands; lowest total after n hands.",
        "000, 001, 002, 003",
    ),
    (
        "next_deal",
        "string",
        "left, winner",
        "Who deals the next hand: the deal passes left; or the hand's winner deals it (so the player on the winner's left starts). A hand won by several players, or by nobody, passes the deal left.",
        "002",
    ),
];

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
            next_deal: NextDeal::Left,
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

/// Who deals the next hand (docs/rules.md §4, source 002: "winner takes the deal onward").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NextDeal {
    /// The deal passes left each hand.
    #[default]
    Left,
    /// The hand's single winner deals the next hand; with several winners or none, it passes left.
    Winner,
}

impl NextDeal {
    fn is_left(&self) -> bool {
        *self == NextDeal::Left
    }
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

    /// Every option's value as JSON, also those [`Rules`] writes only when they are not the
    /// default (the options added after matches were stored): what the catalog shows of a
    /// preset, so that a form built from it starts from every value, and what a request's
    /// overrides are merged into ([`Rules::resolve`]).
    pub fn every_value(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).expect("rules serialise");
        value["next_deal"] = serde_json::to_value(self.next_deal).expect("a name serialises");
        value
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
