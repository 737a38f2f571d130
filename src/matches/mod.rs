//! The match service: load → fold → decide → append, each accepted move written atomically
//! (its events, read model and kept response together; on PostgreSQL possibly in the same
//! statement as other matches' moves, see [`crate::store::batch`]).
//!
//! A match's state is its event log folded with the engine's `apply` (the log was checked by
//! `decide` when written). Recent states live in a bounded [`cache::StateCache`]; the database's
//! version check decides every race, so several server processes on one PostgreSQL stay correct.

pub mod cache;
pub mod export;
pub mod log;
pub mod notify;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::rules::{Action, Event, GameState, RuleError, Rules, Seat, Setup, Status};
use crate::store::matches::{Append, Listing, MatchRow, ReadModel, SeatRow, StoredEvent};
use crate::store::{self, Db, StoreError};
use cache::{CachedState, StateCache};
use notify::{Checkpoint, Notifier};

/// Most forced `end_turn`s taken automatically after one move (a safety bound).
const MAX_AUTOMATIC_TURNS: usize = 10_000;

/// Why a match operation was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// No such match, or a private match the caller is not in.
    #[error("There is no such match.")]
    NotFound,
    /// The caller may not do this here.
    #[error("{detail}")]
    Forbidden {
        /// Stable code.
        code: &'static str,
        /// Words.
        detail: String,
    },
    /// The match is not in a state that allows this.
    #[error("{detail}")]
    Conflict {
        /// Stable code.
        code: &'static str,
        /// Words.
        detail: String,
    },
    /// `expected_version` is stale.
    #[error("The match is at version {current}, not {expected}: fetch the view and try again.")]
    VersionConflict {
        /// What the client expected.
        expected: i64,
        /// The current version.
        current: i64,
    },
    /// The rules engine refused the action.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// Invalid input.
    #[error("{detail}")]
    Invalid {
        /// Stable code.
        code: &'static str,
        /// The field at fault.
        field: String,
        /// Words.
        detail: String,
    },
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored match cannot be read back: a bug or a corrupt database.
    #[error("the stored match is corrupt: {0}")]
    Corrupt(String),
}

/// Events ready to append: the state after them, their stored form and the read model.
struct Prepared {
    cached: CachedState,
    stored: Vec<StoredEvent>,
    model: ReadModel,
}

/// The `matches.status` of a state.
fn status_name(status: Status) -> &'static str {
    match status {
        Status::NotStarted => "open",
        Status::Playing => "playing",
        Status::Finished => "finished",
    }
}

/// Applies events plus the forced `end_turn`s that follow (when the match takes them
/// automatically), and chains their hashes.
fn prepare(
    row: &MatchRow,
    mut cached: CachedState,
    mut events: Vec<Event>,
) -> Result<Prepared, MatchError> {
    let turn_before = cached.state.turn();
    for event in &events {
        cached.state.apply(event);
    }
    if row.auto_end_turn {
        for _ in 0..MAX_AUTOMATIC_TURNS {
            let Some(seat) = cached.state.turn() else {
                break;
            };
            if cached.state.legal_actions(seat) != [Action::EndTurn] {
                break;
            }
            let forced = cached.state.decide(seat, Action::EndTurn)?;
            for event in &forced {
                cached.state.apply(event);
            }
            events.extend(forced);
        }
    }
    let mut stored = Vec::with_capacity(events.len());
    for (offset, event) in events.iter().enumerate() {
        let canonical = log::canonical(event);
        let hash = log::chain(&cached.last_hash, &canonical);
        cached.last_hash.clone_from(&hash);
        stored.push(StoredEvent {
            seq: row.version + 1 + offset as i64,
            event: canonical,
            hash,
        });
    }
    cached.version = row.version + stored.len() as i64;
    let state = &cached.state;
    let turn_started = events
        .iter()
        .any(|event| matches!(event, Event::TurnStarted { .. }));
    let model = ReadModel {
        status: status_name(state.status()),
        turn_seat: state.turn().map(i64::from),
        turn_changed: turn_started || state.turn() != turn_before,
        winners: state
            .winners()
            .map(|winners| serde_json::to_string(winners).expect("winners serialise")),
    };
    Ok(Prepared {
        cached,
        stored,
        model,
    })
}

