//! `basic`: the strategy the source pages teach, as heuristics that score each legal action.
//!
//! In order of weight: get cards out of the hand (that is how hands are won); a king goes into
//! an empty corner; a pile that can move onto another moves, opening its space for a card from
//! the hand; a card that lets more of the hand follow it comes first; cards that cost the most
//! penalty points at the end (kings, high cards) are shed before cheap ones; a joker is kept
//! for when nothing else fits. Moves that open nothing are left alone, so a turn never churns.
//! Only legal actions are scored, so `must_play`, the draw modes and chips are respected by
//! construction.

use super::Decision;
use super::position::{Position, pile_name};
use crate::rules::options::EmptySide;
use crate::rules::{Action, Card, Face, Knowledge, PileId, PileKind, PlacedCard, Rank};

/// A card leaving the hand: the heart of the game.
const CARD_LEAVES_HAND: i32 = 100;
/// A king into an empty corner: it can go nowhere else, and it opens a pile for everyone.
const KING_INTO_CORNER: i32 = 80;
/// A king put into a side space while a corner stands empty: it blocks the space.
const KING_WASTED_ON_SIDE: i32 = -120;
/// Each card of the hand that can follow onto the card just played.
const PER_FOLLOWER: i32 = 12;
/// A card starting a new pile in an empty side space, rather than going onto a pile.
const STARTS_A_PILE: i32 = -15;
/// A joker is a wild card: kept until the hand is nearly out.
const JOKER_KEPT: i32 = -60;
/// Each penalty point the card would cost if still held when the hand ends.
const PER_PENALTY_POINT: i32 = 2;
/// Onto a foundation: it never comes back and helps nobody.
const ONTO_FOUNDATION: i32 = 30;
/// A pile's top card onto its foundation.
const MOVE_TO_FOUNDATION: i32 = 110;
/// A whole side pile onto a corner pile: the corner grows and a space opens.
const SIDE_PILE_INTO_CORNER: i32 = 90;
/// A space opened that the hand can fill.
const OPENS_A_SPACE_TO_FILL: i32 = 60;
/// A space opened that only the next player may use.
const OPENS_A_SPACE_FOR_OTHERS: i32 = -5;
/// Part of a pile moved so that a card of the hand fits on what lies beneath.
const UNCOVERS_A_FIT: i32 = 40;
/// A move that brings nothing.
const POINTLESS_MOVE: i32 = -50;
/// Completing a corner down to its ace when completed corners are claimed.
const COMPLETES_A_CORNER: i32 = 50;
/// The mid-turn draw, where it is allowed: better than ending a turn stuck.
const DRAW: i32 = 5;
/// After this many actions in one turn, no more moves: a turn must end.
const CHURN_LIMIT: u16 = 40;

/// The decision of `basic` for the seat that knows `knowledge`.
pub(crate) fn decide(knowledge: &Knowledge, legal: &[Action]) -> Decision {
    let action = best(knowledge, legal);
    Decision {
        action,
        reason: reason(knowledge, &action),
    }
}

/// The legal action `basic` likes best; the first of equals in the engine's stable order.
pub(crate) fn best(position: &impl Position, legal: &[Action]) -> Action {
    let mut best = legal[0];
    let mut best_score = i32::MIN;
    for action in legal {
        let score = score(position, action);
        if score > best_score {
            best = *action;
            best_score = score;
        }
    }
    best
}

/// The legal actions, best first by `basic`'s score (equals keep the engine's order).
pub(crate) fn ranked(position: &impl Position, legal: &[Action]) -> Vec<Action> {
    let mut scored: Vec<(i32, Action)> = legal
        .iter()
        .map(|action| (score(position, action), *action))
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.into_iter().map(|(_, action)| action).collect()
}

/// How much `basic` likes `action`.
pub(crate) fn score(position: &impl Position, action: &Action) -> i32 {
    match *action {
        Action::Play { card, as_face, to } => {
            let face = as_face
                .or(card.face())
                .expect("a joker is played as a card");
            play_score(position, card, face, to)
        }
        Action::Move { from, to, count } => move_score(position, from, to, count),
        Action::Draw => DRAW,
        Action::EndTurn => 0,
        // Never chosen by a bot: a bot plays on.
        Action::Resign | Action::Abort => i32::MIN / 2,
    }
}

fn play_score(position: &impl Position, card: Card, face: Face, to: PileId) -> i32 {
    let rules = position.rules();
    let target_empty = position.pile(to).is_empty();
    let mut score = CARD_LEAVES_HAND;
    if card == Card::Joker && position.hand().len() > 2 {
        score += JOKER_KEPT;
    }
    score += PER_PENALTY_POINT * rules.scoring.card_points(card).min(25) as i32;
    score += PER_FOLLOWER * followers(position, card, face, to) as i32;
    match to.kind() {
        PileKind::Corner if target_empty => score += KING_INTO_CORNER,
        PileKind::Corner if rules.collect_corners && face.rank() == Rank::ACE => {
            score += COMPLETES_A_CORNER;
        }
        PileKind::Foundation => score += ONTO_FOUNDATION,
        PileKind::Side if target_empty => {
            score += STARTS_A_PILE;
            if face.rank() == Rank::KING && empty_corner(position) {
                score += KING_WASTED_ON_SIDE;
            }
        }
        _ => {}
    }
    score
}

