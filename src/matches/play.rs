//! The private view of a match and checked moves.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::{Player, Viewer};
use super::cache::MatchState;
use super::clock::ClockView;
use super::idempotency::{IdempotencyKey, Idempotent, MoveAnswer};
use super::kept_views::SerialisedView;
use super::log::Entry;
use super::state::{Intent, retrying_races};
use super::{MatchError, Matches};
use crate::instruments::{self, Mover};
use crate::rules::{Action, Event, GameState, RuleError, Rules, Seat, Status, View};

/// How often a move is decided again when something that changes nothing it was chosen from
/// (a reminder, table talk) was written between its load and its append.
const MOVE_ATTEMPTS: u32 = 3;

/// A view of the table with the match's version.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "version": 2,
    "rules": {"players": 2, "decks": 1, "jokers": false, "hand_size": 7, "hand_size_5_plus": 7, "draw": "end",
              "draw_count": 1, "draw_until_playable": false, "must_play": false, "king_hold_penalty": 0,
              "empty_side": "any_card", "pile_to_empty_side": false, "partial_runs": false,
              "side_build": "down_alternating", "corner_build": "down_alternating", "ace_wrap": false,
              "ace_starter_takes_two": false, "foundations": false, "collect_corners": false,
              "blocked": "everyone_scores", "scoring": "penalty", "chips": null, "game_end": {"target": 50}},
    "auto_end_turn": true, "hints": true, "clock": null, "status": "playing", "hand_number": 1,
    "your_seat": 0, "hand": ["4C", "QC", "10D", "KD", "AH", "4H", "AS"],
    "piles": {"N": ["JS"], "E": ["KC"], "S": ["3C"], "W": ["8S"], "NE": [], "SE": [], "SW": [], "NW": []},
    "foundations": null, "stock_count": 34,
    "seats": [
        {"seat": 0, "hand_count": 7, "hand_penalties": 0, "total": 0, "hands_won": 0, "claimed_corners": 0, "claimed": [], "in_game": true, "left": null, "chips": null},
        {"seat": 1, "hand_count": 7, "hand_penalties": 0, "total": 0, "hands_won": 0, "claimed_corners": 0, "claimed": [], "in_game": true, "left": null, "chips": null}
    ],
    "turn": 0, "turn_number": 1, "dealer": 1, "turn_progress": {"actions": 0, "drew": false, "played": false}, "pot": null,
    "last_hand": null, "winners": null,
    "legal_actions": [
        {"type": "play", "card": "10D", "to": "N"}, {"type": "play", "card": "KD", "to": "NE"},
        {"type": "move", "from": "E", "to": "NE"}, {"type": "end_turn"}
    ],
    "can_abort": true
}))]
pub struct MatchView {
    /// The match's id.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// The log's length this view reflects; send it as `expected_version` with a move (table
    /// talk and reminders written since do not make it stale).
    pub version: i64,
    /// The table's rules, every option resolved (see `GET /v1/rules` for what each means).
    pub rules: Rules,
    /// Whether the server ends a turn whose only legal action is `end_turn`.
    pub auto_end_turn: bool,
    /// Whether a seated player may ask for a hint (`GET /v1/matches/{id}/hint`).
    pub hints: bool,
    /// The match's clock, if it has one: the deadline of the seat to move, every seat's bank,
    /// whether a claim is possible.
    pub clock: Option<ClockView>,
    /// The table.
    #[serde(flatten)]
    pub view: View,
}

impl MatchView {
    /// What `seat` sees of a match now, its clock included.
    pub(super) fn now(match_id: &str, current: &MatchState, seat: Option<Seat>, now: i64) -> Self {
        MatchView {
            clock: current.clock.as_ref().map(|clock| clock.view(now)),
            ..MatchView::timeless(match_id, current, seat)
        }
    }

    /// What `seat` sees of a match at its version, all but the clock.
    fn timeless(match_id: &str, current: &MatchState, seat: Option<Seat>) -> Self {
        MatchView {
            auto_end_turn: current.table.auto_end_turn,
            hints: current.table.hints,
            ..MatchView::of(match_id, current.version, &current.state, seat)
        }
    }

    /// What `seat` sees of `state` (a spectator's view for `None`), turns ended by the
    /// server and hints allowed until the caller says otherwise.
    pub(super) fn of(match_id: &str, version: i64, state: &GameState, seat: Option<Seat>) -> Self {
        MatchView {
            match_id: match_id.to_owned(),
            version,
            rules: state.rules().clone(),
            auto_end_turn: true,
            hints: true,
            clock: None,
            view: match seat {
                Some(seat) => state.view(seat),
                None => state.spectator_view(),
            },
        }
    }
}

/// A view to answer: what it is made of, so that a client holding it already is told so
/// without it being made.
pub struct ViewAnswer {
    match_id: String,
    current: Arc<MatchState>,
    seat: Option<Seat>,
    clock: Option<ClockView>,
}

impl ViewAnswer {
    /// The version the view reflects.
    pub fn version(&self) -> i64 {
        self.current.version
    }

    /// The caller's seat; `None` for a spectator.
    pub fn seat(&self) -> Option<Seat> {
        self.seat
    }

    /// Whether another seat may claim now (it changes with no new event).
    pub fn claimable(&self) -> bool {
        self.clock.as_ref().is_some_and(|clock| clock.claimable)
    }

