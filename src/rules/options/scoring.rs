//! Scoring: the penalty per card left in hand (docs/rules.md §4 `scoring`), by a named scheme or a
//! table of figures per rank.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use crate::rules::card::{Card, Rank};

/// Penalty per card left in hand at the end of a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// K 10, others 1.
    Penalty,
    /// K 10, J and Q 2, others 1.
    JqTwo,
    /// A 25, J Q K 10, others their number.
    FaceValue,
    /// K 25, others 1.
    Kings25,
    /// J Q K 10, others their number, A 1.
    Pip,
    /// No points.
    None,
    /// Each rank its own figure.
    Table(ScoreTable),
}

/// A scoring table: one figure per rank and one for a joker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // each field is the figure of the rank it is named after
pub struct ScoreTable {
    #[serde(rename = "A")]
    #[schema(maximum = 1000)]
    pub ace: u32,
    #[serde(rename = "2")]
    #[schema(maximum = 1000)]
    pub two: u32,
    #[serde(rename = "3")]
    #[schema(maximum = 1000)]
    pub three: u32,
    #[serde(rename = "4")]
    #[schema(maximum = 1000)]
    pub four: u32,
    #[serde(rename = "5")]
    #[schema(maximum = 1000)]
    pub five: u32,
    #[serde(rename = "6")]
    #[schema(maximum = 1000)]
    pub six: u32,
    #[serde(rename = "7")]
    #[schema(maximum = 1000)]
    pub seven: u32,
    #[serde(rename = "8")]
    #[schema(maximum = 1000)]
    pub eight: u32,
    #[serde(rename = "9")]
    #[schema(maximum = 1000)]
    pub nine: u32,
    #[serde(rename = "10")]
    #[schema(maximum = 1000)]
    pub ten: u32,
    #[serde(rename = "J")]
    #[schema(maximum = 1000)]
    pub jack: u32,
    #[serde(rename = "Q")]
    #[schema(maximum = 1000)]
    pub queen: u32,
    #[serde(rename = "K")]
    #[schema(maximum = 1000)]
    pub king: u32,
    /// A joker left in hand; absent means the table's highest figure (docs/rules.md §6.13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(maximum = 1000)]
    pub joker: Option<u32>,
}

impl ScoreTable {
    pub(crate) fn rank_figures(&self) -> [u32; 13] {
        [
            self.ace, self.two, self.three, self.four, self.five, self.six, self.seven, self.eight,
            self.nine, self.ten, self.jack, self.queen, self.king,
        ]
    }
}

const SCORING_NAMES: [(&str, Scoring); 6] = [
    ("penalty", Scoring::Penalty),
    ("jq_two", Scoring::JqTwo),
    ("face_value", Scoring::FaceValue),
    ("kings_25", Scoring::Kings25),
    ("pip", Scoring::Pip),
    ("none", Scoring::None),
];

impl Scoring {
    /// The penalty for one rank left in hand.
    pub fn rank_points(&self, rank: Rank) -> u32 {
        let value = u32::from(rank.value());
        match self {
            Scoring::Penalty => {
                if rank == Rank::KING {
                    10
                } else {
                    1
                }
            }
            Scoring::JqTwo => match rank {
                Rank::KING => 10,
                Rank::JACK | Rank::QUEEN => 2,
                _ => 1,
            },
            Scoring::FaceValue => match value {
                1 => 25,
                11..=13 => 10,
                n => n,
            },
            Scoring::Kings25 => {
                if rank == Rank::KING {
                    25
                } else {
                    1
                }
            }
            Scoring::Pip => value.min(10),
            Scoring::None => 0,
            Scoring::Table(table) => table.rank_figures()[usize::from(rank.value() - 1)],
        }
    }

    /// The penalty for a card left in hand; a joker scores the scheme's highest figure (§6.13).
    pub fn card_points(&self, card: Card) -> u32 {
        match card {
            Card::Natural(face) => self.rank_points(face.rank()),
            Card::Joker => match self {
                Scoring::Table(ScoreTable {
                    joker: Some(figure),
                    ..
                }) => *figure,
                _ => self.highest_figure(),
            },
        }
    }

    fn highest_figure(&self) -> u32 {
        Rank::all()
            .map(|rank| self.rank_points(rank))
            .max()
            .unwrap_or(0)
    }

    fn name(&self) -> Option<&'static str> {
        SCORING_NAMES
            .iter()
            .find(|(_, scoring)| scoring == self)
            .map(|(name, _)| *name)
    }
}

impl Serialize for Scoring {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self, self.name()) {
            (Scoring::Table(table), _) => table.serialize(serializer),
            (_, Some(name)) => serializer.serialize_str(name),
            (_, None) => unreachable!("every named scoring is in SCORING_NAMES"),
        }
    }
}

impl<'de> Deserialize<'de> for Scoring {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Scoring, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        if let serde_json::Value::String(name) = &value {
            return SCORING_NAMES
                .iter()
                .find(|(known, _)| known == name)
                .map(|(_, scoring)| scoring.clone())
                .ok_or_else(|| {
                    D::Error::custom(format!(
                        "unknown scoring `{name}`: use penalty, jq_two, face_value, kings_25, pip, none, or a table"
                    ))
                });
        }
        ScoreTable::deserialize(value).map(Scoring::Table).map_err(|error| {
            D::Error::custom(format!(
                "a scoring table gives every rank A 2 … 10 J Q K a figure (and optionally joker): {error}"
            ))
        })
    }
}

/// The OpenAPI shape of [`Scoring`]: a scheme's name or a table.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[schema(as = Scoring)]
#[allow(dead_code)]
pub(super) enum ScoringSchema {
    /// A named scheme.
    Named(ScoringName),
    /// A figure per rank.
    Table(ScoreTable),
}

/// The named scoring schemes.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(super) enum ScoringName {
    #[serde(rename = "penalty")]
    Penalty,
    #[serde(rename = "jq_two")]
    JqTwo,
    #[serde(rename = "face_value")]
    FaceValue,
    #[serde(rename = "kings_25")]
    Kings25,
    #[serde(rename = "pip")]
    Pip,
    #[serde(rename = "none")]
    None,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scoring_schemes_price_cards_as_the_table_says() {
        let king: Card = "KS".parse().unwrap();
        let queen: Card = "QH".parse().unwrap();
        let seven: Card = "7D".parse().unwrap();
        let ace: Card = "AC".parse().unwrap();
        let price = |scoring: &Scoring| {
            [king, queen, seven, ace, Card::Joker].map(|c| scoring.card_points(c))
        };
        assert_eq!(price(&Scoring::Penalty), [10, 1, 1, 1, 10]);
        assert_eq!(price(&Scoring::JqTwo), [10, 2, 1, 1, 10]);
        assert_eq!(price(&Scoring::FaceValue), [10, 10, 7, 25, 25]);
        assert_eq!(price(&Scoring::Kings25), [25, 1, 1, 1, 25]);
        assert_eq!(price(&Scoring::Pip), [10, 10, 7, 1, 10]);
        assert_eq!(price(&Scoring::None), [0, 0, 0, 0, 0]);
        let table: Scoring = serde_json::from_value(json!({
            "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
            "J": 11, "Q": 12, "K": 13, "joker": 50
        }))
        .unwrap();
        assert_eq!(price(&table), [13, 12, 7, 1, 50]);
    }
}
