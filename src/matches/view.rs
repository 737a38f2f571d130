//! A match's view as one seat (or a spectator) sees it, with its version and clock: what
//! `GET /v1/matches/{id}/view` answers and a move answers after it. The view's JSON is made once
//! per state and seat and kept with the state (`ledger/kept_views.rs`); only its clock is
//! written in afresh at each answer.

use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use super::access::Viewer;
use super::ledger::kept_views::SerialisedView;
use super::ledger::{Intent, MatchState};
use super::log::Entry;
use super::match_clock::ClockView;
use super::{MatchError, Matches};
use crate::rules::{Event, GameState, Rules, Seat, View};

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
    pub fn now(match_id: &str, current: &MatchState, seat: Option<Seat>, now: i64) -> Self {
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
    pub fn of(match_id: &str, version: i64, state: &GameState, seat: Option<Seat>) -> Self {
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

impl Matches {
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
            .ledger
            .write(match_id, current, Entry::games(events), |_| None)
            .await?;
        Ok(MatchView::now(
            match_id,
            &written,
            Some(seat),
            self.clock.now(),
        ))
    }

    /// The caller's private view of a started match (a spectator's view of a public match for
    /// those without a seat).
    pub async fn view(&self, match_id: &str, viewer: Viewer<'_>) -> Result<ViewAnswer, MatchError> {
        let seen = self.ledger.current(match_id, viewer, Intent::Watch).await?;
        // A seat whose time ran out is judged by its deadline now: the clock's worker writes
        // what is due, and this read waits for it (it writes nothing itself).
        let current = self
            .when_the_clock_has_acted(match_id, seen.current)
            .await?;
        let now = self.clock.now();
        Ok(ViewAnswer {
            match_id: match_id.to_owned(),
            clock: current.clock.as_ref().map(|clock| clock.view(now)),
            seat: seen.role.seat(),
            current,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::ledger::kept_views::{KeptViews, SerialisedView};
    use crate::model::{ClockSettings, OnTimeout};
    use crate::rules::{GameState, Rules, Setup};

    fn view(seat: Option<Seat>) -> MatchView {
        let mut state = GameState::new(Setup {
            rules: Rules::default(),
            secret: [7; 32],
            client_seeds: vec![String::new(); 4],
            first_dealer: None,
        })
        .unwrap();
        for event in state.start().unwrap() {
            state.apply(&event);
        }
        MatchView::of("0e6f3a52-5d1c-4a43-9b0e-2f1d7a9c4b11", 3, &state, seat)
    }

    #[test]
    fn the_clock_goes_where_serde_puts_it() {
        let clock = ClockView::new(
            ClockSettings {
                turn_seconds: 86_400,
                bank_seconds: 172_800,
            },
            OnTimeout::Claim,
            true,
            Some(1_800_000_000),
            1_799_990_000,
        );
        for seat in [Some(0), Some(1), None] {
            let serialised = SerialisedView::of(&view(seat));
            let whole = MatchView {
                clock: Some(clock.clone()),
                ..view(seat)
            };
            assert_eq!(
                serialised.with_clock(Some(&clock)),
                serde_json::to_string(&whole).unwrap()
            );
            assert_eq!(
                serialised.with_clock(None::<&ClockView>),
                serde_json::to_string(&view(seat)).unwrap()
            );
        }
    }

    #[test]
    fn a_view_is_kept_from_its_second_asking_and_not_in_a_copy() {
        let views = KeptViews::default();
        let mut made = 0;
        for _ in 0..3 {
            views.get_or_make(Some(1), || {
                made += 1;
                SerialisedView::of(&view(Some(1)))
            });
        }
        assert_eq!(made, 2, "made at the first and second asking, then kept");
        assert_eq!(views.kept(), 1);
        views.get_or_make(None, || SerialisedView::of(&view(None)));
        assert_eq!(views.kept(), 1, "a spectator's view asked once is not kept");
        assert_eq!(views.clone().kept(), 0);
    }
}
