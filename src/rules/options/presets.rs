//! The presets of docs/rules.md §5, one per source page, and [`Rules::resolve`]: a preset plus
//! overrides, as clients send them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{BlockedRule, DrawMode, EmptySide, GameEnd, Rules, RulesError, Scoring};

/// A named set of options, one per source page (docs/rules.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Sources 000 and 004: the main rules.
    Standard,
    /// Source 001: draw at the start of the turn.
    DrawFirst,
    /// Source 002: ace-up foundations, kings-only inner spaces, draw when stuck.
    Foundations,
    /// Source 003: 5 cards at 5–6 players, refills from the stock, first out wins.
    NightOne,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 4] = [
        Preset::Standard,
        Preset::DrawFirst,
        Preset::Foundations,
        Preset::NightOne,
    ];

    /// Its name in the API.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Standard => "standard",
            Preset::DrawFirst => "draw-first",
            Preset::Foundations => "foundations",
            Preset::NightOne => "night-one",
        }
    }

    /// The preset's full option set (every option not in docs/rules.md §5 keeps its default).
    pub fn rules(self) -> Rules {
        let standard = Rules::default();
        match self {
            Preset::Standard => standard,
            Preset::DrawFirst => Rules {
                draw: DrawMode::Start,
                ..standard
            },
            Preset::Foundations => Rules {
                draw: DrawMode::WhenStuck,
                empty_side: EmptySide::KingOnly,
                foundations: true,
                partial_runs: true,
                blocked: BlockedRule::FewestCardsWins,
                scoring: Scoring::Pip,
                game_end: GameEnd::SingleHand,
                ..standard
            },
            Preset::NightOne => Rules {
                hand_size_5_plus: 5,
                empty_side: EmptySide::FromStock,
                ace_starter_takes_two: true,
                scoring: Scoring::None,
                game_end: GameEnd::SingleHand,
                ..standard
            },
        }
    }

    /// The preset these rules are, at whatever number of seats: `None` for any other rules
    /// (a preset with an option changed).
    pub fn of(rules: &Rules) -> Option<Preset> {
        Preset::ALL.into_iter().find(|preset| {
            let as_preset = Rules {
                players: rules.players,
                ..preset.rules()
            };
            &as_preset == rules
        })
    }

    /// The preset of this name in the API.
    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|preset| preset.name() == name)
    }
}

impl Rules {
    /// Builds rules from a preset plus overrides: `{"preset": "foundations", "players": 3}`.
    /// A missing preset means `standard`. The result is validated.
    pub fn resolve(spec: &serde_json::Value) -> Result<Rules, RulesError> {
        let serde_json::Value::Object(fields) = spec else {
            return Err(RulesError::new(
                "rules",
                "must be an object: a preset and option overrides",
            ));
        };
        let preset = match fields.get("preset") {
            // A preset left out is `standard`; `null` is not a preset's name (the API's
            // description says `preset` is one of the names).
            None => Preset::Standard,
            Some(serde_json::Value::String(name)) => Preset::from_name(name).ok_or_else(|| {
                RulesError::new(
                    "preset",
                    format!("unknown preset `{name}`: use standard, draw-first, foundations or night-one"),
                )
            })?,
            Some(_) => return Err(RulesError::new("preset", "must be a preset name")),
        };
        // Every option's value, also those written only when they are not the default: an
        // override of one of those must find it here.
        let serde_json::Value::Object(mut merged) = preset.rules().every_value() else {
            unreachable!("rules serialise as an object")
        };
        for (option, value) in fields
            .iter()
            .filter(|(option, _)| option.as_str() != "preset")
        {
            if !merged.contains_key(option) {
                return Err(RulesError::new(
                    option,
                    "is not an option of this server (see GET /v1/rules)",
                ));
            }
            // Checked one at a time so the error names the option at fault.
            let mut single = merged.clone();
            single.insert(option.clone(), value.clone());
            serde_json::from_value::<Rules>(serde_json::Value::Object(single))
                .map_err(|error| RulesError::new(option, error))?;
            merged.insert(option.clone(), value.clone());
        }
        let rules: Rules = serde_json::from_value(serde_json::Value::Object(merged))
            .map_err(|error| RulesError::new("rules", error))?;
        rules.validate()?;
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn presets_match_the_table_of_rules_section_8() {
        let draw_first = Preset::DrawFirst.rules();
        assert_eq!(draw_first.draw, DrawMode::Start);
        let foundations = Preset::Foundations.rules();
        assert_eq!(foundations.draw, DrawMode::WhenStuck);
        assert_eq!(foundations.empty_side, EmptySide::KingOnly);
        assert!(foundations.foundations && foundations.partial_runs);
        assert_eq!(foundations.blocked, BlockedRule::FewestCardsWins);
        assert_eq!(foundations.scoring, Scoring::Pip);
        assert_eq!(foundations.game_end, GameEnd::SingleHand);
        let night_one = Preset::NightOne.rules();
        assert_eq!((night_one.hand_size, night_one.hand_size_5_plus), (7, 5));
        assert_eq!(night_one.empty_side, EmptySide::FromStock);
        assert!(night_one.ace_starter_takes_two);
        assert_eq!(night_one.scoring, Scoring::None);
        for preset in Preset::ALL {
            preset.rules().validate().unwrap();
        }
    }

    #[test]
    fn a_preset_plus_overrides_gives_rules() {
        let rules =
            Rules::resolve(&json!({"preset": "night-one", "players": 6, "must_play": true}))
                .unwrap();
        assert_eq!(rules.players, 6);
        assert!(rules.must_play);
        assert_eq!(rules.hand_size_for(rules.players), 5);
        assert_eq!(Rules::resolve(&json!({})).unwrap(), Rules::default());
    }
}
