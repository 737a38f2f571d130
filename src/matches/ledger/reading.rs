//! The ledger's reads: a match's row and the caller's role at it, and its state at the newest
//! version, from the state cache when the notifier knows it holds the newest version and
//! otherwise brought forward from the log (or from a snapshot, for a match this process has not
//! cached). The moment a read from the database began (its checkpoint) travels with the row it
//! read ([`ReadRow`]), so a state is only ever confirmed as of a read that preceded it.
//!
//! Nothing here writes to the log: the clock's due work is written by the clock's worker, or
//! by a write path's explicit step (`matches/clock_worker.rs`).

use std::sync::Arc;

use super::{Ledger, MatchState, snapshots};
use crate::instruments::{self, CacheLookup};
use crate::live::Checkpoint;
use crate::matches::MatchError;
use crate::matches::access::{Player, Role, Viewer};
use crate::matches::log::{self, Entry, Recorded};
use crate::model::MatchStatus;
use crate::rules::{GameState, Seat};
use crate::store::{MatchRow, SeatRow};

/// A match row read from the database, with the moment the read began.
pub struct ReadRow {
    /// The row as read.
    pub row: MatchRow,
    checkpoint: Checkpoint,
}

/// Why the caller wants a match's state: to watch it, or to act in it from their seat on the
/// version they saw.
#[derive(Clone, Copy)]
pub enum Intent {
    /// To see it: the cache answers while it holds the newest version.
    Watch,
    /// To act in it, from the view at `expected_version`: the cache answers only while a move
    /// chosen there is still current.
    Act {
        /// The version of the view the action was chosen from.
        expected_version: i64,
    },
}

/// A started match at its newest version, and the caller's role at it (never an outsider).
pub struct Seen {
    /// The match at its newest version.
    pub current: Arc<MatchState>,
    /// The caller's role at it.
    pub role: Role,
}

/// How long a write that fits any version (a resignation, table talk) retries lost races
/// before it gives up with `version_conflict`. A bot's turn is a run of quick writes, one per
/// action, each of which can win against it: a count of tries could run out within one turn.
pub const RACES_RETRIED_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `attempt` (read the match, decide, write) again while it loses the race to another
/// write (`version_conflict`), for up to [`RACES_RETRIED_FOR`]: for a write that fits any
/// version of the match (a resignation, talk, a nudge).
pub async fn retrying_races<T, Attempt>(
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

impl Ledger {
    /// The match's row and the caller's role at it, if the caller may see it (an outsider gets
    /// `not_found`); one round trip.
    pub async fn read_row(
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
    pub async fn read_row_and_seats(
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
    pub async fn current(
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
        Ok(Seen { current, role })
    }

    /// The started match at its newest version and the seat the player acts from: for what a
    /// player does whatever version the match is at (resign, claim, talk, ask for a hint).
    pub async fn seated(
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
    pub async fn read_row_unchecked(&self, match_id: &str) -> Result<ReadRow, MatchError> {
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
    pub async fn load(&self, read: &ReadRow) -> Result<Arc<MatchState>, MatchError> {
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
        if snapshots::folded_enough(folded) {
            self.keep_snapshot(&row.id, &next).await;
        }
        let current = Arc::new(next);
        self.cache.put(&row.id, current.clone(), read.checkpoint);
        Ok(current)
    }

    /// The state after the first `at` events, folded afresh (for replays).
    pub async fn state_at(&self, row: &MatchRow, at: i64) -> Result<GameState, MatchError> {
        let mut state = self.fresh(row).await?.state;
        for recorded in self.recorded(&row.id, 0, at).await? {
            if let Entry::Game(event) = &recorded.event {
                state.apply(event);
            }
        }
        Ok(state)
    }

    /// A started match before its first event.
    pub async fn fresh(&self, row: &MatchRow) -> Result<MatchState, MatchError> {
        let seats = self.db.seats(&row.id).await?;
        let secret = self
            .db
            .match_secret(&row.id)
            .await?
            .ok_or_else(|| MatchError::Corrupt("no secret".into()))?;
        MatchState::before_start(row, &seats, &secret)
    }

    /// Events `after + 1 …` of the log, at most `limit`, read back.
    pub async fn recorded(
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

    /// The entries of the log written after `after` (Unix seconds), read back: what a feature
    /// counts by time (talk's pace, this turn's nudge).
    pub async fn recorded_since(
        &self,
        match_id: &str,
        after: i64,
    ) -> Result<Vec<Recorded>, MatchError> {
        self.db
            .events_written_after(match_id, after)
            .await?
            .into_iter()
            .map(log::decode)
            .collect()
    }

    /// The newest version of the match as the database has it, if the database can say.
    pub async fn newest_version(&self, match_id: &str) -> Option<i64> {
        self.db.match_version(match_id).await.ok().flatten()
    }

    /// The match as the database has it now.
    pub async fn reload(&self, match_id: &str) -> Result<Arc<MatchState>, MatchError> {
        let read = self.read_row_unchecked(match_id).await?;
        self.load(&read).await
    }
}
