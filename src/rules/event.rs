//! What happened (past tense). The match's log is a list of these; folding them with
//! [`GameState::apply`](super::GameState::apply) rebuilds the state.
//!
//! Format version [`EVENT_FORMAT_VERSION`]: variants and fields keep their meaning forever;
//! later versions may add variants, and add fields only with defaults, so logs written today
//! replay after future releases. Hidden fields are `Option`s: `Some` in the stored log, `None`
//! in a feed redacted for a player who may not see them ([`Event::redacted_for`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Seat;
use super::card::{Card, Face, PlacedCard};
use super::pile::PileId;

/// The version of the event format written by this engine.
pub const EVENT_FORMAT_VERSION: u32 = 1;

/// What the rules say happened, tagged by `type`. The server's match log holds these beside
/// notes of its own, which the engine never sees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A hand was dealt (docs/rules.md §6.1).
    HandDealt {
        /// Hand number, from 1.
        hand: u32,
        /// The dealer: the seat to their left is dealt to first and plays first.
        dealer: Seat,
        /// Each seat's hand (`[]` for a seat out of the game); `null` where redacted.
        hands: Vec<Option<Vec<Card>>>,
        /// The four cards turned face up onto `N E S W`.
        layout: Vec<Face>,
        /// Cards left in the stock.
        stock_count: u16,
        /// The stock, next card first; `null` where redacted (always, outside the stored log).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stock: Option<Vec<Card>>,
    },
    /// A seat's turn began.
    TurnStarted {
        /// The seat to move now.
        seat: Seat,
    },
    /// `empty_side: from_stock`: the next stock card turned up into an empty side space.
    SideRefilled {
        /// The side space it filled.
        pile: PileId,
        /// The card turned up (jokers go to the bottom of the stock instead, §6.2).
        card: Face,
    },
    /// A seat drew cards from the stock.
    CardsDrawn {
        /// The seat whose hand took the cards.
        seat: Seat,
        /// Why: the player's draw, or the automatic draw at the start or end of the turn.
        reason: DrawReason,
        /// Always shown, also where the cards are not.
        count: u8,
        /// The cards; `null` in feeds of other seats.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<Vec<Card>>,
    },
    /// A card went from a hand to the layout.
    CardPlayed {
        /// The seat whose hand it left.
        seat: Seat,
        /// The card as it now lies (a joker with the card it stands for).
        card: PlacedCard,
        /// The pile it went on top of.
        to: PileId,
    },
    /// Cards moved from one pile to another.
    PileMoved {
        /// The seat to move, who moved them.
        seat: Seat,
        /// The pile the cards left.
        from: PileId,
        /// The pile they now lie on top of.
        to: PileId,
        /// How many cards moved (from the top of `from`).
        count: u8,
    },
    /// `collect_corners`: a completed corner pile left the layout with its player.
    CornerClaimed {
        /// The seat that completed it, and keeps it for the hand's count of corners.
        seat: Seat,
        /// The corner, now empty.
        pile: PileId,
        /// The cards claimed, bottom first.
        cards: Vec<PlacedCard>,
    },
    /// `king_hold_penalty`: a seat ended its turn holding a king while a corner was empty.
    KingHoldPenalized {
        /// The seat that held the king.
        seat: Seat,
        /// Points added to their score for this hand.
        points: u32,
    },
    /// Chips: a turn that only drew added chips to the pot.
    ChipsToPot {
        /// The seat that paid them in.
        seat: Seat,
        /// The table's `idle_turn` figure.
        chips: u32,
    },
    /// A turn ended (after its draw, if it had one).
    TurnEnded {
        /// Whose turn it was.
        seat: Seat,
        /// Whether it was a pass: the stock was empty and no card entered or left a hand (§6.9).
        passed: bool,
    },
    /// The hand ended; every hand is revealed.
    // Boxed: the other events are a fraction of its size, and every list of events would
    // otherwise be as wide as it.
    HandEnded(Box<HandResult>),
    /// A seat is out of the match for good (docs/rules.md §7.3): it resigned, or the server forfeited
    /// it when its time ran out. Its hand is set aside face down.
    SeatOut {
        /// The seat that left.
        seat: Seat,
        /// Why.
        reason: OutReason,
        /// For a timeout: the deadline it enforced (RFC 3339), which the log's times must
        /// show had passed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(format = DateTime)]
        deadline: Option<String>,
        /// The dead hand set aside; shown only once the match is over (`null` in feeds).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand: Option<Vec<Card>>,
    },
    /// The match was called off before its first action (docs/rules.md §7.2): no winners, nothing
    /// scored, no chips paid.
    MatchAborted {
        /// The seat that called it off.
        seat: Seat,
    },
    /// The match ended: nothing more can happen in it.
    GameEnded {
        /// The winners (ties share the win).
        winners: Vec<Seat>,
        /// Final totals per seat.
        totals: Vec<u32>,
    },
}

