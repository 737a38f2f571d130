//! A match's current state as one account may see it, and the step from decided events to the
//! writes that record them.
//!
//! The state cache answers when the notifier knows it holds the newest version; otherwise the
//! database is asked for the row, and the cached state is brought to the row's version from the
//! log. The moment a read from the database began (its checkpoint) travels with the row it read
//! ([`ReadRow`]), so a state is only ever confirmed as of a read that preceded it.

use std::sync::Arc;

use super::access::{Player, Role, Table, Viewer};
use super::cache::MatchState;
use super::clock::MatchClock;
use super::kept_views::KeptViews;
use super::log::{self, Entry, Recorded};
use super::notices;
use super::rated;
use super::snapshot;
use super::{MatchError, Matches};
use crate::instruments::{self, CacheLookup};
use crate::live::Checkpoint;
use crate::model::{MatchStatus, Outcome};
use crate::rules::{Action, Event, GameState, OutReason, Seat, Setup, Status};
use crate::store::append::{Append, KeptResponse, ReadModel};
use crate::store::ratings::RatingUpdate;
use crate::store::{MatchRow, SeatRow};

/// Most forced `end_turn`s taken automatically after one move (a safety bound).
const MAX_AUTOMATIC_TURNS: usize = 10_000;

/// How often the end of a rated match is rated again when a player's rating moved before its
/// write (each time, another match of theirs ended first): then it is refused as a conflict.
const RATING_ATTEMPTS: u32 = 8;

/// A match row read from the database, with the moment the read began.
pub(super) struct ReadRow {
    pub row: MatchRow,
    checkpoint: Checkpoint,
}

/// Why the caller wants a match's state: to watch it, or to act in it from their seat on the
/// version they saw.
#[derive(Clone, Copy)]
pub(super) enum Intent {
    Watch,
    Act { expected_version: i64 },
}

/// A started match at its newest version, and the caller's role at it (never an outsider).
pub(super) struct Seen {
    pub current: Arc<MatchState>,
    pub role: Role,
}

/// How long a write that fits any version (a resignation, table talk) retries lost races
/// before it gives up with `version_conflict`. A bot's turn is a run of quick writes, one per
/// action, each of which can win against it: a count of tries could run out within one turn.
const RACES_RETRIED_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `attempt` (read the match, decide, write) again while it loses the race to another
/// write (`version_conflict`), for up to [`RACES_RETRIED_FOR`]: for a write that fits any
/// version of the match (a resignation, talk, a nudge).
pub(super) async fn retrying_races<T, Attempt>(
    mut attempt: impl FnMut() -> Attempt,
) -> Result<T, MatchError>
where
    Attempt: Future<Output = Result<T, MatchError>>,
{
    let give_up = std::time::Instant::now() + RACES_RETRIED_FOR;
    loop {
        match attempt().await {
            Err(MatchError::VersionConflict { .. }) if std::time::Instant::now() < give_up => {}
            outcome => return outcome,
        }
    }
}

impl Matches {
    /// The match's row and the caller's role at it, if the caller may see it (an outsider gets
    /// `not_found`); one round trip.
    pub(super) async fn read_row(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
    ) -> Result<(ReadRow, Role), MatchError> {
        let checkpoint = self.notifier.checkpoint();
        let (row, seat_of) = self
            .db
            .match_and_seat(match_id, viewer.account())
            .await?
            .ok_or(MatchError::NotFound)?;
        let role = Role::at(&row, viewer, seat_of);
        role.sees()?;
        Ok((ReadRow { row, checkpoint }, role))
    }

    /// The row and its seats, if the caller may see the match, and the caller's role.
    pub(super) async fn read_row_and_seats(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
    ) -> Result<(ReadRow, Vec<SeatRow>, Role), MatchError> {
        let (read, role) = self.read_row(match_id, viewer).await?;
        let seats = self.db.seats(match_id).await?;
        Ok((read, seats, role))
    }

    /// The started match at its newest version as the caller sees it. To act, the caller needs
    /// a seat, and the cache answers only at the version the caller saw (otherwise the
    /// database has the last word).
    pub(super) async fn current(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
        intent: Intent,
    ) -> Result<Seen, MatchError> {
        if let Some((current, verified)) = self.cache.get(match_id)
            && match intent {
                Intent::Watch => true,
                Intent::Act { expected_version } => current.current_for(expected_version),
            }
            && self
                .notifier
                .is_current(match_id, current.version, verified)
        {
            instruments::cache_lookup(CacheLookup::Hit);
            let role = current.table.role(viewer);
            role.sees()?;
            if let Intent::Act { .. } = intent {
                role.acts()?;
            }
            let current = self.on_time(match_id, current).await?;
            return Ok(Seen { current, role });
        }
        let (read, role) = self.read_row(match_id, viewer).await?;
        if let Intent::Act { .. } = intent {
            role.acts()?;
        }
        if read.row.status == MatchStatus::Open {
            return Err(MatchError::NotStarted);
        }
        let current = self.load(&read).await?;
        let current = self.on_time(match_id, current).await?;
        Ok(Seen { current, role })
    }

