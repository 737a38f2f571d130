//! The catalog of options and presets that `GET /v1/rules` serves: every option of docs/rules.md §4
//! with its type, allowed values, default and meaning, and every preset with its full option set.

use serde::Serialize;
use utoipa::ToSchema;

use super::options::{OPTIONS, Preset, Rules};

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
    #[schema(value_type = Rules)]
    pub rules: serde_json::Value,
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

/// Every option with its `standard` default.
pub fn options() -> Vec<OptionInfo> {
    let defaults = Rules::default().every_value();
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
            rules: preset.rules().every_value(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_names_every_option_exactly_once() {
        let serialised = Rules::default().every_value();
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
