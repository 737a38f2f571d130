//! [`MatchSummary`]: the public face of a match, as listings and the summary endpoint show it.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

use super::access::Viewer;
use super::ledger::MatchState;
use super::ledger::UNRATED;
use super::match_clock::ClockView;
use super::{MatchError, Matches};
use crate::bots::Level;
use crate::model::{MatchStatus, Outcome, Visibility};
use crate::ratings::RatingShown;
use crate::rules::{Preset, Rules, Seat};
use crate::store::ratings::Standing;
use crate::store::{MatchRow, SeatRow};

/// A taken seat, as everybody sees it.
#[derive(Serialize, ToSchema)]
pub struct SeatInfo {
    /// Seats are numbered from 0 in clockwise order.
    pub seat: Seat,
    /// Who sits there (`[bot]` for a bot).
    pub username: String,
    /// The bot's level, in a seat a bot holds; `null` for a person.
    pub bot: Option<Level>,
    /// At a rated table: the player's rating in its pool now (a newcomer's is 1000,
    /// provisional). Absent at other tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingShown>,
}

impl SeatInfo {
    fn of(seat: &SeatRow) -> SeatInfo {
        SeatInfo {
            seat: seat.seat,
            username: seat.username.clone(),
            bot: seat.bot,
            rating: None,
        }
    }
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
    "seat_count": 2, "seats": [{"seat": 0, "username": "maya", "bot": null}, {"seat": 1, "username": "[bot]", "bot": "expert"}],
    "version": 12, "commitment": "f9abbe969b2a4a61ac33cfb6c684907aed641b17a5b423ed72f782028cb73ab9",
    "shuffle_version": 1, "auto_end_turn": true, "hints": true, "turn": 1, "totals": [0, 0], "winners": null,
    "invite_code": null, "created_at": "2026-11-29T16:25:22Z", "updated_at": "2026-11-29T16:26:51Z"
}))]
pub struct MatchSummary {
    /// The match's id (a UUID).
    #[schema(format = Uuid)]
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
    /// The shuffle algorithm (docs/rules.md §9).
    pub shuffle_version: u32,
    /// Whether the server ends a turn whose only legal action is `end_turn`.
    pub auto_end_turn: bool,
    /// Whether a seated player may ask for a hint (`GET /v1/matches/{id}/hint`).
    pub hints: bool,
    /// A rated match: the rating pool its end counts in (its preset; docs/ratings.md).
    pub rating_pool: Option<Preset>,
    /// The seat to move, while playing.
    pub turn: Option<Seat>,
    /// Running totals, once started (only in the single-match summary).
    pub totals: Option<Vec<u32>>,
    /// The winners, once finished.
    pub winners: Option<Vec<Seat>>,
    /// The invite code of a private match, shown to its players only.
    pub invite_code: Option<String>,
    /// The spectator code of a private match, shown to its players only: whoever opens the
    /// match's summary, view, feed, stream or replay with `?watch=<code>` watches it (never a
    /// hand). Share it as a link, e.g. `/v1/matches/{id}/view?watch=<code>`.
    pub spectator_code: Option<String>,
    /// The match's clock, if it has one (every seat's bank only in the single-match summary).
    pub clock: Option<ClockView>,
    /// Once over: how it ended, its winners, its final totals.
    pub result: Option<MatchResult>,
    /// The rematch its players were offered once it ended (`POST /v1/matches/{id}/rematch`).
    #[schema(format = Uuid)]
    pub next_match_id: Option<String>,
    /// The match this one is a rematch of: its seats are kept for that match's players.
    #[schema(format = Uuid)]
    pub rematch_of: Option<String>,
    /// When (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    /// When it last changed (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: i64,
}

/// How a match ended.
#[derive(Serialize, ToSchema)]
pub struct MatchResult {
    /// `finished` (by its `game_end`), `resigned` or `timeout` (the others left), `aborted`.
    pub ended_by: Outcome,
    /// The seats that share the win, with their players (none for an aborted match).
    pub winners: Vec<SeatInfo>,
    /// Each seat's final total.
    pub totals: Vec<u32>,
}

