//! The table's rules: every option of RULES.md §3, the presets of §8, and validation.
//!
//! A [`Rules`] value is complete: every option has a value. Clients describe rules as a preset
//! plus overrides (`{"preset": "night-one", "must_play": true}`); [`Rules::resolve`] turns that
//! into a `Rules` and [`Rules::validate`] refuses tables that cannot be played.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use super::card::{Card, Rank};

/// The most players any table seats (two decks).
pub const MAX_PLAYERS: u8 = 8;

/// Every option of RULES.md §3. `Rules::default()` is the `standard` preset.
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

/// When the turn's draw happens (RULES.md §4).
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
    pub ante: u32,
    /// Chips added to the pot by a turn that only draws.
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
pub struct ScoreTable {
    #[serde(rename = "A")]
    #[allow(missing_docs)]
    pub ace: u32,
    #[serde(rename = "2")]
    #[allow(missing_docs)]
    pub two: u32,
    #[serde(rename = "3")]
    #[allow(missing_docs)]
    pub three: u32,
    #[serde(rename = "4")]
    #[allow(missing_docs)]
    pub four: u32,
    #[serde(rename = "5")]
    #[allow(missing_docs)]
    pub five: u32,
    #[serde(rename = "6")]
    #[allow(missing_docs)]
    pub six: u32,
    #[serde(rename = "7")]
    #[allow(missing_docs)]
    pub seven: u32,
    #[serde(rename = "8")]
    #[allow(missing_docs)]
    pub eight: u32,
    #[serde(rename = "9")]
    #[allow(missing_docs)]
    pub nine: u32,
    #[serde(rename = "10")]
    #[allow(missing_docs)]
    pub ten: u32,
    #[serde(rename = "J")]
    #[allow(missing_docs)]
    pub jack: u32,
    #[serde(rename = "Q")]
    #[allow(missing_docs)]
    pub queen: u32,
    #[serde(rename = "K")]
    #[allow(missing_docs)]
    pub king: u32,
    /// A joker left in hand; absent means the table's highest figure (RULES.md §9.15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joker: Option<u32>,
}

impl ScoreTable {
    fn rank_figures(&self) -> [u32; 13] {
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

    /// The penalty for a card left in hand; a joker scores the scheme's highest figure (§9.15).
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

/// When the game ends (RULES.md §3 `game_end`).
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

/// The OpenAPI shape of [`Scoring`]: a scheme's name or a table.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum ScoringSchema {
    /// A named scheme.
    Named(ScoringName),
    /// A figure per rank.
    Table(ScoreTable),
}

/// The named scoring schemes.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
enum ScoringName {
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

/// The OpenAPI shape of [`GameEnd`]: an object with exactly one of these keys.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum GameEndSchema {
    /// Lowest total once someone reaches the target.
    Target { target: u32 },
    /// One hand.
    SingleHand { single_hand: bool },
    /// Players at the target are out; the last one left wins.
    OutAtTarget { out_at_target: u32 },
    /// First to win n hands.
    HandsWon { hands_won: u32 },
    /// Lowest total after n hands.
    Hands { hands: u32 },
}

/// A named set of options, one per source page (RULES.md §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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

    /// The preset's full option set (every option not in RULES.md §8 keeps its default).
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

    fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|preset| preset.name() == name)
    }
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
    fn new(option: &str, message: impl fmt::Display) -> RulesError {
        RulesError {
            option: option.to_owned(),
            message: message.to_string(),
        }
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
            None | Some(serde_json::Value::Null) => Preset::Standard,
            Some(serde_json::Value::String(name)) => Preset::from_name(name).ok_or_else(|| {
                RulesError::new(
                    "preset",
                    format!("unknown preset `{name}`: use standard, draw-first, foundations or night-one"),
                )
            })?,
            Some(_) => return Err(RulesError::new("preset", "must be a preset name")),
        };
        let serde_json::Value::Object(mut merged) =
            serde_json::to_value(preset.rules()).expect("rules always serialise")
        else {
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

    /// Cards dealt to each player at this table.
    pub fn cards_per_hand(&self) -> u8 {
        if self.players >= 5 {
            self.hand_size_5_plus
        } else {
            self.hand_size
        }
    }

    /// Cards in the shuffled deck, jokers included.
    pub fn deck_size(&self) -> usize {
        usize::from(self.decks) * if self.jokers { 54 } else { 52 }
    }

    /// Refuses tables that cannot be played, naming the option at fault.
    pub fn validate(&self) -> Result<(), RulesError> {
        if !(1..=2).contains(&self.decks) {
            return Err(RulesError::new("decks", "must be 1 or 2"));
        }
        let max_players = if self.decks == 2 { MAX_PLAYERS } else { 6 };
        if !(2..=max_players).contains(&self.players) {
            return Err(RulesError::new(
                "players",
                format!("must be 2 to {max_players} with {} deck(s)", self.decks),
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
        // Jokers never turn up on the layout (§9.3), so the natural cards alone must cover the deal.
        let natural_cards = 52 * usize::from(self.decks);
        let dealt = usize::from(self.players) * usize::from(self.cards_per_hand()) + 4;
        if dealt > natural_cards {
            let option = if self.players >= 5 {
                "hand_size_5_plus"
            } else {
                "hand_size"
            };
            return Err(RulesError::new(
                option,
                format!(
                    "{} players × {} cards + 4 face up is {dealt}, more than the {natural_cards} cards of {} deck(s)",
                    self.players,
                    self.cards_per_hand(),
                    self.decks
                ),
            ));
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
        assert_eq!(rules.cards_per_hand(), 5);
        assert_eq!(Rules::resolve(&json!({})).unwrap(), Rules::default());
    }

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
