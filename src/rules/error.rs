//! Why the engine refused an action: a stable machine-readable [`RuleError::code`] and a
//! sentence a player understands (its `Display`).

use super::card::{Card, Face, PlacedCard};
use super::pile::PileId;
use super::{MAX_ACTIONS_PER_TURN, Seat};

/// Why a card or run does not go on a pile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misfit {
    /// The rank is not the next one down (or up, for `up_alternating`).
    Rank {
        /// Whether the pile builds down.
        down: bool,
    },
    /// Alternating build, same colour.
    Colour,
    /// Suit build, other suit.
    Suit,
    /// The top card is an ace (and `ace_wrap` is off).
    NothingOnAce,
    /// The top card is a king on a pile building up (and `ace_wrap` is off).
    NothingOnKing,
    /// `ace_starter_takes_two`: the pile took its 2 and is finished (§6.17: wherever it moves).
    PileFinished,
    /// `ace_starter_takes_two`: a lone starter ace takes a 2, or with `ace_wrap` a king (§6.16).
    StarterAce {
        /// Whether a king would also do (`ace_wrap`).
        or_king: bool,
    },
    /// A foundation needs the next card of its suit.
    NotNextOnFoundation {
        /// The card it needs, if it is not complete.
        needs: Option<Face>,
    },
}

