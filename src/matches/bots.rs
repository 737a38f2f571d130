//! Bots at the table (issue 9): seats held by bots, their turns, and hints.
//!
//! A bot's seat is held by a bot account (see the migration `0008_bots`), so a bot moves
//! through the same checked append as a person: version check, events, feed, notifications.
//! Whenever a write gives a bot the turn, the match's row says so (`bot_turn_since`); every
//! server process looks for such matches, claims them with a lease (`FOR UPDATE SKIP LOCKED`
//! on PostgreSQL) and plays the bot's actions until the turn leaves it. The append's version
//! check makes each action count once even should two processes ever play the same turn; the
//! lease keeps them from trying. A process that gives a bot the turn wakes its own player at
//! once, so a bot answers within moments; the others look every [`LOOK_EVERY`].
//!
//! At a table with `on_timeout: bot`, a late seat's turn is played the same way by the `basic`
//! bot, after a `bot_stood_in` event that says so (`stand_in`, called by the clock
//! worker, [`super::clock_worker`]).
//!
//! A bot decides from its seat's [`crate::rules::Knowledge`] only (see [`crate::bots`]), on a
//! blocking thread: an `expert` search takes milliseconds of CPU that must not hold up the
//! requests served beside it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use utoipa::ToSchema;

use super::access::{Player, Role};
use super::bot_counts::BotStatistics;
use super::hints::Hint;
use super::ledger::MatchState;
use super::log::{Entry, Note};
use super::match_clock::MatchClock;
use super::rated::Unrateable;
use super::refusals::{HintError, SeatingError, TableError};
use super::{MatchError, MatchSummary, Matches};
use crate::background::{self, Schedule};
use crate::bots::{self, Level};
use crate::instruments::{self, Mover};
use crate::model::{MatchStatus, Named};
use crate::rules::{RuleError, Seat};
use crate::store::work::Work;
use crate::store::{SeatRow, free_bot_account};
use crate::time_source::rfc3339;

/// How often each process looks for bot turns no write of its own woke it for.
pub const LOOK_EVERY: Duration = Duration::from_millis(500);

/// Most matches one look takes on.
const BATCH: i64 = 16;

/// Most bot actions played in one claim of a match (a turn is rarely more than a dozen; the
/// engine bounds one at 200): the rest waits for the next look.
const MOST_ACTIONS_PER_CLAIM: usize = 500;

/// A bot asked for: at creation in `bots`, or by a seated player for a free seat.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"level": "expert"}))]
pub struct BotRequest {
    /// `random`, `basic` or `expert`.
    pub level: Level,
}

impl BotRequest {
    /// The seat row of this bot in `seat`, beside the `taken` seats.
    pub(super) fn seat(&self, seat: Seat, taken: &[SeatRow]) -> SeatRow {
        SeatRow {
            seat,
            account_id: free_bot_account(taken),
            username: BOT_USERNAME.to_owned(),
            client_seed: String::new(),
            bot: Some(self.level),
        }
    }
}

/// How a bot's seat is named (the bot accounts' username; nobody can register it).
pub const BOT_USERNAME: &str = "[bot]";

impl Matches {
    /// What this process's bots have done so far.
    pub fn bot_statistics(&self) -> BotStatistics {
        self.bot_counts.statistics()
    }

    /// Seats a bot in the lowest free seat of an open match, for a player seated in it; the
    /// last seat taken deals the first hand, in the same transaction.
    pub async fn add_bot(
        &self,
        match_id: &str,
        player: Player<'_>,
        request: BotRequest,
    ) -> Result<MatchSummary, MatchError> {
        let (mut change, seat_of) = self.lock_seats(match_id, player).await?;
        Role::at(&change.row, player.viewer(), seat_of).acts()?;
        if change.row.status != MatchStatus::Open {
            return Err(MatchError::Seating(SeatingError::MatchStarted));
        }
        if change.row.rating_pool.is_some() {
            return Err(MatchError::Table(TableError::NotRateable(Unrateable::Bots)));
        }
        let taken = change.seats.len();
        if taken >= usize::from(change.row.seat_count) {
            return Err(MatchError::Seating(SeatingError::MatchFull));
        }
        // A rematch keeps every seat for a player of the match before it (its bots sat down
        // with the offer): no seat is free for another bot.
        if !change.plan().await?.is_empty() {
            return Err(MatchError::Seating(SeatingError::SeatsKept));
        }
        let bot = request.seat(taken as Seat, &change.seats);
        change
            .take_seat(bot.seat, &bot.account_id, "", bot.bot, self.clock.now())
            .await?;
        self.seat_taken(change).await?;
        self.summary(match_id, player.viewer()).await
    }

    /// The `expert` bot's suggestion for the caller's seat, from what that seat may know: the
    /// one given before for the same position, or a new one within the caller's pace (see
    /// [`super::hints`]).
    pub async fn hint(&self, match_id: &str, player: Player<'_>) -> Result<Hint, MatchError> {
        let (current, seat) = self.ledger.seated(match_id, player).await?;
        let current = self.when_the_clock_has_acted(match_id, current).await?;
        if !current.table.hints {
            return Err(MatchError::Hint(HintError::HintsOff));
        }
        match current.state.turn() {
            Some(turn) if turn == seat => {}
            Some(turn) => return Err(RuleError::NotYourTurn { seat, turn }.into()),
            None => return Err(RuleError::HandOver.into()),
        }
        if let Some(hint) = self.hints.remembered(match_id, current.version, seat) {
            return Ok(hint);
        }
        self.hints.pace(player).map_err(|retry_after| {
            MatchError::Hint(HintError::TooManyHints {
                retry_after,
                per_minute: super::hints::PER_MINUTE,
            })
        })?;
        let thinking = self.hints.permit().await;
        let action = think(Level::Expert, &current, seat, match_id).await?;
        drop(thinking);
        let hint = Hint {
            action: action.action,
            reason: action.reason,
            version: current.version,
        };
        self.hints.remember(match_id, seat, &hint);
        Ok(hint)
    }

