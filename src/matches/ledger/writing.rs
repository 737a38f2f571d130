//! The ledger's one write: decided entries, the forced turns that follow them, the read model
//! after them, the notices they cause and the kept answer of an idempotent request, appended in
//! one transaction, and only if the match is still at the version they were decided at. The
//! end of a rated match writes its players' ratings with it.

use std::sync::Arc;

use super::{Ledger, MatchState, notices, rated_end, snapshots};
use crate::live::Checkpoint;
use crate::matches::MatchError;
use crate::matches::log::{self, Entry};
use crate::matches::match_clock::MatchClock;
use crate::model::{MatchStatus, Outcome};
use crate::rules::{Action, Event, OutReason, Seat, Status};
use crate::store::append::{Append, KeptResponse, ReadModel};
use crate::store::ratings::RatingUpdate;

/// Most forced `end_turn`s taken automatically after one move (a safety bound).
const MAX_AUTOMATIC_TURNS: usize = 10_000;

/// How often the end of a rated match is rated again when a player's rating moved before its
/// write (each time, another match of theirs ended first): then it is refused as a conflict.
const RATING_ATTEMPTS: u32 = 8;

impl Ledger {
    /// Appends decided entries (and the forced turns that follow them) to a match at the
    /// version of `current`, written now; `keep` may give the answer to keep with them (it sees
    /// the match after them). [`MatchError::VersionConflict`] when another writer got there
    /// first: then nothing was written. The end of a rated match writes its ratings with it.
    pub async fn write(
        &self,
        match_id: &str,
        current: &MatchState,
        events: Vec<Entry>,
        keep: impl FnOnce(&MatchState) -> Option<KeptResponse>,
    ) -> Result<Arc<MatchState>, MatchError> {
        let now = self.clock.now();
        let (played, entries) = play_forward(current, events, now)?;
        if rated_end::ends_rated(current, &played) {
            return self
                .write_rated(match_id, current, played, &entries, keep, now)
                .await;
        }
        let (next, mut append) = record(match_id, current, played, &entries, now, None);
        append.kept = keep(&next);
        self.commit(match_id, current, next, append).await
    }

    /// [`Ledger::write`] of a note that ends no match (a nudge), without the notices it would
    /// send to `unheard`, whose account blocks the note's sender (matches/blocks.rs).
    pub async fn write_unheard_by(
        &self,
        match_id: &str,
        current: &MatchState,
        events: Vec<Entry>,
        unheard: Seat,
    ) -> Result<Arc<MatchState>, MatchError> {
        let now = self.clock.now();
        let (played, entries) = play_forward(current, events, now)?;
        if rated_end::ends_rated(current, &played) {
            return Err(MatchError::Corrupt(
                "a note unheard by a seat may not end a rated match".into(),
            ));
        }
        let (next, mut append) = record(match_id, current, played, &entries, now, None);
        if let Some(account) = next.table.account_at(unheard) {
            append
                .notifications
                .retain(|notification| notification.account_id != account);
        }
        self.commit(match_id, current, next, append).await
    }

    /// The end of a rated match: rated from its players' ratings now, and rated again should
    /// one of them change before the write (another of their rated matches ended meanwhile).
    async fn write_rated(
        &self,
        match_id: &str,
        current: &MatchState,
        played: MatchState,
        entries: &[Entry],
        keep: impl FnOnce(&MatchState) -> Option<KeptResponse>,
        now: i64,
    ) -> Result<Arc<MatchState>, MatchError> {
        let mut keep = Some(keep);
        let mut kept = None;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let ratings = self.rating_update(current, &played).await?;
            let (next, mut append) =
                record(match_id, current, played.clone(), entries, now, ratings);
            // The answer to keep is the same whatever the ratings: made once.
            if let Some(keep) = keep.take() {
                kept = keep(&next);
            }
            append.kept.clone_from(&kept);
            match self.commit(match_id, current, next, append).await {
                // The match is where it was: a player's rating moved.
                Err(MatchError::VersionConflict { current: newer, .. })
                    if newer == current.version && attempts < RATING_ATTEMPTS =>
                {
                    continue;
                }
                outcome => return outcome,
            }
        }
    }

    /// Writes an append decided from `current`, which gives `next`.
    async fn commit(
        &self,
        match_id: &str,
        current: &MatchState,
        next: MatchState,
        append: Append,
    ) -> Result<Arc<MatchState>, MatchError> {
        // Taken before the write: if the listener reconnects meanwhile, the state is rechecked.
        let verified = self.notifier.checkpoint();
        let tells = !append.notifications.is_empty();
        let bot_turn = append.model.bot_turn;
        if !self.db.append_events(append).await? {
            let newer = self
                .db
                .match_version(match_id)
                .await?
                .unwrap_or(current.version);
            // Should the announcement of that newer version have been lost, the cache now
            // knows better than to serve the older one.
            self.notifier.learned(match_id, newer);
            return Err(MatchError::VersionConflict {
                expected: current.version,
                current: newer,
            });
        }
        if tells {
            self.relay.wake();
        }
        if bot_turn {
            self.bot_turns.wake();
        }
        if snapshots::passes_a_snapshot(current.version, next.version) {
            self.keep_snapshot(match_id, &next).await;
        }
        Ok(self.remember(match_id, next, verified))
    }

    /// Caches a match just written and tells every waiting reader (here and, on PostgreSQL, in
    /// the other processes). `verified` must precede the write.
    pub fn remember(
        &self,
        match_id: &str,
        written: MatchState,
        verified: Checkpoint,
    ) -> Arc<MatchState> {
        let version = written.version;
        let written = Arc::new(written);
        self.cache.put(match_id, written.clone(), verified);
        self.notifier.announce(match_id, version);
        written
    }

    /// Writes entries the server decided (a forfeit, a reminder, a stand-in's note); on a lost
    /// race, the newer match from the database, where they may no longer be due.
    pub async fn write_or_reload(
        &self,
        match_id: &str,
        current: &MatchState,
        events: Vec<Entry>,
    ) -> Result<Arc<MatchState>, MatchError> {
        match self.write(match_id, current, events, |_| None).await {
            Err(MatchError::VersionConflict { .. }) => self.reload(match_id).await,
            outcome => outcome,
        }
    }
}

