//! Checked moves: a player's action decided against the match at the version they saw and
//! appended, retried safely with an idempotency key; and resigning.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::Player;
use super::idempotency::{IdempotencyKey, Idempotent, MoveAnswer};
use super::ledger::{Intent, MatchState, retrying_races};
use super::log::Entry;
use super::view::MatchView;
use super::{MatchError, Matches};
use crate::instruments::{self, Mover};
use crate::rules::{Action, RuleError, Seat, Status};

/// How often a move is decided again when something that changes nothing it was chosen from
/// (a reminder, table talk) was written between its load and its append.
const MOVE_ATTEMPTS: u32 = 3;

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
            let seen = self
                .ledger
                .current(match_id, player.viewer(), intent)
                .await?;
            let seat = seen.role.acts()?;
            let current = self.settle_the_clock(match_id, seen.current).await?;
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
                    &current,
                    idempotent.as_ref(),
                )
                .await
            {
                Err(MatchError::VersionConflict {
                    expected,
                    current: newer,
                }) => {
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
                    if attempts < MOVE_ATTEMPTS && newer > current.version {
                        continue;
                    }
                    return Err(MatchError::VersionConflict {
                        expected,
                        current: newer,
                    });
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
            let (current, seat) = self.ledger.seated(match_id, player).await?;
            let current = self.settle_the_clock(match_id, current).await?;
            let events = current.state.decide(seat, Action::Resign)?;
            self.write_for(match_id, &current, events, seat).await
        })
        .await
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
        self.ledger
            .write(match_id, current, Entry::games(events), |next| {
                let view = MatchView::now(match_id, next, Some(seat), now);
                body = serde_json::to_string(&view).expect("views serialise");
                idempotent.map(|idempotent| idempotent.keep(&body))
            })
            .await?;
        Ok(MoveAnswer {
            body,
            replayed: false,
        })
    }
}
