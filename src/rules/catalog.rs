//! The catalog of options and presets that `GET /v1/rules` serves: every option of docs/rules.md §4
//! with its type, allowed values, default and meaning, and every preset with its full option set.

use serde::Serialize;
use utoipa::ToSchema;

use super::options::{Preset, Rules};

/// One option of the rules.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct OptionInfo {
    /// JSON name.
    pub name: &'static str,
    /// JSON type: `integer`, `boolean`, `string`, `object`, or a combination.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The values it takes.
    pub values: &'static str,
    /// Its value under `standard`: a number, a boolean, a string, an object or `null`.
    pub default: serde_json::Value,
    /// What it does, in a sentence for a player choosing it.
    pub description: &'static str,
    /// The source pages it comes from (numbered as in the five rule pages the rule book was distilled from).
    pub source: &'static str,
}

/// One preset and its full option set.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PresetInfo {
    /// Its name, as `{"preset": …}` takes it.
    pub name: &'static str,
    /// Where it comes from.
    pub description: &'static str,
    /// Every option's value.
    pub rules: Rules,
}

/// How the engine reads the rule book where its sources leave room: docs/rules.md §4
/// and §6 (the rule book's latest readings), then the engine's own choices where the rule book is silent.
pub const READINGS: [&str; 16] = [
    "§6.16 Options add plays, never remove them: with `ace_wrap` and `ace_starter_takes_two`, a side pile whose only card is an ace takes a 2 of the other colour or a king of the other colour (a pile or run whose lowest card is such a king may move onto it); after a king it builds down as usual.",
    "§6.17 A finished starter stays finished: no card, run or pile goes on a 2 played onto a lone starter ace, wherever the pair later moves (it may move as a whole where its ace fits).",
    "§6.18 `hand_size` or `hand_size_5_plus` is chosen by the number of players dealt into a hand (the players still in), not by the number of seats.",
    "§4 `draw: when_stuck` with `draw_until_playable`, and `side_build: up_alternating` with `ace_starter_takes_two`, are refused.",
    "§6.19 Players × hand size + 4 counts the natural cards of the deck(s); jokers are extra. Every number of players a later hand could deal must fit.",
    "§4 `king_hold_penalty`, chips figures and scoring-table figures are at most 1,000; `target` and `out_at_target` at most 100,000; `hands` and `hands_won` at most 1,000.",
    "The first dealer is drawn uniformly from the seed of \"hand 0\", by the shuffle's rejection sampling.",
    "`players` defaults to 4 (\"best with 4\").",
    "A `king_hold_penalty` counts natural kings only: a joker is not a king until it is played as one.",
    "`collect_corners`: a corner is claimed as soon as its top card is an ace, also with `ace_wrap`.",
    "`ace_starter_takes_two` applies to any side pile whose only card is an ace, and needs side piles that build down.",
    "`draw_until_playable` applies to draw modes `end` and `start`; `when_stuck` already draws when stuck.",
    "`ace_wrap` with `up_alternating` lets an ace of the other colour go on a king.",
    "`out_at_target`: if every remaining player reaches the target in the same hand, the lowest totals among them win.",
    "A scoring table without a `joker` entry prices a joker at its highest figure.",
    "Under `when_stuck`, a player holding a playable card must play one before ending the turn.",
];

/// `(name, type, values, description, source)` of every option, in the rule book's order (docs/rules.md §4).
const OPTIONS: [(&str, &str, &str, &str, &str); 23] = [
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
];

/// Every option with its `standard` default.
pub fn options() -> Vec<OptionInfo> {
    let defaults = serde_json::to_value(Rules::default()).expect("rules serialise");
    OPTIONS
        .iter()
        .map(|&(name, kind, values, description, source)| OptionInfo {
            name,
            kind,
            values,
            default: defaults[name].clone(),
            description,
            source,
        })
        .collect()
}

/// Every preset with its full option set.
pub fn presets() -> Vec<PresetInfo> {
    Preset::ALL
        .into_iter()
        .map(|preset| PresetInfo {
            name: preset.name(),
            description: match preset {
                Preset::Standard => "The main rules (sources 000 and 004).",
                Preset::DrawFirst => "Draw at the start of the turn, Bicycle style (source 001).",
                Preset::Foundations => {
                    "Ace-up foundations, kings-only inner spaces, draw when stuck, a lock won by the fewest cards (source 002)."
                }
                Preset::NightOne => {
                    "5 cards each at 5–6 players, empty cross piles refilled from the stock, an ace starter takes a 2, first out wins (source 003)."
                }
            },
            rules: preset.rules(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_names_every_option_exactly_once() {
        let serialised = serde_json::to_value(Rules::default()).unwrap();
        let mut names: Vec<&str> = serialised
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut listed: Vec<&str> = options().iter().map(|option| option.name).collect();
        names.sort_unstable();
        listed.sort_unstable();
        assert_eq!(listed, names);
        assert!(
            options()
                .iter()
                .all(|option| !option.default.is_null() || option.name == "chips")
        );
    }
}
