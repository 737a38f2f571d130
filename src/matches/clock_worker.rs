//! The clock's worker (issue 8): what happens when a seat to move runs out of time, written in
//! one place. (The time itself comes from [`crate::time_source`]; a match's clock, folded from its
//! log, is [`super::match_clock`].)
//!
//! - With `on_timeout: forfeit`, the server forfeits the late seat by itself: [`Matches::sweep`],
//!   which every server process runs every second or so for the matches whose deadline has
//!   passed, writes it. A write to the match (a move, a resignation, talk, a bot's turn) first
//!   takes the explicit step `Matches::settle_the_clock`, so nothing is decided against a
//!   seat whose time ran out; a read writes nothing, but a read that finds a late seat wakes
//!   the worker and waits for it (`Matches::when_the_clock_has_acted`), so a late seat is
//!   judged by its deadline on the next read, whichever process claims the work.
//! - With `on_timeout: claim`, nothing happens by itself: another seat still in may
//!   [`Matches::claim`], which forfeits the late seat.
//! - With `on_timeout: bot`, the `basic` bot plays the late seat's turn for it, written like a
//!   forfeit, by the worker or as a write's first step (see [`super::bots`]); the seat stays in.
//! - Either way, once a tenth of the turn's time is left, the sweeper writes a reminder
//!   (`deadline_near`) to the log, once.
//! - With or without a clock, another seat may [`Matches::nudge`] the seat to move, once a turn
//!   and not before a quarter of its time (an hour without a clock) has passed.
//!
//! Several processes on one PostgreSQL may find the same work due. A lease on the match's row
//! (claimed with `FOR UPDATE SKIP LOCKED`) keeps them from doing it together, and the append's
//! version check makes sure it is done once: a second forfeit of the same turn finds the match
//! moved on and writes nothing.

use std::sync::Arc;

use super::access::Player;
use super::feed::LoggedEvent;
use super::ledger::{MatchState, ReadRow, retrying_races};
use super::log::{Entry, Note};
use super::refusals::ClockError;
use super::view::MatchView;
use super::{MatchError, Matches};
use crate::background::{self, Schedule};
use crate::model::{MatchStatus, OnTimeout};
use crate::rules::{Event, RuleError, Seat, Status};
use crate::store::work::Work;
use crate::time_source::rfc3339;

/// Most matches one sweep takes on.
const SWEEP_BATCH: i64 = 64;

/// How long a read that finds a late seat waits for the clock's worker to write what is due
/// before it answers the match as it is.
const CLOCK_WAITED_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// How long the seat to move at a match without a clock has before it may be nudged, in
/// seconds.
const NUDGE_WITHOUT_CLOCK: i64 = 3600;

/// What a match's clock asks for now.
enum Due {
    /// The seat to move is past its deadline and the match forfeits by itself.
    Forfeit(Seat, i64),
    /// The seat to move is past its deadline and a bot plays its turn (or goes on playing it).
    StandIn(Seat, i64),
    /// The seat to move has a tenth of its time left and has not been reminded.
    Reminder(Seat, i64),
}

impl Matches {
    /// The explicit step a write takes before it decides: a seat past its deadline at a match
    /// that forfeits by itself is forfeited, or its turn played by a stand-in, first. Answers
    /// the match after that (or as it was, with nothing due).
    pub(super) async fn settle_the_clock(
        &self,
        match_id: &str,
        current: Arc<MatchState>,
    ) -> Result<Arc<MatchState>, MatchError> {
        match self.due(&current, false) {
            Some(Due::Forfeit(seat, deadline)) => {
                self.forfeit(match_id, &current, seat, deadline).await
            }
            Some(Due::StandIn(seat, deadline)) => {
                self.stand_in(match_id, current, seat, deadline).await
            }
            _ => Ok(current),
        }
    }

