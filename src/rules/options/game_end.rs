//! When the game ends and who wins (docs/rules.md §4 `game_end`): an object with exactly one key.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

/// When the game ends (docs/rules.md §4 `game_end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// `{"target": n}`: ends after the hand in which someone reaches n; lowest total wins.
    Target(u32),
    /// `{"single_hand": true}`: one hand.
    SingleHand,
    /// `{"out_at_target": n}`: players reaching n are out; the last one left wins.
    OutAtTarget(u32),
    /// `{"hands_won": n}`: first to win n hands.
    HandsWon(u32),
    /// `{"hands": n}`: lowest total after n hands.
    Hands(u32),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameEndRepr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    single_hand: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    out_at_target: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hands_won: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hands: Option<u32>,
}

impl Serialize for GameEnd {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut repr = GameEndRepr {
            target: None,
            single_hand: None,
            out_at_target: None,
            hands_won: None,
            hands: None,
        };
        match *self {
            GameEnd::Target(n) => repr.target = Some(n),
            GameEnd::SingleHand => repr.single_hand = Some(serde_json::Value::Bool(true)),
            GameEnd::OutAtTarget(n) => repr.out_at_target = Some(n),
            GameEnd::HandsWon(n) => repr.hands_won = Some(n),
            GameEnd::Hands(n) => repr.hands = Some(n),
        }
        repr.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GameEnd {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GameEnd, D::Error> {
        const EXPECTED: &str = "one of {\"target\": n}, {\"single_hand\": true}, {\"out_at_target\": n}, \
                                {\"hands_won\": n}, {\"hands\": n}";
        let value = serde_json::Value::deserialize(deserializer)?;
        if value.as_str() == Some("single_hand") {
            return Ok(GameEnd::SingleHand);
        }
        let repr = GameEndRepr::deserialize(value)
            .map_err(|error| D::Error::custom(format!("{EXPECTED}: {error}")))?;
        let single_hand = match repr.single_hand {
            None | Some(serde_json::Value::Bool(false)) => None,
            Some(serde_json::Value::Bool(true) | serde_json::Value::Null) => {
                Some(GameEnd::SingleHand)
            }
            Some(_) => return Err(D::Error::custom("single_hand takes true")),
        };
        let chosen: Vec<GameEnd> = [
            repr.target.map(GameEnd::Target),
            single_hand,
            repr.out_at_target.map(GameEnd::OutAtTarget),
            repr.hands_won.map(GameEnd::HandsWon),
            repr.hands.map(GameEnd::Hands),
        ]
        .into_iter()
        .flatten()
        .collect();
        match chosen[..] {
            [one] => Ok(one),
            _ => Err(D::Error::custom(format!(
                "game_end takes exactly {EXPECTED}"
            ))),
        }
    }
}

/// `single_hand`'s one value: `true` (a `false` names no way to end).
fn only_true() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Boolean)
        .enum_values(Some([true]))
        .build()
}

/// The OpenAPI shape of [`GameEnd`]: an object with exactly one of these keys.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[schema(as = GameEnd)]
#[allow(dead_code)]
pub(super) enum GameEndSchema {
    /// Lowest total once someone reaches the target.
    Target {
        #[schema(minimum = 1, maximum = 100_000)]
        target: u32,
    },
    /// One hand.
    SingleHand {
        #[schema(schema_with = only_true)]
        single_hand: bool,
    },
    /// Players at the target are out; the last one left wins.
    OutAtTarget {
        #[schema(minimum = 1, maximum = 100_000)]
        out_at_target: u32,
    },
    /// First to win n hands.
    HandsWon {
        #[schema(minimum = 1, maximum = 1000)]
        hands_won: u32,
    },
    /// Lowest total after n hands.
    Hands {
        #[schema(minimum = 1, maximum = 1000)]
        hands: u32,
    },
}