/// Why a seat left the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutReason {
    /// The player resigned (or left a started match).
    Resign,
    /// Its time ran out and the server forfeited it.
    Timeout,
}

/// Why cards were drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    /// The player's `draw` action.
    Draw,
    /// The automatic draw of `draw: start`.
    TurnStart,
    /// The draw of `end_turn` under `draw: end`.
    TurnEnd,
}

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HandOutcome {
    /// A player played their last card.
    WentOut {
        /// The seat that played its last card.
        seat: Seat,
    },
    /// Stock empty and a full round of passes.
    Blocked,
}

/// The result of a hand, recorded in [`Event::HandEnded`] and shown in views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HandResult {
    /// The hand's number, from 1.
    pub hand: u32,
    /// Gone out, or blocked.
    pub outcome: HandOutcome,
    /// Every hand left, revealed (`[]` for a seat out of the game).
    pub hands: Vec<Vec<Card>>,
    /// This hand's score per seat: cards left plus king-hold penalties.
    pub hand_scores: Vec<u32>,
    /// Running totals after this hand.
    pub totals: Vec<u32>,
    /// Who won the hand (may be empty: a blocked hand, or a tie under `fewest_cards_wins`).
    pub winners: Vec<Seat>,
    /// Corners claimed per seat this hand (`collect_corners`).
    pub claimed_corners: Vec<u8>,
    /// Chips settled, when playing for chips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chips: Option<ChipSettlement>,
    /// Seats out of the game from now on (`out_at_target`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eliminated: Vec<Seat>,
}

/// How the chips moved at the end of a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ChipSettlement {
    /// The seat that took the pot; `null` when a blocked hand leaves it for the next hand.
    pub pot_won_by: Option<Seat>,
    /// The pot at the end of the hand.
    pub pot: u64,
    /// Change of each seat's chip balance by this settlement (the winner's share includes the pot).
    pub payments: Vec<i64>,
}

impl Event {
    /// The event as `viewer` may see it (`None`: a spectator): other seats' dealt hands and
    /// drawn cards, and the stock order, are removed. Hands revealed at the end of a hand stay.
    pub fn redacted_for(&self, viewer: Option<Seat>) -> Event {
        match self {
            Event::HandDealt {
                hand,
                dealer,
                hands,
                layout,
                stock_count,
                ..
            } => Event::HandDealt {
                hand: *hand,
                dealer: *dealer,
                hands: hands
                    .iter()
                    .enumerate()
                    .map(|(seat, cards)| {
                        if Some(seat as Seat) == viewer {
                            cards.clone()
                        } else {
                            None
                        }
                    })
                    .collect(),
                layout: layout.clone(),
                stock_count: *stock_count,
                stock: None,
            },
            Event::CardsDrawn {
                seat,
                reason,
                count,
                cards,
            } => Event::CardsDrawn {
                seat: *seat,
                reason: *reason,
                count: *count,
                cards: if Some(*seat) == viewer {
                    cards.clone()
                } else {
                    None
                },
            },
            Event::SeatOut {
                seat,
                reason,
                deadline,
                hand,
            } => Event::SeatOut {
                seat: *seat,
                reason: *reason,
                deadline: deadline.clone(),
                hand: if Some(*seat) == viewer {
                    hand.clone()
                } else {
                    None
                },
            },
            other => other.clone(),
        }
    }
}
