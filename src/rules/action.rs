//! What a player asks to do (docs/rules.md §3). Actions are a stable, versioned wire format: the API
//! accepts them as JSON (`{"type":"play","card":"7H","to":"N"}`) and the engine lists them in
//! [`legal_actions`](super::legal_actions).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::card::{Card, Face};
use super::pile::PileId;

/// A player's action, tagged by `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    deny_unknown_fields,
    from = "StrictAction"
)]
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
        #[schema(maximum = 255)]
        count: Option<u8>,
    },
    /// Draw in mid-turn, where the draw mode allows it (`when_stuck`, `draw_until_playable`).
    Draw,
    /// End the turn (drawing first under `draw: end`).
    EndTurn,
    /// Leave the match for good (docs/rules.md §7.1): at any moment, on one's turn or not.
    Resign,
    /// Call the match off before its first action (docs/rules.md §7.2): nobody wins.
    Abort,
}

/// [`Action`] as it is read: serde lets a unit variant of an internally tagged enum carry
/// unknown fields (`{"type": "end_turn", "x": 1}`), an empty struct variant refuses them.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum StrictAction {
    Play {
        card: Card,
        #[serde(default, rename = "as")]
        as_face: Option<Face>,
        to: PileId,
    },
    Move {
        from: PileId,
        to: PileId,
        #[serde(default)]
        count: Option<u8>,
    },
    Draw {},
    EndTurn {},
    Resign {},
    Abort {},
}

impl From<StrictAction> for Action {
    fn from(action: StrictAction) -> Action {
        match action {
            StrictAction::Play { card, as_face, to } => Action::Play { card, as_face, to },
            StrictAction::Move { from, to, count } => Action::Move { from, to, count },
            StrictAction::Draw {} => Action::Draw,
            StrictAction::EndTurn {} => Action::EndTurn,
            StrictAction::Resign {} => Action::Resign,
            StrictAction::Abort {} => Action::Abort,
        }
    }
}

impl Action {
    /// Whether this action counts towards the per-turn action bound.
    pub const fn counts_towards_bound(&self) -> bool {
        !matches!(self, Action::EndTurn | Action::Resign | Action::Abort)
    }

    /// Whether this action belongs to the seat to move; `resign` and `abort` do not.
    pub const fn needs_the_turn(&self) -> bool {
        !matches!(self, Action::Resign | Action::Abort)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_refuse_unknown_fields_whatever_their_kind() {
        for strict in [
            r#"{"type": "end_turn", "x": 1}"#,
            r#"{"type": "draw", "count": 1}"#,
            r#"{"type": "play", "card": "7H", "to": "N", "x": 1}"#,
        ] {
            assert!(serde_json::from_str::<Action>(strict).is_err(), "{strict}");
        }
        let end: Action = serde_json::from_str(r#"{"type": "end_turn"}"#).unwrap();
        assert_eq!(end, Action::EndTurn);
        let play: Action =
            serde_json::from_str(r#"{"type":"play","card":"JK","as":"7H","to":"N"}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&play).unwrap(),
            r#"{"type":"play","card":"JK","as":"7H","to":"N"}"#
        );
    }
}