fn move_score(position: &impl Position, from: PileId, to: PileId, count: Option<u8>) -> i32 {
    if position.actions_this_turn() >= CHURN_LIMIT {
        return POINTLESS_MOVE * 20;
    }
    let source = position.pile(from);
    let run = count.map_or(source.len(), usize::from);
    let whole = run >= source.len();
    if to.kind() == PileKind::Foundation {
        return MOVE_TO_FOUNDATION;
    }
    if position.pile(to).is_empty() && to.kind() == PileKind::Side {
        // A pile into an empty space: one space for another.
        return POINTLESS_MOVE;
    }
    if !whole {
        let beneath = source[source.len() - run - 1];
        return if hand_fits_on(position, from, beneath) {
            UNCOVERS_A_FIT
        } else {
            POINTLESS_MOVE
        };
    }
    let mut score = match to.kind() {
        PileKind::Corner => SIDE_PILE_INTO_CORNER,
        _ => 0,
    };
    if from.kind() == PileKind::Side {
        score += if can_fill_a_space(position) {
            OPENS_A_SPACE_TO_FILL
        } else {
            OPENS_A_SPACE_FOR_OTHERS
        };
    }
    score
}

/// How many other cards of the hand could go onto `face` once it lies on `to`.
fn followers(position: &impl Position, played: Card, face: Face, to: PileId) -> usize {
    let placed = PlacedCard {
        face,
        joker: played == Card::Joker,
    };
    let mut skipped_self = false;
    position
        .hand()
        .iter()
        .filter(|card| {
            if **card == played && !skipped_self {
                skipped_self = true;
                return false;
            }
            card.face()
                .is_some_and(|next| fits_on_top(position, to, placed, next))
        })
        .count()
}

/// Whether `next` would fit on `top` were `top` the top card of `pile`.
fn fits_on_top(position: &impl Position, pile: PileId, top: PlacedCard, next: Face) -> bool {
    let rules = position.rules();
    match pile.kind() {
        PileKind::Foundation => {
            next.suit() == top.face.suit() && next.rank().value() == top.face.rank().value() + 1
        }
        kind => {
            let build = if kind == PileKind::Side {
                rules.side_build
            } else {
                rules.corner_build
            };
            crate::rules::fitting(build, rules.ace_wrap, top.face).contains(next)
        }
    }
}

/// Whether some card of the hand fits on `top`, were it the top card of `pile`.
fn hand_fits_on(position: &impl Position, pile: PileId, top: PlacedCard) -> bool {
    position
        .hand()
        .iter()
        .filter_map(|card| card.face())
        .any(|next| fits_on_top(position, pile, top, next))
}

fn empty_corner(position: &impl Position) -> bool {
    PileId::CORNERS
        .iter()
        .any(|corner| position.pile(*corner).is_empty())
}

/// Whether the hand could fill a side space once one opens.
fn can_fill_a_space(position: &impl Position) -> bool {
    let hand = position.hand();
    match position.rules().empty_side {
        EmptySide::AnyCard => hand.len() > 1,
        EmptySide::KingOnly => hand.iter().any(|card| card.is_king()),
        // The stock fills it at the start of the next turn: the next player's card.
        EmptySide::FromStock => false,
    }
}

/// Why `basic` likes `action`, for a person.
pub(crate) fn reason(position: &impl Position, action: &Action) -> String {
    match *action {
        Action::Play { card, as_face, to } => {
            let face = as_face
                .or(card.face())
                .expect("a joker is played as a card");
            let yours = match card {
                Card::Joker => format!("your joker as {face}"),
                Card::Natural(face) => format!("your {face}"),
            };
            let empty = position.pile(to).is_empty();
            let mut said = match to.kind() {
                PileKind::Corner if empty => {
                    format!("puts {yours} in the {} corner", pile_name(to))
                }
                PileKind::Foundation => {
                    format!("builds the {} foundation with {yours}", pile_name(to))
                }
                PileKind::Side if empty => {
                    format!("starts a pile in the {} space with {yours}", pile_name(to))
                }
                _ => format!("plays {yours} on the {} pile", pile_name(to)),
            };
            let following = followers(position, card, face, to);
            if following > 0 {
                said.push_str(&format!(
                    ", and {following} more of your cards can follow it"
                ));
            }
            said
        }
        Action::Move { from, to, count } => {
            let source = position.pile(from);
            let run = count.map_or(source.len(), usize::from);
            if to.kind() == PileKind::Foundation {
                return format!(
                    "moves the top card of {} to its foundation",
                    pile_name(from)
                );
            }
            if run < source.len() {
                return format!(
                    "moves the top {run} cards of {} onto {}, uncovering a card yours can go on",
                    pile_name(from),
                    pile_name(to)
                );
            }
            let onto = match to.kind() {
                PileKind::Corner => format!("into the {} corner", pile_name(to)),
                _ => format!("onto {}", pile_name(to)),
            };
            let space = match position.rules().empty_side {
                EmptySide::KingOnly if can_fill_a_space(position) => " for your king",
                _ if can_fill_a_space(position) => " for a card from your hand",
                _ => "",
            };
            format!(
                "moves the {} pile {onto}, which opens the {} space{space}",
                pile_name(from),
                pile_name(from)
            )
        }
        Action::Draw => "no card in your hand can be played: draw".to_owned(),
        Action::EndTurn => "nothing useful is left to do this turn: end it".to_owned(),
        Action::Resign => "resign".to_owned(),
        Action::Abort => "abort".to_owned(),
    }
}