/// A refusal by the rules engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// No hand is in play: the match has not started or is over.
    #[error("No hand is in play: the match has not started or is over.")]
    HandOver,
    /// The seat does not exist at this table.
    #[error("There is no seat {0} at this table.")]
    UnknownSeat(Seat),
    /// Another seat is to move.
    #[error("It is seat {turn}'s turn, not seat {seat}'s.")]
    NotYourTurn {
        /// The seat that tried to act.
        seat: Seat,
        /// The seat to move.
        turn: Seat,
    },
    /// The per-turn action bound was reached.
    #[error(
        "This turn has reached {MAX_ACTIONS_PER_TURN} actions: the only thing left is to end it."
    )]
    ActionLimit,
    /// The seat resigned or timed out: it takes no more part in the match.
    #[error("Seat {0} is out of this match.")]
    SeatOut(Seat),
    /// `abort` after the first action of the match.
    #[error(
        "The match has begun (a card was played, a pile moved, a card drawn or a turn ended): it can no longer be aborted; resign instead."
    )]
    TooLateToAbort,
    /// The card is not in the player's hand.
    #[error("You do not hold {}.", .0.pretty())]
    CardNotInHand(Card),
    /// A joker was played without naming the card it stands for.
    #[error("Name the card the joker is played as, like \"as\": \"7H\".")]
    JokerNeedsIdentity,
    /// `as` was given for a card that is not a joker.
    #[error("Only a joker is played as another card; {} is itself.", .0.pretty())]
    NotAJoker(Card),
    /// The pile does not exist at this table (foundations are off).
    #[error("There is no {} at this table: foundations are not in play.", .0.description())]
    NoSuchPile(PileId),
    /// The card (or the lowest card of a run) does not fit on the pile's top card.
    #[error("{}", does_not_fit_sentence(*card, *pile, *top, *reason))]
    DoesNotFit {
        /// The card that does not fit (for a run, its lowest card).
        card: PlacedCard,
        /// The pile it was sent to.
        pile: PileId,
        /// The pile's top card, if any.
        top: Option<PlacedCard>,
        /// Which build rule the card breaks.
        reason: Misfit,
    },
    /// Only a king opens an empty corner.
    #[error("Only a king opens an empty corner; {} is not a king.", .0.pretty())]
    CornerNeedsKing(PlacedCard),
    /// `empty_side: king_only`: only a king fills an empty side space.
    #[error("At this table only a king fills an empty side space; {} is not a king.", .0.pretty())]
    SideNeedsKing(PlacedCard),
    /// `empty_side: from_stock`: the space is refilled from the stock while it lasts.
    #[error("{} is filled from the stock at the start of the next turn while the stock lasts.", capitalised(.0.description()))]
    SpaceAwaitsStock(PileId),
    /// `pile_to_empty_side` is off: only a card from hand fills an empty side space.
    #[error(
        "At this table a pile cannot move into an empty side space; only a card from hand fills it."
    )]
    PileToEmptySideOff,
    /// The pile to move from is empty.
    #[error("{} is empty: there is nothing to move.", capitalised(.0.description()))]
    PileEmpty(PileId),
    /// A pile cannot move onto itself.
    #[error("A pile cannot move onto itself.")]
    SamePile,
    /// A whole corner pile never moves.
    #[error("A corner pile never moves as a whole: its king has nowhere to go.")]
    CornerPileCannotMove,
    /// Cards never come back off a foundation.
    #[error("Cards never come back off a foundation.")]
    FoundationIsFinal,
    /// The `count` of a move is missing, not allowed, or out of range.
    #[error("{0}")]
    BadCount(String),
    /// The turn cannot end yet: a card must be played first.
    #[error("{0}")]
    MustPlay(&'static str),
    /// The turn cannot end yet: the player must draw first.
    #[error("Nothing in your hand can be played: draw before ending the turn.")]
    MustDraw,
    /// A mid-turn draw is not allowed now.
    #[error("{0}")]
    DrawNotAllowed(&'static str),
}

impl RuleError {
    /// The stable machine-readable code of the refusal.
    pub const fn code(&self) -> &'static str {
        match self {
            RuleError::HandOver => "hand_over",
            RuleError::UnknownSeat(_) => "unknown_seat",
            RuleError::NotYourTurn { .. } => "not_your_turn",
            RuleError::ActionLimit => "action_limit",
            RuleError::SeatOut(_) => "seat_out",
            RuleError::TooLateToAbort => "too_late_to_abort",
            RuleError::CardNotInHand(_) => "card_not_in_hand",
            RuleError::JokerNeedsIdentity => "joker_needs_identity",
            RuleError::NotAJoker(_) => "not_a_joker",
            RuleError::NoSuchPile(_) => "no_such_pile",
            RuleError::DoesNotFit { .. } => "does_not_fit",
            RuleError::CornerNeedsKing(_) => "corner_needs_king",
            RuleError::SideNeedsKing(_) => "side_needs_king",
            RuleError::SpaceAwaitsStock(_) => "space_awaits_stock",
            RuleError::PileToEmptySideOff => "pile_to_empty_side_off",
            RuleError::PileEmpty(_) => "pile_empty",
            RuleError::SamePile => "same_pile",
            RuleError::CornerPileCannotMove => "corner_pile_cannot_move",
            RuleError::FoundationIsFinal => "foundation_is_final",
            RuleError::BadCount(_) => "bad_count",
            RuleError::MustPlay(_) => "must_play",
            RuleError::MustDraw => "must_draw",
            RuleError::DrawNotAllowed(_) => "draw_not_allowed",
        }
    }

    /// Every code the engine can give, for documentation.
    pub const CODES: [&'static str; 23] = [
        "hand_over",
        "unknown_seat",
        "not_your_turn",
        "action_limit",
        "seat_out",
        "too_late_to_abort",
        "card_not_in_hand",
        "joker_needs_identity",
        "not_a_joker",
        "no_such_pile",
        "does_not_fit",
        "corner_needs_king",
        "side_needs_king",
        "space_awaits_stock",
        "pile_to_empty_side_off",
        "pile_empty",
        "same_pile",
        "corner_pile_cannot_move",
        "foundation_is_final",
        "bad_count",
        "must_play",
        "must_draw",
        "draw_not_allowed",
    ];
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn does_not_fit_sentence(
    card: PlacedCard,
    pile: PileId,
    top: Option<PlacedCard>,
    reason: Misfit,
) -> String {
    let card = card.pretty();
    let onto = top.map_or_else(|| pile.description().to_owned(), |top| top.pretty());
    let why: String = match reason {
        Misfit::Rank { down: true } => "it must be one rank lower".into(),
        Misfit::Rank { down: false } => "it must be one rank higher".into(),
        Misfit::Colour => "it must be the other colour".into(),
        Misfit::Suit => "it must be the same suit".into(),
        Misfit::NothingOnAce => "nothing can be played on an ace".into(),
        Misfit::NothingOnKing => "nothing can be played on a king when piles build up".into(),
        Misfit::PileFinished => "that pile took its 2 and is finished".into(),
        Misfit::StarterAce { or_king: false } => "a lone starter ace takes only a 2".into(),
        Misfit::StarterAce { or_king: true } => {
            "a lone starter ace takes only a 2 or a king".into()
        }
        Misfit::NotNextOnFoundation { needs: Some(face) } => {
            format!("{} needs {} next", pile.description(), face.pretty())
        }
        Misfit::NotNextOnFoundation { needs: None } => {
            format!("{} is complete", pile.description())
        }
    };
    format!("{card} does not fit on {onto}: {why}.")
}