    /// The view's JSON: a [`MatchView`], made once for a state whose view is asked for again.
    pub fn json(&self) -> String {
        self.current
            .views
            .get_or_make(self.seat, || {
                SerialisedView::of(&MatchView::timeless(
                    &self.match_id,
                    &self.current,
                    self.seat,
                ))
            })
            .with_clock(self.clock.as_ref())
    }
}

/// A move.
#[derive(Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"expected_version": 12, "action": {"type": "play", "card": "7H", "to": "N"}}))]
pub struct MoveRequest {
    /// The `version` of the view the move was chosen from. Refused (`409 version_conflict`) once
    /// anything that changes the table was written after it; table talk and reminders are not.
    #[schema(minimum = 0, maximum = 9_223_372_036_854_775_807_i64)]
    pub expected_version: i64,
    /// The action, exactly as docs/rules.md §3 and `legal_actions` write it.
    pub action: Action,
}

impl Matches {
    /// The caller's private view of a started match (a spectator's view of a public match for
    /// those without a seat).
    pub async fn view(&self, match_id: &str, viewer: Viewer<'_>) -> Result<ViewAnswer, MatchError> {
        let seen = self.current(match_id, viewer, Intent::Watch).await?;
        let now = self.clock.now();
        Ok(ViewAnswer {
            match_id: match_id.to_owned(),
            clock: seen.current.clock.as_ref().map(|clock| clock.view(now)),
            seat: seen.role.seat(),
            current: seen.current,
        })
    }

    /// Plays a move for the caller's seat if the match is at `expected_version`; nothing is
    /// written on any refusal. With a key, a retry of the same move gets the first answer again.
    pub async fn play(
        &self,
        match_id: &str,
        player: Player<'_>,
        request: MoveRequest,
        key: Option<IdempotencyKey>,
    ) -> Result<MoveAnswer, MatchError> {
        let answer = self.play_checked(match_id, player, request, key).await;
        match &answer {
            Ok(answer) if !answer.replayed => instruments::move_accepted(Mover::Player),
            Ok(_) => {}
            Err(refused) => instruments::move_refused(refused.code()),
        }
        answer
    }

    async fn play_checked(
        &self,
        match_id: &str,
        player: Player<'_>,
        request: MoveRequest,
        key: Option<IdempotencyKey>,
    ) -> Result<MoveAnswer, MatchError> {
        let intent = Intent::Act {
            expected_version: request.expected_version,
        };
        let idempotent = key.map(|key| Idempotent::new(player, key, &request));
        let mut attempts = 0;
        loop {
            attempts += 1;
            let seen = self.current(match_id, player.viewer(), intent).await?;
            let seat = seen.role.acts()?;
            if let Some(idempotent) = &idempotent
                && let Some(kept) = self.kept_answer(match_id, idempotent).await?
            {
                return Ok(kept);
            }
            match self
                .decide_and_append(
                    match_id,
                    seat,
                    request.clone(),
                    &seen.current,
                    idempotent.as_ref(),
                )
                .await
            {
                Err(MatchError::VersionConflict { expected, current }) => {
                    // A concurrent retry with the same key may have won the race: answer as
                    // it did.
                    if let Some(idempotent) = &idempotent
                        && let Some(kept) = self.kept_answer(match_id, idempotent).await?
                    {
                        return Ok(kept);
                    }
                    // Written meanwhile, between the load and the append (the load itself was
                    // current for the move): it may change nothing the move was chosen from
                    // (a reminder, talk), and then the move is decided again on the newer match.
                    if attempts < MOVE_ATTEMPTS && current > seen.current.version {
                        continue;
                    }
                    return Err(MatchError::VersionConflict { expected, current });
                }
                outcome => return outcome,
            }
        }
    }

    /// Resigns the caller's seat at whatever version the match is (leaving a match being
    /// played is resigning); a race with another move is retried.
    pub async fn resign(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<MatchView, MatchError> {
        retrying_races(|| async {
            let (current, seat) = self.seated(match_id, player).await?;
            let events = current.state.decide(seat, Action::Resign)?;
            self.write_for(match_id, &current, events, seat).await
        })
        .await
    }

    /// Writes game events decided for `seat` (or for the server on its behalf) and answers that
    /// seat's view after them.
    pub(super) async fn write_for(
        &self,
        match_id: &str,
        current: &MatchState,
        events: Vec<Event>,
        seat: Seat,
    ) -> Result<MatchView, MatchError> {
        let written = self
            .write(match_id, current, Entry::games(events), |_| None)
            .await?;
        Ok(MatchView::now(
            match_id,
            &written,
            Some(seat),
            self.clock.now(),
        ))
    }

    async fn decide_and_append(
        &self,
        match_id: &str,
        seat: Seat,
        request: MoveRequest,
        current: &MatchState,
        idempotent: Option<&Idempotent>,
    ) -> Result<MoveAnswer, MatchError> {
        if current.state.status() != Status::Playing {
            return Err(RuleError::HandOver.into());
        }
        if !current.current_for(request.expected_version) {
            return Err(MatchError::VersionConflict {
                expected: request.expected_version,
                current: current.version,
            });
        }
        let events = current.state.decide(seat, request.action)?;
        let mut body = String::new();
        let now = self.clock.now();
        self.write(match_id, current, Entry::games(events), |next| {
            let view = MatchView::now(match_id, next, Some(seat), now);
            body = serde_json::to_string(&view).expect("views serialise");
            idempotent.map(|idempotent| idempotent.keep(200, &body))
        })
        .await?;
        Ok(MoveAnswer {
            status: 200,
            body,
            replayed: false,
        })
    }
}