    /// The started match at its newest version and the seat the player acts from: for what a
    /// player does whatever version the match is at (resign, claim, talk, ask for a hint).
    pub(super) async fn seated(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<(Arc<MatchState>, Seat), MatchError> {
        let seen = self
            .current(match_id, player.viewer(), Intent::Watch)
            .await?;
        let seat = seen.role.acts()?;
        Ok((seen.current, seat))
    }

    /// A match's row read by the server itself, for no caller (no access check).
    pub(super) async fn read_row_unchecked(&self, match_id: &str) -> Result<ReadRow, MatchError> {
        let checkpoint = self.notifier.checkpoint();
        let row = self
            .db
            .match_by_id(match_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        Ok(ReadRow { row, checkpoint })
    }

    /// The started match at (at least) the version of `read`: the cached state, brought forward
    /// from the log when it is behind, or folded afresh.
    pub(super) async fn load(&self, read: &ReadRow) -> Result<Arc<MatchState>, MatchError> {
        let row = &read.row;
        let mut next = match self.cache.get(&row.id) {
            Some((cached, _)) if cached.version >= row.version => {
                instruments::cache_lookup(CacheLookup::Confirmed);
                if cached.version == row.version {
                    self.cache.put(&row.id, cached.clone(), read.checkpoint);
                }
                return Ok(cached);
            }
            Some((cached, _)) => {
                instruments::cache_lookup(CacheLookup::Behind);
                (*cached).clone()
            }
            None => {
                instruments::cache_lookup(CacheLookup::Miss);
                self.resumed(row).await?
            }
        };
        let newer = self
            .recorded(&row.id, next.version, row.version - next.version)
            .await?;
        let folded = newer.len();
        for recorded in newer {
            next.observe(&recorded.event, recorded.at);
            next.version = recorded.seq;
            if recorded.event.changes_table() {
                next.table_version = recorded.seq;
            }
            next.last_hash = recorded.hash;
        }
        if snapshot::folded_enough(folded) {
            self.keep_snapshot(&row.id, &next).await;
        }
        let current = Arc::new(next);
        self.cache.put(&row.id, current.clone(), read.checkpoint);
        Ok(current)
    }

    /// The state after the first `at` events, folded afresh (for replays).
    pub(super) async fn state_at(&self, row: &MatchRow, at: i64) -> Result<GameState, MatchError> {
        let mut state = self.fresh(row).await?.state;
        for recorded in self.recorded(&row.id, 0, at).await? {
            if let Entry::Game(event) = &recorded.event {
                state.apply(event);
            }
        }
        Ok(state)
    }

    /// A started match before its first event.
    pub(super) async fn fresh(&self, row: &MatchRow) -> Result<MatchState, MatchError> {
        let seats = self.db.seats(&row.id).await?;
        let secret = self
            .db
            .match_secret(&row.id)
            .await?
            .ok_or_else(|| MatchError::Corrupt("no secret".into()))?;
        MatchState::before_start(row, &seats, &secret)
    }

    /// Events `after + 1 …` of the log, at most `limit`, read back.
    pub(super) async fn recorded(
        &self,
        match_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<Recorded>, MatchError> {
        self.db
            .events(match_id, after, limit)
            .await?
            .into_iter()
            .map(log::decode)
            .collect()
    }

    /// Appends decided entries (and the forced turns that follow them) to a match at the
    /// version of `current`, written now; `keep` may give the answer to keep with them (it sees
    /// the match after them). [`MatchError::VersionConflict`] when another writer got there
    /// first: then nothing was written. The end of a rated match writes its ratings with it.
    pub(super) async fn write(
        &self,
        match_id: &str,
        current: &MatchState,
        events: Vec<Entry>,
        keep: impl FnOnce(&MatchState) -> Option<KeptResponse>,
    ) -> Result<Arc<MatchState>, MatchError> {
        let now = self.clock.now();
        let (played, entries) = play_forward(current, events, now)?;
        if rated::ends_rated(current, &played) {
            return self
                .write_rated(match_id, current, played, &entries, keep, now)
                .await;
        }
        let (next, mut append) = record(match_id, current, played, &entries, now, None);
        append.kept = keep(&next);
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
        if snapshot::passes_a_snapshot(current.version, next.version) {
            self.keep_snapshot(match_id, &next).await;
        }
        Ok(self.remember(match_id, next, verified))
    }

    /// Caches a match just written and tells every waiting reader (here and, on PostgreSQL, in
    /// the other processes). `verified` must precede the write.
    pub(super) fn remember(
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
}

impl MatchState {
    /// A match with every seat taken, before its first event.
    pub(super) fn before_start(
        row: &MatchRow,
        seats: &[SeatRow],
        secret_hex: &str,
    ) -> Result<MatchState, MatchError> {
        Ok(MatchState {
            table: Arc::new(Table::new(row, seats)),
            state: new_game(row, secret_hex, seats)?,
            version: 0,
            table_version: 0,
            last_hash: String::new(),
            log_format: row.log_format,
            clock: row.clock.map(|settings| {
                MatchClock::new(settings, row.on_timeout, row.vacations, row.seat_count)
            }),
            views: KeptViews::default(),
        })
    }
}

/// A match not started yet, from its rules, hex secret and seats.
fn new_game(row: &MatchRow, secret_hex: &str, seats: &[SeatRow]) -> Result<GameState, MatchError> {
    let rules = &row.rules;
    let secret: [u8; 32] = hex::decode(secret_hex)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| MatchError::Corrupt("bad secret".into()))?;
    let mut client_seeds = vec![String::new(); usize::from(rules.players)];
    for seat in seats {
        if let Some(slot) = client_seeds.get_mut(usize::from(seat.seat)) {
            slot.clone_from(&seat.client_seed);
        }
    }
    GameState::new(Setup {
        rules: rules.clone(),
        secret,
        client_seeds,
        first_dealer: row.first_dealer,
    })
    .map_err(|error| MatchError::Corrupt(error.to_string()))
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
pub(super) fn advance(
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