/// The match service.
#[derive(Debug)]
pub struct Matches {
    db: Db,
    cache: StateCache,
    notifier: Notifier,
    access: Mutex<HashMap<String, Arc<Access>>>,
    access_capacity: usize,
}

/// Who may see a started match.
#[derive(Debug)]
struct Access {
    public: bool,
    /// Account id → seat.
    seats: HashMap<String, Seat>,
    /// The match's row when it started (its fixed fields; version and status come from the cache).
    row: MatchRow,
}

/// A new match.
pub struct NewMatch {
    /// Validated rules (`players` is the number of seats).
    pub rules: Rules,
    /// `public` or `private`.
    pub private: bool,
    /// The creator's client seed.
    pub client_seed: String,
    /// Whether forced `end_turn`s are taken automatically.
    pub auto_end_turn: bool,
}

impl Matches {
    /// The service over a database, caching at most `cache_capacity` match states.
    pub fn new(db: Db, cache_capacity: usize, notifier: Notifier) -> Matches {
        Matches {
            db,
            cache: StateCache::new(cache_capacity),
            notifier,
            access: Mutex::new(HashMap::new()),
            access_capacity: cache_capacity.max(1),
        }
    }

    /// The database.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Creates a match with the creator in seat 0.
    pub async fn create(&self, creator: &str, new: NewMatch) -> Result<MatchRow, MatchError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|error| MatchError::Corrupt(error.to_string()))?;
        let now = store::now();
        let row = MatchRow {
            id: uuid::Uuid::new_v4().to_string(),
            created_by: creator.to_owned(),
            visibility: if new.private { "private" } else { "public" }.to_owned(),
            invite_code: new
                .private
                .then(|| crate::auth::refresh::generate()[..12].to_owned()),
            rules: serde_json::to_string(&new.rules).expect("rules serialise"),
            seats: i64::from(new.rules.players),
            auto_end_turn: new.auto_end_turn,
            status: "open".to_owned(),
            version: 0,
            commitment: crate::rules::shuffle::commitment(&secret),
            shuffle_version: i64::from(crate::rules::shuffle::SHUFFLE_VERSION),
            turn_seat: None,
            turn_since: None,
            winners: None,
            created_at: now,
            updated_at: now,
        };
        self.db
            .insert_match(&row, &hex::encode(secret), &new.client_seed)
            .await?;
        Ok(row)
    }

    /// The match and the caller's seat, if the caller may see it (a seated player, or a public
    /// match); one round trip.
    pub async fn visible_row(
        &self,
        match_id: &str,
        account_id: &str,
    ) -> Result<(MatchRow, Option<Seat>), MatchError> {
        let (row, seat) = self
            .db
            .match_and_seat(match_id, account_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        if seat.is_none() && row.visibility == "private" {
            return Err(MatchError::NotFound);
        }
        Ok((row, seat.map(|seat| seat as Seat)))
    }

    /// The match and its seats, if the caller may see it (a seated player, or a public match).
    pub async fn visible(
        &self,
        match_id: &str,
        account_id: &str,
    ) -> Result<(MatchRow, Vec<SeatRow>, Option<Seat>), MatchError> {
        let row = self
            .db
            .match_by_id(match_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        let seats = self.db.seats(match_id).await?;
        let seat = seats
            .iter()
            .find(|seat| seat.account_id == account_id)
            .map(|seat| seat.seat as Seat);
        if seat.is_none() && row.visibility == "private" {
            return Err(MatchError::NotFound);
        }
        Ok((row, seats, seat))
    }

    /// Joins an open match in the lowest free seat; starts it when every seat is taken.
    pub async fn join(
        &self,
        match_id: &str,
        account_id: &str,
        client_seed: &str,
        invite_code: Option<&str>,
    ) -> Result<(), MatchError> {
        let row = self
            .db
            .match_by_id(match_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        if row.visibility == "private" && row.invite_code.as_deref() != invite_code {
            // A private match is invisible without its code.
            return Err(MatchError::NotFound);
        }
        let seats = self.db.seats(match_id).await?;
        if seats.iter().any(|seat| seat.account_id == account_id) {
            return Err(MatchError::Conflict {
                code: "already_seated",
                detail: "You already have a seat in this match.".into(),
            });
        }
        if row.status != "open" || seats.len() as i64 >= row.seats {
            return Err(MatchError::Conflict {
                code: "match_full",
                detail: "Every seat of this match is taken.".into(),
            });
        }
        match self
            .db
            .take_seat(
                match_id,
                seats.len() as i64,
                account_id,
                client_seed,
                store::now(),
            )
            .await
        {
            Err(StoreError::Conflict(_)) => {
                return Err(MatchError::Conflict {
                    code: "seat_taken",
                    detail: "Someone took that seat at the same moment: try again.".into(),
                });
            }
            other => other?,
        }
        if seats.len() as i64 + 1 == row.seats {
            self.start(match_id).await?;
        }
        Ok(())
    }

    /// Leaves an open match.
    pub async fn leave(&self, match_id: &str, account_id: &str) -> Result<(), MatchError> {
        let (row, _, seat) = self.visible(match_id, account_id).await?;
        if seat.is_none() {
            return Err(MatchError::Forbidden {
                code: "not_seated",
                detail: "You have no seat in this match.".into(),
            });
        }
        if row.status != "open" {
            return Err(MatchError::Conflict {
                code: "match_started",
                detail: "The match has started: seats are fixed.".into(),
            });
        }
        self.db.leave_seat(match_id, account_id).await?;
        Ok(())
    }

    /// Deals the first hand of a full match.
    async fn start(&self, match_id: &str) -> Result<(), MatchError> {
        let row = self
            .db
            .match_by_id(match_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        let state = GameState::new(self.setup(&row).await?)
            .map_err(|error| MatchError::Corrupt(error.to_string()))?;
        let events = state.start()?;
        let cached = CachedState {
            state,
            version: 0,
            last_hash: String::new(),
            verified: Checkpoint::never(),
        };
        self.remember_access(&row).await?;
        let prepared = prepare(&row, cached, events)?;
        self.commit(&row, prepared, None).await
    }

    async fn setup(&self, row: &MatchRow) -> Result<Setup, MatchError> {
        let rules: Rules = serde_json::from_str(&row.rules)
            .map_err(|error| MatchError::Corrupt(error.to_string()))?;
        let secret = self
            .db
            .match_secret(&row.id)
            .await?
            .ok_or_else(|| MatchError::Corrupt("no secret".into()))?;
        let secret: [u8; 32] = hex::decode(secret)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| MatchError::Corrupt("bad secret".into()))?;
        let mut client_seeds = vec![String::new(); usize::from(rules.players)];
        for seat in self.db.seats(&row.id).await? {
            if let Some(slot) = client_seeds.get_mut(seat.seat as usize) {
                slot.clone_from(&seat.client_seed);
            }
        }
        Ok(Setup {
            rules,
            secret,
            client_seeds,
        })
    }

    /// Who may see a started match: its seats are fixed from the start.
    async fn remember_access(&self, row: &MatchRow) -> Result<(), MatchError> {
        let seats = self.db.seats(&row.id).await?;
        let access = Access {
            row: row.clone(),
            public: row.visibility == "public",
            seats: seats
                .into_iter()
                .map(|seat| (seat.account_id, seat.seat as Seat))
                .collect(),
        };
        let mut known = self
            .access
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if known.len() >= self.access_capacity {
            known.clear();
        }
        known.insert(row.id.clone(), Arc::new(access));
        Ok(())
    }

    /// Who may see a started match, as remembered when it started.
    fn known_access(&self, match_id: &str) -> Option<Arc<Access>> {
        self.access
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(match_id)
            .cloned()
    }

    /// The caller's seat in a match whose access is known, if they may see it.
    fn visible_seat(access: &Access, account_id: &str) -> Option<Option<Seat>> {
        let seat = access.seats.get(account_id).copied();
        (seat.is_some() || access.public).then_some(seat)
    }

    /// Whether a cached state holds the newest version (see [`notify`]).
    fn is_fresh(&self, match_id: &str, cached: &CachedState) -> bool {
        cached.version > 0
            && self
                .notifier
                .is_current(match_id, cached.version, cached.verified)
    }

    /// The cached state and the caller's seat, when the cache is known to hold the newest
    /// version (see [`notify`]) and the caller may see the match; `None` sends the caller to
    /// the database.
    pub fn fresh(&self, match_id: &str, account_id: &str) -> Option<(CachedState, Option<Seat>)> {
        let access = self.known_access(match_id)?;
        let seat = Matches::visible_seat(&access, account_id)?;
        let cached = self.cache.get(match_id)?;
        self.is_fresh(match_id, &cached).then_some((cached, seat))
    }

    /// As [`Matches::fresh`], with the match's row brought to the cached version: a move can be
    /// judged without reading the database first (its append still checks the version there).
    /// Reads the cached version and status only: the move itself copies the state.
    pub fn fresh_row(&self, match_id: &str, account_id: &str) -> Option<(MatchRow, Option<Seat>)> {
        let access = self.known_access(match_id)?;
        let seat = Matches::visible_seat(&access, account_id)?;
        let (version, status) = self
            .cache
            .read(match_id, |cached| {
                self.is_fresh(match_id, cached)
                    .then(|| (cached.version, status_name(cached.state.status())))
            })
            .flatten()?;
        let row = MatchRow {
            version,
            status: status.to_owned(),
            ..access.row.clone()
        };
        Some((row, seat))
    }

    /// Now, to be taken before the database is read for a state (see [`Matches::state`]).
    pub fn checkpoint(&self) -> Checkpoint {
        self.notifier.checkpoint()
    }

    /// The state of a started match at the database's version (`row`, read after `checkpoint`).
    pub async fn state(
        &self,
        row: &MatchRow,
        checkpoint: Checkpoint,
    ) -> Result<CachedState, MatchError> {
        let mut cached = match self.cache.get(&row.id) {
            Some(cached) if cached.version <= row.version => cached,
            _ => {
                let state = GameState::new(self.setup(row).await?)
                    .map_err(|error| MatchError::Corrupt(error.to_string()))?;
                if row.status != "open" {
                    self.remember_access(row).await?;
                }
                CachedState {
                    state,
                    version: 0,
                    last_hash: String::new(),
                    verified: Checkpoint::never(),
                }
            }
        };
        if cached.version == row.version
            && !self
                .notifier
                .is_current(&row.id, cached.version, cached.verified)
        {
            cached.verified = checkpoint;
            self.cache.put(&row.id, cached.clone());
        }
        if cached.version < row.version {
            for stored in self
                .db
                .events(&row.id, cached.version, row.version - cached.version)
                .await?
            {
                let event: Event = serde_json::from_str(&stored.event)
                    .map_err(|error| MatchError::Corrupt(error.to_string()))?;
                cached.state.apply(&event);
                cached.version = stored.seq;
                cached.last_hash = stored.hash;
            }
            cached.verified = checkpoint;
            self.cache.put(&row.id, cached.clone());
        }
        Ok(cached)
    }

    /// The state after the first `at` events (for replays).
    pub async fn state_at(&self, row: &MatchRow, at: i64) -> Result<GameState, MatchError> {
        let mut state = GameState::new(self.setup(row).await?)
            .map_err(|error| MatchError::Corrupt(error.to_string()))?;
        for stored in self.db.events(&row.id, 0, at).await? {
            let event: Event = serde_json::from_str(&stored.event)
                .map_err(|error| MatchError::Corrupt(error.to_string()))?;
            state.apply(&event);
        }
        Ok(state)
    }

    /// Plays `action` for `seat` if the match is at `expected_version`. `respond` renders the
    /// answer from the new state; with an idempotency key `(account, key, request hash)` that
    /// answer is stored in the same transaction as the events.
    pub async fn play(
        &self,
        row: &MatchRow,
        seat: Seat,
        expected_version: i64,
        action: Action,
        respond: impl FnOnce(&GameState, i64) -> String,
        idempotency: Option<(&str, &str, &str)>,
    ) -> Result<String, MatchError> {
        if row.status != "playing" {
            return Err(RuleError::HandOver.into());
        }
        if row.version != expected_version {
            return Err(MatchError::VersionConflict {
                expected: expected_version,
                current: row.version,
            });
        }
        let checkpoint = self.notifier.checkpoint();
        let cached = self.state(row, checkpoint).await?;
        let events = cached.state.decide(seat, action)?;
        let prepared = prepare(row, cached, events)?;
        let body = respond(&prepared.cached.state, prepared.cached.version);
        let record = idempotency
            .map(|(account, key, request_hash)| (account, key, request_hash, 200, body.as_str()));
        self.commit(row, prepared, record).await?;
        Ok(body)
    }

    async fn commit(
        &self,
        row: &MatchRow,
        prepared: Prepared,
        record: Option<(&str, &str, &str, i64, &str)>,
    ) -> Result<(), MatchError> {
        let Prepared {
            mut cached,
            stored,
            model,
        } = prepared;
        // Taken before the write: if the listener reconnects meanwhile, the state is rechecked.
        cached.verified = self.notifier.checkpoint();
        if !self
            .db
            .append_events(Append {
                match_id: row.id.clone(),
                expected_version: row.version,
                events: stored,
                model,
                idempotency: record.map(|(account, key, request_hash, status, body)| {
                    (
                        account.to_owned(),
                        key.to_owned(),
                        request_hash.to_owned(),
                        status,
                        body.to_owned(),
                    )
                }),
                now: store::now(),
            })
            .await?
        {
            let current = self
                .db
                .match_by_id(&row.id)
                .await?
                .map_or(row.version, |row| row.version);
            // Should the announcement of that newer version have been lost, the cache now
            // knows better than to serve the older one.
            self.notifier.learned(&row.id, current);
            return Err(MatchError::VersionConflict {
                expected: row.version,
                current,
            });
        }
        let version = cached.version;
        self.cache.put(&row.id, cached);
        self.notifier.announce(&row.id, version);
        Ok(())
    }

    /// Waits until the match passes `version` or `wait` runs out.
    pub async fn wait_past(&self, match_id: &str, version: i64, wait: Duration) {
        let mut announcements = self.notifier.subscribe();
        // Re-check after subscribing, so a move in between is not missed.
        if self
            .db
            .match_by_id(match_id)
            .await
            .ok()
            .flatten()
            .is_some_and(|row| row.version > version)
        {
            return;
        }
        let _ = tokio::time::timeout(wait, async {
            loop {
                match announcements.recv().await {
                    Ok((id, announced)) if id == match_id && announced > version => return,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        })
        .await;
    }

    /// Lists matches.
    pub async fn list(
        &self,
        listing: Listing,
        account_id: &str,
        cursor: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<MatchRow>, MatchError> {
        Ok(self
            .db
            .list_matches(listing, Some(account_id), cursor, limit)
            .await?)
    }
}
