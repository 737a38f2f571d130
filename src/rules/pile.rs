//! The layout's pile names (docs/rules.md §1): side piles `N E S W`, corner piles `NE SE SW NW`
//! and, with the `foundations` option, the foundations `FC FD FH FS`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::card::Suit;

/// A place on the layout. Serialised as its name (`"N"`, `"NE"`, `"FH"`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
pub enum PileId {
    /// North side pile.
    N,
    /// East side pile.
    E,
    /// South side pile.
    S,
    /// West side pile.
    W,
    /// North-east corner.
    NE,
    /// South-east corner.
    SE,
    /// South-west corner.
    SW,
    /// North-west corner.
    NW,
    /// Clubs foundation.
    FC,
    /// Diamonds foundation.
    FD,
    /// Hearts foundation.
    FH,
    /// Spades foundation.
    FS,
}

/// What kind of place a pile is; each kind has its own build rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PileKind {
    /// One of the four spaces of the cross, dealt face up at the start.
    Side,
    /// A corner: only a king opens it.
    Corner,
    /// An ace-up suit foundation.
    Foundation,
}

impl PileId {
    /// Every pile in canonical order (the order of listings and legal actions).
    pub const ALL: [PileId; 12] = [
        PileId::N,
        PileId::E,
        PileId::S,
        PileId::W,
        PileId::NE,
        PileId::SE,
        PileId::SW,
        PileId::NW,
        PileId::FC,
        PileId::FD,
        PileId::FH,
        PileId::FS,
    ];
    /// The side piles, in deal order.
    pub const SIDES: [PileId; 4] = [PileId::N, PileId::E, PileId::S, PileId::W];
    /// The corner piles, clockwise from north-east.
    pub const CORNERS: [PileId; 4] = [PileId::NE, PileId::SE, PileId::SW, PileId::NW];
    /// The eight piles that build down (sides and corners), in canonical order.
    pub const TABLEAU: &[PileId] = PileId::ALL.split_at(8).0;
    /// The foundations, in canonical order.
    pub const FOUNDATIONS: &[PileId] = PileId::ALL.split_at(8).1;

    /// Index into [`PileId::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether it is a side pile, a corner or a foundation.
    pub const fn kind(self) -> PileKind {
        match self {
            PileId::N | PileId::E | PileId::S | PileId::W => PileKind::Side,
            PileId::NE | PileId::SE | PileId::SW | PileId::NW => PileKind::Corner,
            PileId::FC | PileId::FD | PileId::FH | PileId::FS => PileKind::Foundation,
        }
    }

    /// The suit a foundation builds; `None` for the other piles.
    pub const fn foundation_suit(self) -> Option<Suit> {
        match self {
            PileId::FC => Some(Suit::Clubs),
            PileId::FD => Some(Suit::Diamonds),
            PileId::FH => Some(Suit::Hearts),
            PileId::FS => Some(Suit::Spades),
            _ => None,
        }
    }

    /// The foundation of a suit.
    pub const fn foundation_of(suit: Suit) -> PileId {
        match suit {
            Suit::Clubs => PileId::FC,
            Suit::Diamonds => PileId::FD,
            Suit::Hearts => PileId::FH,
            Suit::Spades => PileId::FS,
        }
    }

    /// Its name in the notation.
    pub const fn name(self) -> &'static str {
        match self {
            PileId::N => "N",
            PileId::E => "E",
            PileId::S => "S",
            PileId::W => "W",
            PileId::NE => "NE",
            PileId::SE => "SE",
            PileId::SW => "SW",
            PileId::NW => "NW",
            PileId::FC => "FC",
            PileId::FD => "FD",
            PileId::FH => "FH",
            PileId::FS => "FS",
        }
    }

    /// How a sentence for players names it.
    pub const fn description(self) -> &'static str {
        match self {
            PileId::N => "the north pile",
            PileId::E => "the east pile",
            PileId::S => "the south pile",
            PileId::W => "the west pile",
            PileId::NE => "the north-east corner",
            PileId::SE => "the south-east corner",
            PileId::SW => "the south-west corner",
            PileId::NW => "the north-west corner",
            PileId::FC => "the clubs foundation",
            PileId::FD => "the diamonds foundation",
            PileId::FH => "the hearts foundation",
            PileId::FS => "the spades foundation",
        }
    }
}

impl std::fmt::Display for PileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