    /// For a read: the match once the clock's worker has written what its clock made due (a
    /// forfeit, a stand-in's turn), waking this process's worker and waiting for the match to
    /// move on, for at most [`CLOCK_WAITED_FOR`]; the worker of whichever process claims the
    /// match writes it. Nothing is written here. With nothing due, `current` at once.
    pub(super) async fn when_the_clock_has_acted(
        &self,
        match_id: &str,
        mut current: Arc<MatchState>,
    ) -> Result<Arc<MatchState>, MatchError> {
        let give_up = std::time::Instant::now() + CLOCK_WAITED_FOR;
        while let Some(Due::Forfeit(..) | Due::StandIn(..)) = self.due(&current, false) {
            let left = give_up.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                tracing::warn!(
                    match_id,
                    "the clock's worker has not written a due forfeit yet"
                );
                break;
            }
            self.clock_due.wake();
            let version = current.version;
            self.notifier
                .wait_past(match_id, version, left, || {
                    self.ledger.newest_version(match_id)
                })
                .await;
            current = self.ledger.reload(match_id).await?;
            if current.version == version {
                // The wait ended with nothing new (the database could not say): look again in
                // a moment rather than at once.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
        Ok(current)
    }

    /// What the clock asks for now, if anything (reminders only when `remind`).
    fn due(&self, current: &MatchState, remind: bool) -> Option<Due> {
        let clock = current.clock.as_ref()?;
        if current.state.status() != Status::Playing {
            return None;
        }
        let now = self.clock.now();
        let (seat, deadline) = clock.deadline()?;
        if now >= deadline {
            match clock.on_timeout() {
                OnTimeout::Forfeit => return Some(Due::Forfeit(seat, deadline)),
                OnTimeout::Bot => return Some(Due::StandIn(seat, deadline)),
                OnTimeout::Claim => {}
            }
        }
        clock
            .reminder_at()
            .filter(|at| remind && now >= *at)
            .map(|_| Due::Reminder(seat, deadline))
    }

    /// Writes the forfeit of `seat` for missing `deadline`. If another writer got there first
    /// (another process forfeited it, or the seat moved), the match as it now is.
    async fn forfeit(
        &self,
        match_id: &str,
        current: &MatchState,
        seat: Seat,
        deadline: i64,
    ) -> Result<Arc<MatchState>, MatchError> {
        let events = current.state.forfeit(seat, rfc3339(deadline))?;
        tracing::info!(match_id, seat, "forfeited on time");
        self.ledger
            .write_or_reload(match_id, current, Entry::games(events))
            .await
    }

    /// Forfeits the seat to move for the caller, another seat still in, once its deadline has
    /// passed at a match whose late seats are claimed (`on_timeout: claim`). Answers the
    /// caller's view after it.
    pub async fn claim(&self, match_id: &str, player: Player<'_>) -> Result<MatchView, MatchError> {
        // A lost race (the sweeper's reminder, talk, a move) is looked at again: the seat may
        // have moved meanwhile, and then it is no longer late.
        retrying_races(|| self.claim_once(match_id, player)).await
    }

    async fn claim_once(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<MatchView, MatchError> {
        let (current, seat) = self.ledger.seated(match_id, player).await?;
        if !current.state.is_active(seat) {
            return Err(crate::rules::RuleError::SeatOut(seat).into());
        }
        let not_claimable = |detail: String| MatchError::Clock(ClockError::NotClaimable { detail });
        let clock = current
            .clock
            .as_ref()
            .filter(|clock| clock.on_timeout() == OnTimeout::Claim)
            .ok_or_else(|| {
                not_claimable("This match has no clock whose late seats are claimed.".into())
            })?;
        let (late, deadline) = clock
            .deadline()
            .ok_or_else(|| not_claimable("No turn is running.".into()))?;
        if late == seat {
            return Err(not_claimable("It is your own turn.".into()));
        }
        if self.clock.now() < deadline {
            return Err(not_claimable(format!(
                "Seat {late} has until {} to move.",
                rfc3339(deadline)
            )));
        }
        let events = current.state.forfeit(late, rfc3339(deadline))?;
        self.write_for(match_id, &current, events, seat).await
    }

    /// Reminds the seat to move, for the caller, another seat still in, that the table waits
    /// for it: a `nudged` note in the log, which tells that seat (`nudged` notification). Once a
    /// turn, and not before a quarter of the turn's time (an hour without a clock) has passed.
    /// Answers the feed item the nudge became.
    pub async fn nudge(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<LoggedEvent, MatchError> {
        // A lost race (a move, another nudge) is looked at again.
        retrying_races(|| async {
            let (read, by, current) = self.on_anothers_turn(match_id, player).await?;
            if current.version != read.row.version {
                // The clock moved the match on just now: look again at the new turn.
                return Err(MatchError::VersionConflict {
                    expected: read.row.version,
                    current: current.version,
                });
            }
            let Some(seat) = current.state.turn() else {
                return Err(RuleError::HandOver.into());
            };
            let not_nudgeable =
                |detail: String| MatchError::Clock(ClockError::NotNudgeable { detail });
            if seat == by {
                return Err(not_nudgeable("It is your own turn.".into()));
            }
            if current.table.bot_at(seat).is_some() {
                return Err(not_nudgeable(format!(
                    "Seat {seat} is a bot: it moves by itself."
                )));
            }
            let since = read.row.turn_since.unwrap_or(read.row.updated_at);
            let patience = read.row.clock.map_or(NUDGE_WITHOUT_CLOCK, |clock| {
                i64::from(clock.turn_seconds) / 4
            });
            let now = self.clock.now();
            if now < since + patience {
                return Err(MatchError::Clock(ClockError::NudgeTooEarly {
                    seat,
                    retry_after: (since + patience - now) as u64,
                }));
            }
            if self.nudged_this_turn(match_id, since).await? {
                return Err(MatchError::Clock(ClockError::AlreadyNudged(seat)));
            }
            let nudge = LoggedEvent {
                seq: current.version + 1,
                event: Note::Nudged { seat, by }.checked(&current.state)?,
            };
            // A nudge from an account the seat's player blocks is written as ever, and not
            // told (matches/blocks.rs); the sender hears the same answer either way.
            let unheard = match current.table.account_at(seat) {
                Some(nudged) => self.db.blocks(nudged, player.id()).await?,
                None => false,
            };
            let event = vec![nudge.event.clone()];
            if unheard {
                self.ledger
                    .write_unheard_by(match_id, &current, event, seat)
                    .await?;
            } else {
                self.ledger
                    .write(match_id, &current, event, |_| None)
                    .await?;
            }
            Ok(nudge)
        })
        .await
    }

    /// Gives the seat to move, for the caller, another seat still in, the table's time for a
    /// turn once more: a `time_given` note in the log, which grows that seat's bank, so this
    /// turn's deadline moves by as much (what the turn does not use stays in the bank). Once a
    /// turn, before the deadline, at a table with a clock. Answers the feed item it became.
    pub async fn give_time(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<LoggedEvent, MatchError> {
        // A lost race (a move, another gift) is looked at again.
        retrying_races(|| async {
            let (_, by, current) = self.on_anothers_turn(match_id, player).await?;
            let not_givable = |detail: String| MatchError::Clock(ClockError::NotGivable { detail });
            let Some(clock) = current.clock.as_ref() else {
                return Err(not_givable(
                    "This table has no clock: a turn may take as long as it takes.".into(),
                ));
            };
            let Some((seat, deadline)) = clock.deadline() else {
                return Err(RuleError::HandOver.into());
            };
            if seat == by {
                return Err(not_givable("It is your own turn.".into()));
            }
            if current.table.bot_at(seat).is_some() {
                return Err(not_givable(format!(
                    "Seat {seat} is a bot: it needs no time."
                )));
            }
            if self.clock.now() >= deadline {
                return Err(not_givable(format!(
                    "Seat {seat}'s time has run out: it is the clock's to judge now."
                )));
            }
            if clock.time_given() {
                return Err(MatchError::Clock(ClockError::AlreadyGiven(seat)));
            }
            let seconds = clock.seconds_to_give();
            let gift = LoggedEvent {
                seq: current.version + 1,
                event: Note::TimeGiven { seat, by, seconds }.checked(&current.state)?,
            };
            self.ledger
                .write(match_id, &current, vec![gift.event.clone()], |_| None)
                .await?;
            Ok(gift)
        })
        .await
    }

    /// What a seat still in needs to act on another's turn (a nudge, a gift of time): the row
    /// it read, the caller's seat, and the match after the clock's explicit step.
    async fn on_anothers_turn(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<(ReadRow, Seat, Arc<MatchState>), MatchError> {
        let (read, role) = self.ledger.read_row(match_id, player.viewer()).await?;
        let by = role.acts()?;
        if read.row.status == MatchStatus::Open {
            return Err(MatchError::NotStarted);
        }
        let current = self.ledger.load(&read).await?;
        let current = self.settle_the_clock(match_id, current).await?;
        Ok((read, by, current))
    }

    /// Whether the turn that began at `since` (Unix seconds) was nudged already: a nudge after
    /// the log's last turn start.
    async fn nudged_this_turn(&self, match_id: &str, since: i64) -> Result<bool, MatchError> {
        let mut nudged = false;
        for recorded in self.ledger.recorded_since(match_id, since - 1).await? {
            match recorded.event {
                Entry::Game(Event::TurnStarted { .. }) => nudged = false,
                Entry::Note(Note::Nudged { .. }) => nudged = true,
                _ => {}
            }
        }
        Ok(nudged)
    }

    /// One sweep of the clocks: every match whose late seat is due a forfeit or a reminder,
    /// claimed for this process, gets it. Returns how many matches were swept.
    pub async fn sweep(&self) -> Result<usize, MatchError> {
        self.on_claimed(Work::Clock, SWEEP_BATCH, |match_id| async move {
            self.sweep_one(&match_id).await
        })
        .await
    }

    async fn sweep_one(&self, match_id: &str) -> Result<(), MatchError> {
        let read = self.ledger.read_row_unchecked(match_id).await?;
        if read.row.status != MatchStatus::Playing {
            return Ok(());
        }
        let current = self.ledger.load(&read).await?;
        match self.due(&current, true) {
            Some(Due::Forfeit(seat, deadline)) => {
                self.forfeit(match_id, &current, seat, deadline).await?;
            }
            Some(Due::StandIn(seat, deadline)) => {
                self.stand_in(match_id, current, seat, deadline).await?;
            }
            Some(Due::Reminder(seat, deadline)) => {
                let deadline = rfc3339(deadline);
                let reminder = Note::DeadlineNear { seat, deadline }.checked(&current.state)?;
                self.ledger
                    .write_or_reload(match_id, &current, vec![reminder])
                    .await?;
            }
            None => {}
        }
        Ok(())
    }

    /// Runs [`Matches::sweep`] every `interval`, and at once when a read finds a late seat, for
    /// as long as the server runs.
    pub fn keep_time(self: Arc<Self>, interval: std::time::Duration) {
        let schedule = Schedule {
            name: "clock sweep",
            every: interval,
            wake: Some(self.clock_due.clone()),
            batch: Some(SWEEP_BATCH as usize),
        };
        background::keep_running(schedule, move || {
            let matches = self.clone();
            async move { matches.sweep().await }
        });
    }
}
