//! [`MatchSummary`]: the public face of a match, as listings and the summary endpoint show it.

use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::{Rules, Seat};
use crate::store::matches::{MatchRow, MatchStatus, SeatRow, Visibility};

/// A taken seat, as everybody sees it.
#[derive(Serialize, ToSchema)]
pub struct SeatInfo {
    /// Seats are numbered from 0 in clockwise order.
    pub seat: Seat,
    /// Who sits there.
    pub username: String,
}

/// The public summary of a match.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "status": "playing", "visibility": "public",
    "rules": {"players": 2, "decks": 1, "jokers": false, "hand_size": 7, "hand_size_5_plus": 7, "draw": "end",
              "draw_count": 1, "draw_until_playable": false, "must_play": false, "king_hold_penalty": 0,
              "empty_side": "any_card", "pile_to_empty_side": false, "partial_runs": false,
              "side_build": "down_alternating", "corner_build": "down_alternating", "ace_wrap": false,
              "ace_starter_takes_two": false, "foundations": false, "collect_corners": false,
              "blocked": "everyone_scores", "scoring": "penalty", "chips": null, "game_end": {"target": 50}},
    "seat_count": 2, "seats": [{"seat": 0, "username": "maya"}, {"seat": 1, "username": "leo"}],
    "version": 12, "commitment": "f9abbe969b2a4a61ac33cfb6c684907aed641b17a5b423ed72f782028cb73ab9",
    "shuffle_version": 1, "auto_end_turn": true, "turn": 1, "totals": [0, 0], "winners": null,
    "invite_code": null, "created_at": 1795969522, "updated_at": 1795969611
}))]
pub struct MatchSummary {
    /// The match's id (a UUID).
    pub id: String,
    /// `open` (waiting for players), `playing` or `finished`.
    pub status: MatchStatus,
    /// Who may find and watch it.
    pub visibility: Visibility,
    /// Every option of the table, presets resolved.
    pub rules: Rules,
    /// How many seats the table has.
    pub seat_count: u8,
    /// The taken seats, in seat order.
    pub seats: Vec<SeatInfo>,
    /// Events in the log.
    pub version: i64,
    /// Hex SHA-256 of the shuffle secret, revealed when the match ends.
    pub commitment: String,
    /// The shuffle algorithm (RULES.md §6).
    pub shuffle_version: u32,
    /// Whether the server ends a turn whose only legal action is `end_turn`.
    pub auto_end_turn: bool,
    /// The seat to move, while playing.
    pub turn: Option<Seat>,
    /// Running totals, once started (only in the single-match summary).
    pub totals: Option<Vec<u32>>,
    /// The winners, once finished.
    pub winners: Option<Vec<Seat>>,
    /// The invite code of a private match, shown to its players only.
    pub invite_code: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds of the last change.
    pub updated_at: i64,
}

impl MatchSummary {
    /// The summary of a match for a viewer who is seated in it or not; `totals` where known.
    pub(super) fn new(
        row: &MatchRow,
        seats: &[SeatRow],
        viewer_seated: bool,
        totals: Option<Vec<u32>>,
    ) -> MatchSummary {
        MatchSummary {
            id: row.id.clone(),
            status: row.status,
            visibility: row.visibility,
            rules: row.rules.clone(),
            seat_count: row.seat_count,
            seats: seats
                .iter()
                .map(|seat| SeatInfo {
                    seat: seat.seat,
                    username: seat.username.clone(),
                })
                .collect(),
            version: row.version,
            commitment: row.commitment.clone(),
            shuffle_version: row.shuffle_version,
            auto_end_turn: row.auto_end_turn,
            turn: row.turn_seat,
            totals,
            winners: row.winners.clone(),
            invite_code: row.invite_code.clone().filter(|_| viewer_seated),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}
