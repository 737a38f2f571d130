//! What a player asks to do (RULES.md §4). Actions are a stable, versioned wire format: the API
//! accepts them as JSON (`{"type":"play","card":"7H","to":"N"}`) and the engine lists them in
//! [`legal_actions`](super::legal_actions).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::card::{Card, Face};
use super::pile::PileId;

/// A player's action, tagged by `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Play a card from hand onto a pile, into an empty space, or onto a foundation.
    #[schema(example = json!({"type": "play", "card": "7H", "to": "N"}))]
    Play {
        /// The card from hand (`"JK"` for a joker).
        card: Card,
        /// For a joker: the card it is played as.
        #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
        as_face: Option<Face>,
        /// Where it goes.
        to: PileId,
    },
    /// Move a whole pile (or, with `partial_runs`, its top `count` cards) onto another pile or
    /// into an empty space; to a foundation the top card moves.
    #[schema(example = json!({"type": "move", "from": "S", "to": "N"}))]
    Move {
        /// The pile the cards come from.
        from: PileId,
        /// Where they go.
        to: PileId,
        /// With `partial_runs` only: how many cards from the top move (the whole pile is its length).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u8>,
    },
    /// Draw in mid-turn, where the draw mode allows it (`when_stuck`, `draw_until_playable`).
    Draw,
    /// End the turn (drawing first under `draw: end`).
    EndTurn,
}

impl Action {
    /// Whether this action counts towards the per-turn action bound.
    pub const fn counts_towards_bound(&self) -> bool {
        !matches!(self, Action::EndTurn)
    }
}
