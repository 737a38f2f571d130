//! What fits where: the build rules of every pile kind and the checks shared by
//! [`decide`](super::decide) and [`legal_actions`](super::legal_actions).

use super::Seat;
use super::card::{Card, Face, PlacedCard, Rank};
use super::error::{Misfit, RuleError};
use super::faces::FaceSet;
use super::options::{Build, EmptySide};
use super::pile::{PileId, PileKind};
use super::state::GameState;

/// Whether `card` fits on `top` for a pile that builds by `build` (docs/rules.md §1, §4).
///
/// Looked up in a table worked out at compile time; a refusal takes its reason from the rule as
/// the rule book words it (the two agree for every build and pair of faces:
/// `tests::the_table_agrees_with_the_rule`).
pub fn fits(build: Build, ace_wrap: bool, top: Face, card: Face) -> Result<(), Misfit> {
    if fitting(build, ace_wrap, top).contains(card) {
        Ok(())
    } else {
        judge_fit(build, ace_wrap, top, card)
    }
}

/// [`fits`] as docs/rules.md §1 and §4 word it, with the reason of a refusal.
fn judge_fit(build: Build, ace_wrap: bool, top: Face, card: Face) -> Result<(), Misfit> {
    let (top_rank, rank) = (top.rank().value(), card.rank().value());
    let down = build.is_down();
    let rank_fits = if down {
        rank + 1 == top_rank || (ace_wrap && top_rank == 1 && rank == 13)
    } else {
        rank == top_rank + 1 || (ace_wrap && top_rank == 13 && rank == 1)
    };
    if !rank_fits {
        return Err(match (down, top.rank()) {
            (true, Rank::ACE) if !ace_wrap => Misfit::NothingOnAce,
            (false, Rank::KING) if !ace_wrap => Misfit::NothingOnKing,
            _ => Misfit::Rank { down },
        });
    }
    match build {
        Build::DownSuit if card.suit() != top.suit() => Err(Misfit::Suit),
        Build::DownAlternating | Build::UpAlternating if card.is_red() == top.is_red() => {
            Err(Misfit::Colour)
        }
        _ => Ok(()),
    }
}

/// `ace_starter_takes_two` on a tableau pile: the verdict on `card` where the starter rule
/// decides it, `None` where the pile builds as usual.
///
/// A side pile whose only card is an ace takes a 2 of the other colour; with `ace_wrap` a king
/// of the other colour too (§6.16: options add plays, never remove them). A 2 lying directly on
/// an ace closes the pair for good, wherever the pair has moved (§6.17): piles build down (or
/// wrap from ace to king), so only the starter rule ever puts a 2 on an ace.
fn starter_rule(
    kind: PileKind,
    cards: &[PlacedCard],
    card: Face,
    ace_wrap: bool,
) -> Option<Result<(), Misfit>> {
    match cards {
        [ace] if kind == PileKind::Side && ace.face.rank() == Rank::ACE => {
            let takes = card.rank() == Rank::TWO || (ace_wrap && card.rank() == Rank::KING);
            Some(if !takes {
                Err(Misfit::StarterAce { or_king: ace_wrap })
            } else if card.is_red() == ace.face.is_red() {
                Err(Misfit::Colour)
            } else {
                Ok(())
            })
        }
        [.., below, top] if below.face.rank() == Rank::ACE && top.face.rank() == Rank::TWO => {
            Some(Err(Misfit::PileFinished))
        }
        _ => None,
    }
}

/// The faces that fit on `top` for a pile that builds by `build`: [`fits`] as a set, looked up.
pub(crate) fn fitting(build: Build, ace_wrap: bool, top: Face) -> FaceSet {
    FITTING[build as usize][ace_wrap as usize][top.index()]
}

/// [`fitting`]'s table, worked out at compile time: by build, `ace_wrap`, top face.
const FITTING: [[[FaceSet; 52]; 2]; 3] = {
    let builds = [
        Build::DownAlternating,
        Build::DownSuit,
        Build::UpAlternating,
    ];
    let mut table = [[[FaceSet::EMPTY; 52]; 2]; 3];
    let mut build = 0;
    while build < builds.len() {
        assert!(builds[build] as usize == build, "indexed by the build");
        let mut wrap = 0;
        while wrap < 2 {
            let mut top = 0;
            while top < 52 {
                let Some(face) = Face::from_index(top) else {
                    unreachable!()
                };
                table[build][wrap][top] = fitting_faces(builds[build], wrap == 1, face);
                top += 1;
            }
            wrap += 1;
        }
        build += 1;
    }
    table
};