    /// One look for bot turns: every match where a bot is to move, claimed for this process,
    /// is played until the turn leaves its bots. Returns how many matches were taken on.
    pub async fn play_bots(&self) -> Result<usize, MatchError> {
        self.on_claimed(Work::BotTurn, BATCH, |match_id| async move {
            self.play_bot_turns(&match_id).await
        })
        .await
    }

    /// Plays the bots of one match while one of them has the turn.
    async fn play_bot_turns(&self, match_id: &str) -> Result<(), MatchError> {
        let read = self.ledger.read_row_unchecked(match_id).await?;
        if read.row.status != MatchStatus::Playing {
            return Ok(());
        }
        let mut current = self.ledger.load(&read).await?;
        current = self.settle_the_clock(match_id, current).await?;
        for _ in 0..MOST_ACTIONS_PER_CLAIM {
            let Some(seat) = current.state.turn() else {
                return Ok(());
            };
            let Some(level) = current.table.bot_at(seat) else {
                return Ok(());
            };
            current = self.play_one(match_id, &current, seat, level).await?;
        }
        Ok(())
    }

    /// Plays the late `seat`'s turn with the `basic` bot (`on_timeout: bot`): first the note
    /// that a bot stands in (unless written already), then its actions until that turn ends.
    /// Answers the match after them.
    pub(super) async fn stand_in(
        &self,
        match_id: &str,
        mut current: Arc<MatchState>,
        seat: Seat,
        deadline: i64,
    ) -> Result<Arc<MatchState>, MatchError> {
        let stood_in = |state: &MatchState| state.clock.as_ref().is_some_and(MatchClock::stood_in);
        if !stood_in(&current) {
            tracing::info!(match_id, seat, "a bot plays a late turn");
            let deadline = rfc3339(deadline);
            let stood_in = Note::BotStoodIn { seat, deadline }.checked(&current.state)?;
            current = self
                .ledger
                .write_or_reload(match_id, &current, vec![stood_in])
                .await?;
        }
        // The same turn: the seat to move and the deadline it missed.
        let same_turn = |state: &MatchState| {
            stood_in(state)
                && state.clock.as_ref().and_then(MatchClock::deadline) == Some((seat, deadline))
        };
        for _ in 0..MOST_ACTIONS_PER_CLAIM {
            if !same_turn(&current) {
                break;
            }
            current = self
                .play_one(match_id, &current, seat, Level::Basic)
                .await?;
        }
        Ok(current)
    }

    /// One action of `level` for `seat`, written; on a lost race, the match as it now is.
    async fn play_one(
        &self,
        match_id: &str,
        current: &MatchState,
        seat: Seat,
        level: Level,
    ) -> Result<Arc<MatchState>, MatchError> {
        let decision = think(level, current, seat, match_id).await?;
        let events = current.state.decide(seat, decision.action)?;
        match self
            .ledger
            .write(match_id, current, Entry::games(events), |_| None)
            .await
        {
            Ok(written) => {
                self.bot_counts.acted();
                instruments::move_accepted(Mover::Bot);
                Ok(written)
            }
            Err(MatchError::VersionConflict { .. }) => {
                self.bot_counts.lost_a_race();
                self.ledger.reload(match_id).await
            }
            Err(other) => Err(other),
        }
    }

    /// Runs [`Matches::play_bots`] whenever a write of this process gives a bot the turn, and
    /// every [`LOOK_EVERY`] besides, for as long as the server runs.
    pub fn keep_bots_playing(self: Arc<Self>) {
        let schedule = Schedule {
            name: "bot turns",
            every: LOOK_EVERY,
            wake: Some(self.bot_turns.clone()),
            batch: Some(BATCH as usize),
        };
        background::keep_running(schedule, move || {
            let matches = self.clone();
            async move { matches.play_bots().await }
        });
    }
}

/// `level`'s decision for `seat`, from that seat's knowledge alone, on a blocking thread. The
/// seed is the match and its version: the same position gets the same decision.
async fn think(
    level: Level,
    current: &MatchState,
    seat: Seat,
    match_id: &str,
) -> Result<bots::Decision, MatchError> {
    let knowledge = current.state.knowledge(seat);
    let seed = seed_of(match_id, current.version);
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let decision = bots::decide(level, &knowledge, seed);
        instruments::bot_decided(level.name(), started.elapsed());
        decision
    })
    .await
    .map_err(|error| MatchError::Corrupt(format!("a bot's thread failed: {error}")))?
    .ok_or_else(|| MatchError::Corrupt("a bot was asked to move off its turn".into()))
}

/// A seed from a match id and version (FNV-1a: stable across builds and platforms).
fn seed_of(match_id: &str, version: i64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in match_id.bytes().chain(version.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
