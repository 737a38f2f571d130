//! [`FaceSet`]: a set of the 52 faces in one machine word, bit `i` for the face of canonical
//! index `i` (C A…K, D A…K, H A…K, S A…K).
//!
//! The engine asks "which faces may go on this pile?" hundreds of times per legal-action list;
//! as a set that is a few bit operations per pile instead of a rule check per card and pile.

use super::card::{Face, Rank, Suit};

/// A set of faces. Iterates in canonical order.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct FaceSet(u64);

/// One bit per rank of a suit: the 13 low bits.
const SUIT_BITS: u64 = (1 << 13) - 1;

impl FaceSet {
    /// No face.
    pub const EMPTY: FaceSet = FaceSet(0);
    /// All 52 faces.
    pub const ALL: FaceSet = FaceSet((1 << 52) - 1);
    /// The 26 red faces (diamonds and hearts).
    pub const RED: FaceSet = FaceSet(SUIT_BITS << 13 | SUIT_BITS << 26);
    /// The 26 black faces (clubs and spades).
    pub const BLACK: FaceSet = FaceSet(FaceSet::ALL.0 & !FaceSet::RED.0);

    /// The one face.
    pub const fn of(face: Face) -> FaceSet {
        FaceSet(1 << face.index())
    }

    /// The 13 faces of a suit.
    pub const fn suit(suit: Suit) -> FaceSet {
        FaceSet(SUIT_BITS << (13 * suit.index() as u32))
    }

    /// The faces of the other colour than `face`.
    pub const fn other_colour(face: Face) -> FaceSet {
        if face.is_red() {
            FaceSet::BLACK
        } else {
            FaceSet::RED
        }
    }

    /// The four faces of a rank.
    pub const fn rank(rank: Rank) -> FaceSet {
        let one_suit = 1u64 << (rank.value() - 1);
        FaceSet(one_suit | one_suit << 13 | one_suit << 26 | one_suit << 39)
    }

    /// Whether `face` is in the set.
    pub const fn contains(self, face: Face) -> bool {
        self.0 >> face.index() & 1 == 1
    }

    /// Whether the set has no face.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The faces in either set.
    pub const fn union(self, other: FaceSet) -> FaceSet {
        FaceSet(self.0 | other.0)
    }

    /// The faces in both sets.
    pub const fn intersection(self, other: FaceSet) -> FaceSet {
        FaceSet(self.0 & other.0)
    }

    /// Adds a face.
    pub fn insert(&mut self, face: Face) {
        self.0 |= 1 << face.index();
    }

    /// The faces in canonical order.
    pub fn iter(self) -> impl Iterator<Item = Face> {
        set_bits(self.0).filter_map(Face::from_index)
    }
}

/// The indices of the bits set in `bits`, lowest first.
pub(crate) fn set_bits(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bits == 0 {
            return None;
        }
        let index = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        Some(index)
    })
}

impl FromIterator<Face> for FaceSet {
    fn from_iter<I: IntoIterator<Item = Face>>(faces: I) -> FaceSet {
        let mut set = FaceSet::EMPTY;
        for face in faces {
            set.insert(face);
        }
        set
    }
}

impl std::fmt::Debug for FaceSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(text: &str) -> Face {
        text.parse().unwrap()
    }

    #[test]
    fn sets_hold_what_their_names_say() {
        let all: Vec<Face> = FaceSet::ALL.iter().collect();
        assert_eq!(all, Face::all().collect::<Vec<_>>(), "canonical order");
        for candidate in Face::all() {
            assert_eq!(FaceSet::RED.contains(candidate), candidate.is_red());
            assert_eq!(FaceSet::BLACK.contains(candidate), !candidate.is_red());
            for rank in Rank::all() {
                assert_eq!(
                    FaceSet::rank(rank).contains(candidate),
                    candidate.rank() == rank
                );
            }
            for suit in Suit::ALL {
                assert_eq!(
                    FaceSet::suit(suit).contains(candidate),
                    candidate.suit() == suit
                );
            }
        }
        let pair: FaceSet = [face("KS"), face("2C")].into_iter().collect();
        assert_eq!(pair.iter().collect::<Vec<_>>(), [face("2C"), face("KS")]);
        assert_eq!(format!("{pair:?}"), "{2C, KS}");
        assert!(FaceSet::EMPTY.is_empty() && !pair.is_empty());
        assert_eq!(
            pair.intersection(FaceSet::BLACK)
                .union(FaceSet::of(face("AH"))),
            [face("2C"), face("KS"), face("AH")].into_iter().collect()
        );
    }
}