/// How a match that just ended ended: aborted; or, when its last events are a seat leaving
/// and the match ending, by that seat's reason; or by its `game_end`.
fn outcome(status: Status, events: &[Entry]) -> Outcome {
    if status == Status::Aborted {
        return Outcome::Aborted;
    }
    match events {
        [
            ..,
            Entry::Game(Event::SeatOut { reason, .. }),
            Entry::Game(Event::GameEnded { .. }),
        ] => match reason {
            OutReason::Resign => Outcome::Resigned,
            OutReason::Timeout => Outcome::Timeout,
        },
        _ => Outcome::Finished,
    }
}

/// Decided entries applied, plus the forced `end_turn`s that follow them when the table takes
/// those automatically: the match after them, and the append that records them.
pub fn advance(
    match_id: &str,
    current: &MatchState,
    events: Vec<Entry>,
    now: i64,
) -> Result<(MatchState, Append), MatchError> {
    let (played, entries) = play_forward(current, events, now)?;
    Ok(record(match_id, current, played, &entries, now, None))
}

/// Decided entries applied to `current`, plus the forced `end_turn`s that follow them when
/// the table takes those automatically: the match after them (its log not yet chained), and
/// every entry.
fn play_forward(
    current: &MatchState,
    mut events: Vec<Entry>,
    now: i64,
) -> Result<(MatchState, Vec<Entry>), MatchError> {
    let mut next = current.clone();
    for event in &events {
        next.observe(event, now);
    }
    if next.table.auto_end_turn {
        for _ in 0..MAX_AUTOMATIC_TURNS {
            let Some(seat) = next.state.turn() else {
                break;
            };
            if next.state.legal_actions(seat) != [Action::EndTurn] {
                break;
            }
            let forced = next.state.decide(seat, Action::EndTurn)?;
            for event in forced {
                let entry = Entry::Game(event);
                next.observe(&entry, now);
                events.push(entry);
            }
        }
    }
    Ok((next, events))
}

/// The append that records `events`, which took `current` to `next`, written at `now` with
/// the ratings a rated match's end gives: `next` with its log chained, and the append.
fn record(
    match_id: &str,
    current: &MatchState,
    mut next: MatchState,
    events: &[Entry],
    now: i64,
    ratings: Option<RatingUpdate>,
) -> (MatchState, Append) {
    let turn_before = current.state.turn();
    let stored = log::encode(
        next.log_format,
        current.version,
        &mut next.last_hash,
        events,
        now,
    );
    next.version = current.version + stored.len() as i64;
    if let Some(last) = events.iter().rposition(Entry::changes_table) {
        next.table_version = current.version + last as i64 + 1;
    }
    let state = &next.state;
    let over = matches!(state.status(), Status::Finished | Status::Aborted);
    let turn_began = state.turn() != turn_before
        || events
            .iter()
            .any(|event| matches!(event, Entry::Game(Event::TurnStarted { .. })));
    let outcome = over.then(|| outcome(state.status(), events));
    let model = ReadModel {
        status: match state.status() {
            Status::NotStarted => MatchStatus::Open,
            Status::Playing => MatchStatus::Playing,
            Status::Finished => MatchStatus::Finished,
            Status::Aborted => MatchStatus::Aborted,
        },
        turn_seat: state.turn(),
        turn_changed: turn_began,
        bot_turn: state
            .turn()
            .is_some_and(|seat| next.table.bot_at(seat).is_some()),
        winners: state.winners().map(<[Seat]>::to_vec),
        deadline: next
            .clock
            .as_ref()
            .and_then(MatchClock::deadline)
            .map(|(_, deadline)| deadline),
        remind_at: next.clock.as_ref().and_then(MatchClock::reminder_at),
        outcome,
        final_totals: over.then(|| state.totals().to_vec()),
    };
    let notifications = notices::of_change(
        match_id,
        current,
        &next,
        events,
        turn_began,
        outcome,
        ratings.as_ref(),
        now,
    );
    let append = Append {
        match_id: match_id.to_owned(),
        expected_version: current.version,
        events: stored,
        notifications,
        model,
        kept: None,
        ratings,
        now,
    };
    (next, append)
}