const fn fitting_faces(build: Build, ace_wrap: bool, top: Face) -> FaceSet {
    let value = top.rank().value();
    let next = match (build.is_down(), value) {
        (true, 1) if ace_wrap => Some(Rank::KING),
        (true, _) => Rank::new(value - 1),
        (false, 13) if ace_wrap => Some(Rank::ACE),
        (false, _) => Rank::new(value + 1),
    };
    let kin = match build {
        Build::DownSuit => FaceSet::suit(top.suit()),
        Build::DownAlternating | Build::UpAlternating => FaceSet::other_colour(top),
    };
    match next {
        Some(rank) => FaceSet::rank(rank).intersection(kin),
        None => FaceSet::EMPTY,
    }
}

impl GameState {
    /// Whether `card` may be put on `pile` now, from hand (a run is judged by its lowest card).
    ///
    /// The verdict is [`accepted`](GameState::accepted)'s; a refusal takes its reason from
    /// [`judge`](GameState::judge), the rules as the rule book words them (the two agree on
    /// every pile at every table: `tests::accepted_agrees_with_judge`).
    pub(crate) fn accepts(&self, pile: PileId, card: PlacedCard) -> Result<(), RuleError> {
        self.accepts_among(pile, card, self.accepted(pile))
    }

    /// [`accepts`](GameState::accepts) with `pile`'s [`accepted`](GameState::accepted) faces
    /// already worked out (legal-action lists work them out once for every pile).
    fn accepts_among(
        &self,
        pile: PileId,
        card: PlacedCard,
        accepted: FaceSet,
    ) -> Result<(), RuleError> {
        if accepted.contains(card.face) {
            Ok(())
        } else {
            self.judge(pile, card)
        }
    }

    /// The faces a card may show to go on `pile` now (a card from hand, a joker standing for
    /// it, or the lowest card of a moved run): [`judge`](GameState::judge) for all 52 faces at
    /// once, in a few bit operations.
    pub(crate) fn accepted(&self, pile: PileId) -> FaceSet {
        let rules = self.rules();
        let cards = &self.piles[pile.index()];
        match (pile.kind(), cards.last()) {
            (PileKind::Foundation, _) if !rules.foundations => FaceSet::EMPTY,
            (PileKind::Foundation, top) => {
                let suit = pile.foundation_suit().expect("a foundation has a suit");
                let next = top.map_or(Some(Rank::ACE), |top| {
                    Rank::new(top.face.rank().value() + 1)
                });
                next.map_or(FaceSet::EMPTY, |rank| FaceSet::of(Face::new(rank, suit)))
            }
            (PileKind::Corner, None) => FaceSet::rank(Rank::KING),
            (PileKind::Side, None) => match rules.empty_side {
                EmptySide::AnyCard => FaceSet::ALL,
                EmptySide::KingOnly => FaceSet::rank(Rank::KING),
                EmptySide::FromStock if self.stock.is_empty() => FaceSet::ALL,
                EmptySide::FromStock => FaceSet::EMPTY,
            },
            (kind, Some(top)) => {
                if rules.ace_starter_takes_two {
                    match cards.as_slice() {
                        [ace] if kind == PileKind::Side && ace.face.rank() == Rank::ACE => {
                            let mut ranks = FaceSet::rank(Rank::TWO);
                            if rules.ace_wrap {
                                ranks = ranks.union(FaceSet::rank(Rank::KING));
                            }
                            return ranks.intersection(FaceSet::other_colour(ace.face));
                        }
                        [.., below, top]
                            if below.face.rank() == Rank::ACE && top.face.rank() == Rank::TWO =>
                        {
                            return FaceSet::EMPTY;
                        }
                        _ => {}
                    }
                }
                let build = if kind == PileKind::Side {
                    rules.side_build
                } else {
                    rules.corner_build
                };
                fitting(build, rules.ace_wrap, top.face)
            }
        }
    }

