//! The fair, reproducible shuffle of docs/rules.md §9 (`shuffle_version` 1).
//!
//! * `commitment = hex(SHA-256(S))` for the match secret `S` (32 bytes from the OS's CSPRNG,
//!   drawn by the server; the engine never draws randomness itself).
//! * The seed of hand `h` (1-based) is `SHA-256(S ‖ client_seed₀ ‖ … ‖ client_seedₙ₋₁ ‖ h as u32 BE)`,
//!   each client seed as its UTF-8 bytes (a seat without one adds nothing).
//! * The deck before shuffling: for each deck, C D H S, each A to K; then all jokers.
//! * Fisher–Yates from the last index down to 1, `j` uniform in `[0, i]` from
//!   `ChaCha20Rng::from_seed(hand seed)` by rejection sampling on `next_u32`.
//! * Our reading for the first dealer (the rule book says "at random"): a draw uniform in
//!   `[0, players)` by the same rejection sampling, from ChaCha20 seeded with the seed of hand 0.
//!
//! Test vector (also in the tests): secret = 32 bytes `00 01 02 … 1f`, client seeds
//! `["alice", "", "carol"]`, hand 1, one deck, no jokers → the shuffled deck begins
//! `5D 9H 6H 8S JS 7D 10H 8D`; the first dealer of a 3-seat table is seat 1. See
//! `tests::published_test_vector`; `docs/shuffle_reference.py` re-implements all of this in plain
//! Python (ChaCha20 from its specification) and prints the same figures.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};

use super::card::{Card, Face};

/// The version of the shuffle algorithm; stored with every match so old logs keep replaying.
pub const SHUFFLE_VERSION: u32 = 1;

/// The 32-byte match secret `S`.
pub type Secret = [u8; 32];

/// `hex(SHA-256(S))`, published when the match is created.
pub fn commitment(secret: &Secret) -> String {
    hex::encode(Sha256::digest(secret))
}

/// The seed of hand `hand` (1-based; hand 0 seeds the choice of the first dealer).
pub fn hand_seed<S: AsRef<str>>(secret: &Secret, client_seeds: &[S], hand: u32) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(secret);
    for seed in client_seeds {
        hasher.update(seed.as_ref().as_bytes());
    }
    hasher.update(hand.to_be_bytes());
    hasher.finalize().into()
}

/// The deck in canonical order before shuffling.
pub fn unshuffled_deck(decks: u8, jokers: bool) -> Vec<Card> {
    let mut deck = Vec::with_capacity(usize::from(decks) * 54);
    for _ in 0..decks {
        deck.extend(Face::all().map(Card::Natural));
    }
    if jokers {
        deck.extend(std::iter::repeat_n(Card::Joker, 2 * usize::from(decks)));
    }
    deck
}

/// A uniform integer in `[0, bound)` by rejection sampling on `next_u32` (bound ≥ 1).
pub fn uniform_below(rng: &mut ChaCha20Rng, bound: u32) -> u32 {
    debug_assert!(bound >= 1);
    let zone = u32::MAX - ((u64::from(u32::MAX) + 1) % u64::from(bound)) as u32;
    loop {
        let x = rng.next_u32();
        // Reject x ≥ 2³² − (2³² mod bound); `zone` is that limit minus one.
        if x <= zone {
            return x % bound;
        }
    }
}

/// Shuffles `deck` in place with the hand seed.
pub fn shuffle(deck: &mut [Card], seed: [u8; 32]) {
    let mut rng = ChaCha20Rng::from_seed(seed);
    for i in (1..deck.len()).rev() {
        let j = uniform_below(&mut rng, i as u32 + 1) as usize;
        deck.swap(i, j);
    }
}

/// The shuffled deck of one hand.
pub fn shuffled_deck<S: AsRef<str>>(
    secret: &Secret,
    client_seeds: &[S],
    hand: u32,
    decks: u8,
    jokers: bool,
) -> Vec<Card> {
    let mut deck = unshuffled_deck(decks, jokers);
    shuffle(&mut deck, hand_seed(secret, client_seeds, hand));
    deck
}