impl MatchSummary {
    /// The summary of a match for a viewer who is seated in it or not, as its row tells it
    /// at `now`.
    pub(super) fn new(
        row: &MatchRow,
        seats: &[SeatRow],
        viewer_seated: bool,
        now: i64,
    ) -> MatchSummary {
        let seat_info = |seat: Seat| {
            seats.iter().find(|taken| taken.seat == seat).map_or_else(
                || SeatInfo {
                    seat,
                    username: String::new(),
                    bot: None,
                    rating: None,
                },
                SeatInfo::of,
            )
        };
        MatchSummary {
            id: row.id.clone(),
            status: row.status,
            visibility: row.visibility,
            rules: row.rules.clone(),
            seat_count: row.seat_count,
            seats: seats.iter().map(SeatInfo::of).collect(),
            version: row.version,
            commitment: row.commitment.clone(),
            shuffle_version: row.shuffle_version,
            auto_end_turn: row.auto_end_turn,
            hints: row.hints,
            turn: row.turn_seat,
            totals: None,
            winners: row.winners.clone(),
            invite_code: row.invite_code.clone().filter(|_| viewer_seated),
            spectator_code: row.spectator_code.clone().filter(|_| viewer_seated),
            rating_pool: row.rating_pool,
            next_match_id: row.next_match_id.clone(),
            rematch_of: row.rematch_of.clone(),
            created_at: row.created_at,
            updated_at: row.updated_at,
            clock: row.clock.map(|settings| {
                ClockView::new(settings, row.on_timeout, row.vacations, row.deadline, now)
            }),
            result: row.outcome.map(|ended_by| MatchResult {
                ended_by,
                winners: row
                    .winners
                    .iter()
                    .flatten()
                    .map(|seat| seat_info(*seat))
                    .collect(),
                totals: row.final_totals.clone().unwrap_or_default(),
            }),
        }
    }

    /// The same, with what the match's state adds: running totals, and every seat's bank.
    pub(super) fn with_state(self, current: &MatchState, now: i64) -> MatchSummary {
        MatchSummary {
            totals: Some(current.state.totals().to_vec()),
            clock: current.clock.as_ref().map(|clock| clock.view(now)),
            ..self
        }
    }
}

impl MatchSummary {
    /// At a rated table: each seat's rating in the match's pool, from `known` (by account and
    /// pool; a player not in it is new to the pool).
    pub(super) fn show_ratings(
        &mut self,
        seats: &[SeatRow],
        known: &HashMap<(String, Preset), Standing>,
    ) {
        let Some(pool) = self.rating_pool else {
            return;
        };
        for (info, seat) in self.seats.iter_mut().zip(seats) {
            let standing = known
                .get(&(seat.account_id.clone(), pool))
                .copied()
                .unwrap_or(UNRATED);
            info.rating = Some(standing.rating.into());
        }
    }
}

impl Matches {
    /// The summary of a match the caller may see, with running totals once it has started.
    pub async fn summary(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
    ) -> Result<MatchSummary, MatchError> {
        let (read, seats, role) = self.ledger.read_row_and_seats(match_id, viewer).await?;
        let now = self.clock.now();
        let mut summary = MatchSummary::new(&read.row, &seats, role.seat().is_some(), now);
        if read.row.rating_pool.is_some() {
            let accounts: Vec<&str> = seats.iter().map(|seat| seat.account_id.as_str()).collect();
            summary.show_ratings(&seats, &self.db.standings_of(&accounts).await?);
        }
        if read.row.version == 0 {
            return Ok(summary);
        }
        let current = self.ledger.load(&read).await?;
        let current = self.when_the_clock_has_acted(match_id, current).await?;
        if current.version != read.row.version {
            // The clock's worker forfeited a late seat just now: the row has moved on.
            return Box::pin(self.summary(match_id, viewer)).await;
        }
        Ok(summary.with_state(&current, now))
    }
}