    /// The build rules as docs/rules.md §1 and §4 word them: whether `card` may go on `pile`,
    /// and if not, why. [`accepts`](GameState::accepts) asks it for the reason of a refusal.
    fn judge(&self, pile: PileId, card: PlacedCard) -> Result<(), RuleError> {
        let rules = self.rules();
        let face = card.face;
        let cards = &self.piles[pile.index()];
        let misfit = |reason| RuleError::DoesNotFit {
            card,
            pile,
            top: cards.last().copied(),
            reason,
        };
        match (pile.kind(), cards.last()) {
            (PileKind::Foundation, _) if !rules.foundations => Err(RuleError::NoSuchPile(pile)),
            (PileKind::Foundation, top) => {
                let suit = pile.foundation_suit().expect("a foundation has a suit");
                let next_rank = top.map_or(Some(Rank::ACE), |top| {
                    Rank::new(top.face.rank().value() + 1)
                });
                let needs = next_rank.map(|rank| Face::new(rank, suit));
                if needs == Some(face) {
                    Ok(())
                } else {
                    Err(misfit(Misfit::NotNextOnFoundation { needs }))
                }
            }
            (PileKind::Corner, None) if face.rank() == Rank::KING => Ok(()),
            (PileKind::Corner, None) => Err(RuleError::CornerNeedsKing(card)),
            (PileKind::Side, None) => match rules.empty_side {
                EmptySide::AnyCard => Ok(()),
                EmptySide::KingOnly if face.rank() == Rank::KING => Ok(()),
                EmptySide::KingOnly => Err(RuleError::SideNeedsKing(card)),
                EmptySide::FromStock if self.stock.is_empty() => Ok(()),
                EmptySide::FromStock => Err(RuleError::SpaceAwaitsStock(pile)),
            },
            (kind, Some(top)) => {
                if rules.ace_starter_takes_two
                    && let Some(verdict) = starter_rule(kind, cards, face, rules.ace_wrap)
                {
                    return verdict.map_err(misfit);
                }
                let build = if kind == PileKind::Side {
                    rules.side_build
                } else {
                    rules.corner_build
                };
                judge_fit(build, rules.ace_wrap, top.face, face).map_err(misfit)
            }
        }
    }

    /// Checks a play from hand and gives the card as it will lie.
    pub(crate) fn check_play(
        &self,
        seat: Seat,
        card: Card,
        as_face: Option<Face>,
        to: PileId,
    ) -> Result<PlacedCard, RuleError> {
        if self.hand(seat).binary_search(&card).is_err() {
            return Err(RuleError::CardNotInHand(card));
        }
        let placed = match (card, as_face) {
            (Card::Joker, Some(face)) => PlacedCard { face, joker: true },
            (Card::Joker, None) => return Err(RuleError::JokerNeedsIdentity),
            (Card::Natural(face), None) => PlacedCard::natural(face),
            (Card::Natural(_), Some(_)) => return Err(RuleError::NotAJoker(card)),
        };
        self.accepts(to, placed)?;
        Ok(placed)
    }

    /// Checks a pile move and gives the number of cards that move.
    pub(crate) fn check_move(
        &self,
        from: PileId,
        to: PileId,
        count: Option<u8>,
    ) -> Result<u8, RuleError> {
        self.check_move_onto(from, to, count, self.accepted(to))
    }

