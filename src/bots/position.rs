//! [`Position`]: what the heuristics look at, for one seat. The bots' real input is a
//! [`Knowledge`]; inside a search, `expert` plays imagined deals ([`Imagined`]), states it
//! made up itself from a `Knowledge`, through the same heuristics.

use crate::rules::{Action, Card, GameState, Knowledge, PileId, PlacedCard, Rules, Seat};

/// One seat's hand and the table as the heuristics see them.
pub(crate) trait Position {
    /// The table's rules.
    fn rules(&self) -> &Rules;
    /// The seat's hand.
    fn hand(&self) -> &[Card];
    /// A pile, bottom first.
    fn pile(&self, pile: PileId) -> &[PlacedCard];
    /// Play, move and draw actions taken this turn.
    fn actions_this_turn(&self) -> u16;
}

impl Position for Knowledge {
    fn rules(&self) -> &Rules {
        Knowledge::rules(self)
    }
    fn hand(&self) -> &[Card] {
        Knowledge::hand(self)
    }
    fn pile(&self, pile: PileId) -> &[PlacedCard] {
        Knowledge::pile(self, pile)
    }
    fn actions_this_turn(&self) -> u16 {
        self.progress().actions
    }
}

/// A seat in a deal `expert` imagined (a [`Knowledge::sample`]), never a real match's state.
pub(crate) struct Imagined<'a> {
    pub state: &'a GameState,
    pub seat: Seat,
}

impl Imagined<'_> {
    /// The seat's legal actions in the imagined deal.
    pub fn legal_actions(&self) -> Vec<Action> {
        self.state.legal_actions(self.seat)
    }
}

impl Position for Imagined<'_> {
    fn rules(&self) -> &Rules {
        self.state.rules()
    }
    fn hand(&self) -> &[Card] {
        self.state.hand(self.seat)
    }
    fn pile(&self, pile: PileId) -> &[PlacedCard] {
        self.state.pile(pile)
    }
    fn actions_this_turn(&self) -> u16 {
        self.state.progress().actions
    }
}

/// A pile's name for a person: "north", "the north-east corner" is built by the caller.
pub(crate) fn pile_name(pile: PileId) -> &'static str {
    match pile {
        PileId::N => "north",
        PileId::E => "east",
        PileId::S => "south",
        PileId::W => "west",
        PileId::NE => "north-east",
        PileId::SE => "south-east",
        PileId::SW => "south-west",
        PileId::NW => "north-west",
        PileId::FC => "clubs",
        PileId::FD => "diamonds",
        PileId::FH => "hearts",
        PileId::FS => "spades",
    }
}
