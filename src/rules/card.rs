//! Cards and their notation (docs/rules.md §1).
//!
//! A [`Face`] is a natural card's identity (`"10H"`); a [`Card`] is what the deck and the hands
//! hold: a face or a joker (`"JK"`); a [`PlacedCard`] is a card on the layout, where a joker is
//! written with the card it stands for (`"JK7H"`). All three serialise as those strings.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// A suit, in the canonical deck order C D H S.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    /// Clubs (black).
    Clubs,
    /// Diamonds (red).
    Diamonds,
    /// Hearts (red).
    Hearts,
    /// Spades (black).
    Spades,
}

impl Suit {
    /// Every suit in canonical order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit's index in canonical order (0..4).
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The notation letter: `C D H S`.
    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    /// The symbol used in sentences for players: ♣ ♦ ♥ ♠.
    pub const fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    /// Hearts and diamonds are red; clubs and spades are black.
    pub const fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    fn from_letter(letter: char) -> Option<Suit> {
        match letter {
            'C' => Some(Suit::Clubs),
            'D' => Some(Suit::Diamonds),
            'H' => Some(Suit::Hearts),
            'S' => Some(Suit::Spades),
            _ => None,
        }
    }
}

/// A rank from ace (1, low) to king (13, high).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// The ace, lowest rank.
    pub const ACE: Rank = Rank(1);
    /// The two.
    pub const TWO: Rank = Rank(2);
    /// The jack.
    pub const JACK: Rank = Rank(11);
    /// The queen.
    pub const QUEEN: Rank = Rank(12);
    /// The king, highest rank.
    pub const KING: Rank = Rank(13);

    /// The rank with this value (1 = ace … 13 = king).
    pub const fn new(value: u8) -> Option<Rank> {
        if value >= 1 && value <= 13 {
            Some(Rank(value))
        } else {
            None
        }
    }

    /// The numeric value: ace 1 … king 13.
    pub const fn value(self) -> u8 {
        self.0
    }

    /// Every rank from ace to king.
    pub fn all() -> impl Iterator<Item = Rank> {
        (1..=13).map(Rank)
    }

    /// The notation: `A 2 … 10 J Q K`.
    pub const fn notation(self) -> &'static str {
        const NAMES: [&str; 13] = [
            "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
        ];
        NAMES[(self.0 - 1) as usize]
    }

    fn parse(text: &str) -> Option<Rank> {
        let value = match text {
            "A" => 1,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            digits => match digits.parse::<u8>() {
                Ok(n @ 2..=10) if !digits.starts_with('0') => n,
                _ => return None,
            },
        };
        Some(Rank(value))
    }
}

/// The identity of a natural card: a rank and a suit, packed in one byte (suit × 13 + rank − 1),
/// so faces order by suit (C D H S) and then rank (A … K), the canonical deck order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Face(u8);

impl Face {
    /// The face with this rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Face {
        Face(suit.index() * 13 + rank.0 - 1)
    }

    /// Its rank, ace to king.
    pub const fn rank(self) -> Rank {
        Rank(self.0 % 13 + 1)
    }

    /// Its suit, clubs to spades.
    pub const fn suit(self) -> Suit {
        Suit::ALL[(self.0 / 13) as usize]
    }

    /// Whether it is red.
    pub const fn is_red(self) -> bool {
        self.suit().is_red()
    }

    /// Canonical index 0..52 (C A…K, D A…K, H A…K, S A…K).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The face at a canonical index, if below 52.
    pub const fn from_index(index: usize) -> Option<Face> {
        if index < 52 {
            Some(Face(index as u8))
        } else {
            None
        }
    }

    /// All 52 faces in canonical order.
    pub fn all() -> impl Iterator<Item = Face> {
        (0..52).map(Face)
    }

    /// The face as players read it: `9♥`.
    pub fn pretty(self) -> String {
        format!("{}{}", self.rank().notation(), self.suit().symbol())
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().notation(), self.suit().letter())
    }
}

impl fmt::Debug for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a card's notation could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a card: write rank then suit, like \"10H\", \"QS\" or \"AD\" (a joker is \"JK\")"
)]
pub struct CardParseError(pub String);

impl FromStr for Face {
    type Err = CardParseError;

    fn from_str(text: &str) -> Result<Face, CardParseError> {
        let error = || CardParseError(text.to_owned());
        let suit_letter = text.chars().last().ok_or_else(error)?;
        let suit = Suit::from_letter(suit_letter).ok_or_else(error)?;
        let rank = Rank::parse(&text[..text.len() - suit_letter.len_utf8()]).ok_or_else(error)?;
        Ok(Face::new(rank, suit))
    }
}

/// A card as the deck and the hands hold it: a natural card or a joker.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Card {
    /// A natural card.
    Natural(Face),
    /// A joker: played as any card the player names.
    Joker,
}

impl Card {
    /// The face of a natural card; `None` for a joker.
    pub const fn face(self) -> Option<Face> {
        match self {
            Card::Natural(face) => Some(face),
            Card::Joker => None,
        }
    }

    /// Whether this is a natural king.
    pub fn is_king(self) -> bool {
        matches!(self, Card::Natural(face) if face.rank() == Rank::KING)
    }