    /// [`check_move`](GameState::check_move) with the faces `to` accepts already worked out.
    pub(crate) fn check_move_onto(
        &self,
        from: PileId,
        to: PileId,
        count: Option<u8>,
        accepted: FaceSet,
    ) -> Result<u8, RuleError> {
        let rules = self.rules();
        for pile in [from, to] {
            if pile.kind() == PileKind::Foundation && !rules.foundations {
                return Err(RuleError::NoSuchPile(pile));
            }
        }
        if from.kind() == PileKind::Foundation {
            return Err(RuleError::FoundationIsFinal);
        }
        if from == to {
            return Err(RuleError::SamePile);
        }
        let source = &self.piles[from.index()];
        if source.is_empty() {
            return Err(RuleError::PileEmpty(from));
        }
        let len = source.len();
        let to_foundation = to.kind() == PileKind::Foundation;
        let run = match (rules.partial_runs, count) {
            (true, None) => {
                return Err(RuleError::BadCount(
                    "At this table every move names its count: how many cards from the top move."
                        .into(),
                ));
            }
            (false, Some(_)) => {
                return Err(RuleError::BadCount(
                    "Moves take no count at this table: a whole pile moves (only the top card, to a foundation).".into(),
                ));
            }
            (true, Some(k)) if k == 0 || usize::from(k) > len => {
                return Err(RuleError::BadCount(format!(
                    "{from} holds {len} card(s): count must be 1 to {len}."
                )));
            }
            (true, Some(k)) if to_foundation && k != 1 => {
                return Err(RuleError::BadCount(
                    "Only the top card moves to a foundation: count must be 1.".into(),
                ));
            }
            (true, Some(k)) => usize::from(k),
            (false, None) if to_foundation => 1,
            (false, None) => len,
        };
        if from.kind() == PileKind::Corner && run == len && !to_foundation {
            return Err(RuleError::CornerPileCannotMove);
        }
        let lowest = source[len - run];
        let target_empty = self.piles[to.index()].is_empty();
        match to.kind() {
            PileKind::Corner if target_empty && lowest.face.rank() != Rank::KING => {
                return Err(RuleError::CornerNeedsKing(lowest));
            }
            PileKind::Side if target_empty && !rules.pile_to_empty_side => {
                return Err(RuleError::PileToEmptySideOff);
            }
            _ => self.accepts_among(to, lowest, accepted)?,
        }
        Ok(run as u8)
    }

    /// The piles a card can be played to at this table, in canonical order.
    pub(crate) fn play_targets(&self) -> &'static [PileId] {
        if self.rules().foundations {
            &PileId::ALL
        } else {
            PileId::TABLEAU
        }
    }

    /// The faces a card from hand may be played as now, on any pile (docs/rules.md §6.5).
    pub(crate) fn playable(&self) -> FaceSet {
        self.play_targets()
            .iter()
            .fold(FaceSet::EMPTY, |faces, &pile| {
                faces.union(self.accepted(pile))
            })
    }

    /// docs/rules.md §6.5: whether a `play` from hand exists now for `seat`.
    pub(crate) fn can_play_from_hand(&self, seat: Seat) -> bool {
        let playable = self.playable();
        self.hand(seat)
            .iter()
            .any(|&card| playable_card(playable, card))
    }

    pub(crate) fn card_can_be_played(&self, card: Card) -> bool {
        playable_card(self.playable(), card)
    }
}

