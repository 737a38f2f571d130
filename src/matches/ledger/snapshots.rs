//! Snapshots of a match's state, so that a long match costs what a fresh one does also when
//! this process has to read it again (it just started, or its cache let the match go): the
//! read begins at the newest snapshot and folds only the events after it.
//!
//! A snapshot is taken from a state folded from the log, right after the write that carried
//! the log past a multiple of [`SNAPSHOT_EVERY`] events, or after a read that folded that many
//! (a match older than snapshots, or one whose snapshot was refused). It is kept with the hash
//! of the event it follows, and resumed from only while that event of the log still has that
//! hash, its layout is this build's ([`FORMAT`]), and the engine finds that it fits the table
//! ([`GameState::resumed`](crate::rules::GameState::resumed)); otherwise the log is folded
//! from its first event as before, and a new snapshot taken. The log stays the record:
//! replays, exports and `verify` never read a snapshot. Keeping one is best effort: a failure
//! is logged and costs only the next cold read its speed.

use serde::{Deserialize, Serialize};

use super::kept_views::KeptViews;
use super::{Ledger, MatchState};
use crate::instruments::{self, SnapshotUse};
use crate::matches::MatchError;
use crate::matches::match_clock::{ClockSnapshot, MatchClock};
use crate::rules::Snapshot;
use crate::store::MatchRow;
use crate::store::snapshots::{NewSnapshot, SnapshotRow};

/// How many events apart snapshots are taken: a cold read of a match folds fewer than this.
pub(super) const SNAPSHOT_EVERY: i64 = 256;

/// The layout of a stored snapshot. Raise it when [`Stored`] or the engine's [`Snapshot`]
/// changes meaning: snapshots of another layout are passed over (and replaced as their
/// matches are read).
/// Layout 2: the clock's vacations. Layout 3: which seats have taken a turn of their own (a
/// rated match's end asks, docs/ratings.md).
const FORMAT: i64 = 3;

/// What a snapshot stores: what the match's row and seats do not give again.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    game: Snapshot,
    clock: Option<ClockSnapshot>,
    table_version: i64,
}

/// Whether a write that took a match's log from `before` to `after` events carried it past a
/// multiple of [`SNAPSHOT_EVERY`].
pub(super) fn passes_a_snapshot(before: i64, after: i64) -> bool {
    before / SNAPSHOT_EVERY < after / SNAPSHOT_EVERY
}

/// Whether a read that folded `events` of the log should leave a snapshot behind.
pub(super) fn folded_enough(events: usize) -> bool {
    i64::try_from(events).is_ok_and(|events| events >= SNAPSHOT_EVERY)
}

impl Ledger {
    /// Keeps a snapshot of `current`, a state of the match as its log has it.
    pub(super) async fn keep_snapshot(&self, match_id: &str, current: &MatchState) {
        let stored = Stored {
            game: current.state.snapshot(),
            clock: current.clock.as_ref().map(MatchClock::snapshot),
            table_version: current.table_version,
        };
        let state = serde_json::to_string(&stored).expect("snapshots serialise");
        let kept = self
            .db
            .keep_snapshot(NewSnapshot {
                match_id,
                version: current.version,
                hash: &current.last_hash,
                format: FORMAT,
                state: &state,
                taken_at: self.clock.now(),
            })
            .await;
        match kept {
            Ok(()) => instruments::snapshot(SnapshotUse::Taken),
            Err(error) => tracing::warn!(
                match_id,
                version = current.version,
                error = %error,
                "a snapshot was not kept; the next cold read folds more of the log"
            ),
        }
    }

    /// The started match at its newest usable snapshot, or before its first event when it has
    /// none (or is too short to have one).
    pub(super) async fn resumed(&self, row: &MatchRow) -> Result<MatchState, MatchError> {
        let fresh = self.fresh(row).await?;
        if row.version < SNAPSHOT_EVERY {
            return Ok(fresh);
        }
        let Some(kept) = self.db.snapshot(&row.id).await? else {
            return Ok(fresh);
        };
        match resume(&fresh, kept, row.version) {
            Ok(Some(resumed)) => {
                instruments::snapshot(SnapshotUse::Resumed);
                Ok(resumed)
            }
            Ok(None) => Ok(fresh),
            Err(why) => {
                instruments::snapshot(SnapshotUse::Refused);
                tracing::warn!(
                    match_id = %row.id,
                    why,
                    "a snapshot was refused; the log is folded from its first event"
                );
                Ok(fresh)
            }
        }
    }
}

/// `fresh` (the match before its first event) at the snapshot `kept`, for a read that found
/// the match at `version`: `None` when the snapshot is of another layout or newer than that
/// read (taken by a write since); an error saying why when it disagrees with the log or the
/// table.
fn resume(
    fresh: &MatchState,
    kept: SnapshotRow,
    version: i64,
) -> Result<Option<MatchState>, String> {
    if kept.format != FORMAT || kept.version > version {
        return Ok(None);
    }
    if kept.log_hash.as_deref() != Some(kept.hash.as_str()) {
        return Err(format!(
            "event {} of the log does not have the hash it was taken at",
            kept.version
        ));
    }
    let stored: Stored =
        serde_json::from_str(&kept.state).map_err(|error| format!("unreadable: {error}"))?;
    let state = fresh
        .state
        .resumed(stored.game)
        .map_err(|error| error.to_string())?;
    let clock = match (&fresh.clock, stored.clock) {
        (None, None) => None,
        (Some(clock), Some(snapshot)) => Some(
            clock
                .resumed(snapshot)
                .ok_or("its clock does not fit the table")?,
        ),
        _ => {
            return Err("it has a clock where the table has none, or none where it has one".into());
        }
    };
    if !(0..=kept.version).contains(&stored.table_version) {
        return Err(format!("table version {} beyond it", stored.table_version));
    }
    Ok(Some(MatchState {
        table: fresh.table.clone(),
        state,
        version: kept.version,
        table_version: stored.table_version,
        last_hash: kept.hash,
        log_format: fresh.log_format,
        clock,
        views: KeptViews::default(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_due_when_a_write_passes_a_multiple() {
        assert!(!passes_a_snapshot(0, SNAPSHOT_EVERY - 1));
        assert!(passes_a_snapshot(SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY));
        assert!(passes_a_snapshot(SNAPSHOT_EVERY - 3, SNAPSHOT_EVERY + 5));
        assert!(!passes_a_snapshot(SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY - 1));
        assert!(!folded_enough(255) && folded_enough(256));
    }
}