    /// The card as players read it: `9♥` or `joker`.
    pub fn pretty(self) -> String {
        match self {
            Card::Natural(face) => face.pretty(),
            Card::Joker => "the joker".to_owned(),
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Card::Natural(face) => fmt::Display::fmt(face, f),
            Card::Joker => f.write_str("JK"),
        }
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(text: &str) -> Result<Card, CardParseError> {
        if text == "JK" {
            Ok(Card::Joker)
        } else {
            text.parse().map(Card::Natural)
        }
    }
}

impl From<Face> for Card {
    fn from(face: Face) -> Card {
        Card::Natural(face)
    }
}

/// A card on the layout: the face it shows and whether it is a joker standing for that face.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlacedCard {
    /// The card it is, or stands for.
    pub face: Face,
    /// Whether a joker stands for `face`.
    pub joker: bool,
}

impl PlacedCard {
    /// A natural card on the layout.
    pub const fn natural(face: Face) -> PlacedCard {
        PlacedCard { face, joker: false }
    }

    /// The card as it was in the hand or deck.
    pub const fn card(self) -> Card {
        if self.joker {
            Card::Joker
        } else {
            Card::Natural(self.face)
        }
    }

    /// The card as players read it: `9♥`, or `joker as 9♥`.
    pub fn pretty(self) -> String {
        if self.joker {
            format!("the joker as {}", self.face.pretty())
        } else {
            self.face.pretty()
        }
    }
}

impl fmt::Display for PlacedCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.joker {
            f.write_str("JK")?;
        }
        fmt::Display::fmt(&self.face, f)
    }
}

impl fmt::Debug for PlacedCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for PlacedCard {
    type Err = CardParseError;

    fn from_str(text: &str) -> Result<PlacedCard, CardParseError> {
        match text.strip_prefix("JK") {
            Some(rest) => rest
                .parse()
                .map(|face| PlacedCard { face, joker: true })
                .map_err(|_| CardParseError(text.to_owned())),
            None => text.parse().map(PlacedCard::natural),
        }
    }
}

/// Serde and OpenAPI for the three card types: each is a string in docs/rules.md §1 notation.
macro_rules! card_notation {
    ($type:ty, $pattern:expr, $example:expr, $description:expr) => {
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }

        impl utoipa::PartialSchema for $type {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some($pattern))
                    .description(Some($description))
                    .examples([serde_json::json!($example)])
                    .into()
            }
        }

        impl utoipa::ToSchema for $type {}
    };
}

card_notation!(
    Face,
    "^(A|[2-9]|10|J|Q|K)[CDHS]$",
    "10H",
    "A natural card: rank (A 2 … 10 J Q K) then suit (C D H S)."
);
card_notation!(
    Card,
    "^((A|[2-9]|10|J|Q|K)[CDHS]|JK)$",
    "QS",
    "A card in a hand or the deck: rank then suit, or JK for a joker."
);
card_notation!(
    PlacedCard,
    "^(JK)?(A|[2-9]|10|J|Q|K)[CDHS]$",
    "JK7H",
    "A card on the layout; a joker is written JK followed by the card it stands for."
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_for_every_card() {
        for face in Face::all() {
            let text = face.to_string();
            assert_eq!(text.parse::<Face>().unwrap(), face);
            assert_eq!(text.parse::<Card>().unwrap(), Card::Natural(face));
            let joker = PlacedCard { face, joker: true };
            assert_eq!(joker.to_string().parse::<PlacedCard>().unwrap(), joker);
        }
        assert_eq!("JK".parse::<Card>().unwrap(), Card::Joker);
    }

    #[test]
    fn reads_the_examples_of_the_rule_book() {
        let ten_hearts: Face = "10H".parse().unwrap();
        assert_eq!(
            (ten_hearts.rank().value(), ten_hearts.suit()),
            (10, Suit::Hearts)
        );
        let queen_spades: Face = "QS".parse().unwrap();
        assert_eq!(
            (queen_spades.rank(), queen_spades.suit()),
            (Rank::QUEEN, Suit::Spades)
        );
        let placed: PlacedCard = "JK7H".parse().unwrap();
        assert!(placed.joker);
        assert_eq!(placed.face.to_string(), "7H");
        assert_eq!(serde_json::to_string(&placed).unwrap(), "\"JK7H\"");
        assert_eq!(
            serde_json::from_str::<Card>("\"AD\"").unwrap().to_string(),
            "AD"
        );
    }

    #[test]
    fn refuses_malformed_notation() {
        for bad in [
            "", "1H", "11H", "010H", "KX", "JK", "7", "H", "JKJK", "10", "♥9",
        ] {
            assert!(bad.parse::<Face>().is_err(), "{bad} parsed as a face");
        }
        for bad in ["JKX", "JK", "JK11C"] {
            assert!(
                bad.parse::<PlacedCard>().is_err(),
                "{bad} parsed as a placed card"
            );
        }
        assert!(serde_json::from_str::<Card>("\"ZZ\"").is_err());
    }

    #[test]
    fn colours_and_order_follow_the_rule_book() {
        assert!("9H".parse::<Face>().unwrap().is_red());
        assert!("9D".parse::<Face>().unwrap().is_red());
        assert!(!"9S".parse::<Face>().unwrap().is_red());
        assert!(!"9C".parse::<Face>().unwrap().is_red());
        let order: Vec<String> = Face::all().take(14).map(|f| f.to_string()).collect();
        assert_eq!(order[0], "AC");
        assert_eq!(order[12], "KC");
        assert_eq!(order[13], "AD");
        assert!(Card::Joker > Card::Natural("KS".parse().unwrap()));
    }
}