/// Whether `card` can be played when `playable` are the faces that fit somewhere.
pub(crate) fn playable_card(playable: FaceSet, card: Card) -> bool {
    match card {
        Card::Natural(face) => playable.contains(face),
        Card::Joker => !playable.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(text: &str) -> Face {
        text.parse().unwrap()
    }

    /// The drill of source 001: a pile topped by 9♥ takes 8♠ or 8♣, not 8♦, 10♠ or 9♣.
    #[test]
    fn drill_a_nine_of_hearts_takes_a_black_eight() {
        let nine = face("9H");
        let check = |card| fits(Build::DownAlternating, false, nine, face(card));
        assert_eq!(check("8S"), Ok(()));
        assert_eq!(check("8C"), Ok(()));
        assert_eq!(check("8D"), Err(Misfit::Colour));
        assert_eq!(check("10S"), Err(Misfit::Rank { down: true }));
        assert_eq!(check("9C"), Err(Misfit::Rank { down: true }));
    }

    #[test]
    fn the_table_agrees_with_the_rule() {
        for build in [
            Build::DownAlternating,
            Build::DownSuit,
            Build::UpAlternating,
        ] {
            for ace_wrap in [false, true] {
                for top in Face::all() {
                    for card in Face::all() {
                        assert_eq!(
                            fitting(build, ace_wrap, top).contains(card),
                            judge_fit(build, ace_wrap, top, card).is_ok(),
                            "{card} on {top}, {build:?}, ace_wrap {ace_wrap}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn nothing_fits_on_an_ace_unless_aces_wrap() {
        assert_eq!(
            fits(Build::DownAlternating, false, face("AH"), face("KS")),
            Err(Misfit::NothingOnAce)
        );
        assert_eq!(
            fits(Build::DownAlternating, true, face("AH"), face("KS")),
            Ok(())
        );
        assert_eq!(
            fits(Build::DownAlternating, true, face("AH"), face("KD")),
            Err(Misfit::Colour)
        );
    }

    #[test]
    fn other_builds_follow_their_names() {
        assert_eq!(fits(Build::DownSuit, false, face("9H"), face("8H")), Ok(()));
        assert_eq!(
            fits(Build::DownSuit, false, face("9H"), face("8D")),
            Err(Misfit::Suit)
        );
        assert_eq!(
            fits(Build::DownSuit, false, face("9H"), face("8S")),
            Err(Misfit::Suit)
        );
        assert_eq!(
            fits(Build::UpAlternating, false, face("9H"), face("10S")),
            Ok(())
        );
        assert_eq!(
            fits(Build::UpAlternating, false, face("9H"), face("8S")),
            Err(Misfit::Rank { down: false })
        );
        assert_eq!(
            fits(Build::UpAlternating, false, face("KH"), face("AS")),
            Err(Misfit::NothingOnKing)
        );
        assert_eq!(
            fits(Build::UpAlternating, true, face("KH"), face("AS")),
            Ok(())
        );
    }
}

/// `accepted` (the fast set) against `judge` (the rule book's wording), on every pile of every
/// table whose build options differ: empty, every top card, and every pair of the two top cards
/// (the starter rule looks at two), with the stock empty and not.
#[cfg(test)]
mod agreement {
    use super::*;
    use crate::rules::options::Rules;
    use crate::rules::state::Setup;

    fn tables() -> Vec<Rules> {
        let builds = [
            Build::DownAlternating,
            Build::DownSuit,
            Build::UpAlternating,
        ];
        let sides = [
            EmptySide::AnyCard,
            EmptySide::KingOnly,
            EmptySide::FromStock,
        ];
        let mut tables = Vec::new();
        for side_build in builds {
            for corner_build in builds {
                for flags in 0..8u8 {
                    for empty_side in sides {
                        let rules = Rules {
                            side_build,
                            corner_build,
                            ace_wrap: flags & 1 != 0,
                            ace_starter_takes_two: flags & 2 != 0,
                            foundations: flags & 4 != 0,
                            empty_side,
                            ..Rules::default()
                        };
                        if rules.validate().is_ok() {
                            tables.push(rules);
                        }
                    }
                }
            }
        }
        tables
    }

    #[test]
    fn accepted_agrees_with_judge() {
        let faces: Vec<Face> = Face::all().collect();
        let mut contents: Vec<Vec<PlacedCard>> = vec![Vec::new()];
        contents.extend(faces.iter().map(|top| vec![PlacedCard::natural(*top)]));
        let pairs: Vec<Vec<PlacedCard>> = faces
            .iter()
            .flat_map(|below| {
                faces
                    .iter()
                    .map(|top| vec![PlacedCard::natural(*below), PlacedCard::natural(*top)])
            })
            .collect();
        let tables = tables();
        assert!(tables.len() > 100, "{} tables", tables.len());
        let mut checked = 0u64;
        for rules in tables {
            let setup = Setup {
                client_seeds: vec![String::new(); usize::from(rules.players)],
                first_dealer: None,
                rules,
                secret: [0; 32],
            };
            let mut state = GameState::arrange(setup, 0, Vec::new(), &[], Vec::new());
            for stock in [Vec::new(), vec![Card::Natural(faces[0])]] {
                state.stock = stock;
                for pile in PileId::ALL {
                    // Two cards differ from one only for the starter rule; empty_side matters
                    // only to an empty pile: the pairs once per other option.
                    let with_pairs = state.rules().empty_side == EmptySide::AnyCard;
                    let extra = if with_pairs { &pairs[..] } else { &[] };
                    for cards in contents.iter().chain(extra) {
                        state.piles[pile.index()].clone_from(cards);
                        let accepted = state.accepted(pile);
                        for &face in &faces {
                            let card = PlacedCard::natural(face);
                            let judged = state.judge(pile, card);
                            assert_eq!(
                                accepted.contains(face),
                                judged.is_ok(),
                                "{face} on {pile} holding {cards:?} at {:?}: judged {judged:?}",
                                state.rules()
                            );
                            checked += 1;
                        }
                    }
                    state.piles[pile.index()].clear();
                }
            }
        }
        assert!(checked > 10_000_000, "{checked} verdicts");
    }
}