/// The first dealer: uniform in `[0, players)` from the seed of hand 0.
pub fn first_dealer<S: AsRef<str>>(secret: &Secret, client_seeds: &[S], players: u8) -> u8 {
    let mut rng = ChaCha20Rng::from_seed(hand_seed(secret, client_seeds, 0));
    uniform_below(&mut rng, u32::from(players)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector_secret() -> Secret {
        std::array::from_fn(|i| i as u8)
    }

    #[test]
    fn published_test_vector() {
        let secret = vector_secret();
        let seeds = ["alice", "", "carol"];
        assert_eq!(
            commitment(&secret),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
        let deck = shuffled_deck(&secret, &seeds, 1, 1, false);
        let first: Vec<String> = deck.iter().take(8).map(|c| c.to_string()).collect();
        assert_eq!(first, ["5D", "9H", "6H", "8S", "JS", "7D", "10H", "8D"]);
        assert_eq!(first_dealer(&secret, &seeds, 3), 1);
    }

    #[test]
    fn the_same_seeds_give_the_same_deal_and_any_change_gives_another() {
        let secret = vector_secret();
        let deck = shuffled_deck(&secret, &["a", "b"], 1, 1, false);
        assert_eq!(deck, shuffled_deck(&secret, &["a", "b"], 1, 1, false));
        assert_ne!(deck, shuffled_deck(&secret, &["a", "c"], 1, 1, false));
        assert_ne!(deck, shuffled_deck(&secret, &["a", "b"], 2, 1, false));
        let mut other_secret = secret;
        other_secret[31] ^= 1;
        assert_ne!(deck, shuffled_deck(&other_secret, &["a", "b"], 1, 1, false));
    }

    #[test]
    fn a_shuffle_is_a_permutation_of_the_canonical_deck() {
        let mut deck = shuffled_deck(&vector_secret(), &[""], 3, 2, true);
        assert_eq!(deck.len(), 108);
        deck.sort();
        let mut canonical = unshuffled_deck(2, true);
        canonical.sort();
        assert_eq!(deck, canonical);
    }

    #[test]
    fn unshuffled_order_is_suits_c_d_h_s_ace_to_king_then_jokers() {
        let deck = unshuffled_deck(1, true);
        assert_eq!(deck[0].to_string(), "AC");
        assert_eq!(deck[13].to_string(), "AD");
        assert_eq!(deck[51].to_string(), "KS");
        assert_eq!(&deck[52..], &[Card::Joker, Card::Joker]);
    }

    /// Chi-square over position × card counts: each of the 52 × 52 cells should hold n/52 deals.
    #[test]
    fn positions_are_uniform_by_chi_square() {
        let deals: u32 = 10_400;
        let mut counts = vec![[0u32; 52]; 52];
        let secret = vector_secret();
        for hand in 1..=deals {
            let deck = shuffled_deck(&secret, &["chi"], hand, 1, false);
            for (position, card) in deck.iter().enumerate() {
                counts[position][card.face().unwrap().index()] += 1;
            }
        }
        let expected = f64::from(deals) / 52.0;
        let chi_square: f64 = counts
            .iter()
            .flatten()
            .map(|&observed| (f64::from(observed) - expected).powi(2) / expected)
            .sum();
        // 52 × 51 = 2652 degrees of freedom: mean 2652, sd ≈ 72.8; 6 sd either side is
        // a bound a fair shuffle crosses about once in 10⁹ runs, a biased one at once.
        assert!(
            (2215.0..3089.0).contains(&chi_square),
            "chi-square {chi_square}"
        );
    }

    #[test]
    fn uniform_below_covers_its_range() {
        let mut rng = ChaCha20Rng::from_seed([7; 32]);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[uniform_below(&mut rng, 6) as usize] += 1;
        }
        assert!(
            seen.iter().all(|&count| (850..1150).contains(&count)),
            "{seen:?}"
        );
        assert_eq!(uniform_below(&mut rng, 1), 0);
    }
}
