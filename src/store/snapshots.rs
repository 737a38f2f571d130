//! The `match_snapshots` table (migration 0013): each match's newest snapshot, kept beside its
//! log so that a long match is resumed rather than folded from its first event
//! (`matches/snapshot.rs` says what a snapshot holds and when one is taken).

use sqlx::Row;

use super::{Db, StoreError, query};

/// A match's stored snapshot, with what its log says at the snapshot's version.
#[derive(Clone, Debug)]
pub struct SnapshotRow {
    /// Events folded into it.
    pub version: i64,
    /// The hash it was taken at: the log's hash of event `version` then.
    pub hash: String,
    /// The log's hash of event `version` now (`None`: the log has no such event).
    pub log_hash: Option<String>,
    /// The layout of `state`.
    pub format: i64,
    /// The state, JSON.
    pub state: String,
}

/// A snapshot to keep.
pub struct NewSnapshot<'a> {
    /// Its match.
    pub match_id: &'a str,
    /// Events folded into it.
    pub version: i64,
    /// The log's hash of event `version`.
    pub hash: &'a str,
    /// The layout of `state`.
    pub format: i64,
    /// The state, JSON.
    pub state: &'a str,
    /// When it was taken (Unix seconds).
    pub taken_at: i64,
}

impl Db {
    /// Keeps `snapshot` as its match's newest, unless a newer one of the same layout is kept
    /// already (another process may have taken a later one meanwhile).
    pub async fn keep_snapshot(&self, snapshot: NewSnapshot<'_>) -> Result<(), StoreError> {
        self.single(async |connection| {
            query(
                "INSERT INTO match_snapshots (match_id, version, hash, format, state, taken_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (match_id) DO UPDATE SET version = excluded.version, \
                 hash = excluded.hash, format = excluded.format, state = excluded.state, \
                 taken_at = excluded.taken_at \
                 WHERE match_snapshots.version < excluded.version \
                 OR match_snapshots.format <> excluded.format",
            )
            .bind(snapshot.match_id)
            .bind(snapshot.version)
            .bind(snapshot.hash)
            .bind(snapshot.format)
            .bind(snapshot.state)
            .bind(snapshot.taken_at)
            .execute(connection)
            .await
        })
        .await?;
        Ok(())
    }

    /// A match's snapshot, if one is kept, with the hash its log now has at its version.
    pub async fn snapshot(&self, match_id: &str) -> Result<Option<SnapshotRow>, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT s.version, s.hash, s.format, s.state, e.hash AS log_hash \
                     FROM match_snapshots s \
                     LEFT JOIN match_events e ON e.match_id = s.match_id AND e.seq = s.version \
                     WHERE s.match_id = $1",
                )
                .bind(match_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(SnapshotRow {
            version: row.try_get("version")?,
            hash: row.try_get("hash")?,
            log_hash: row.try_get("log_hash")?,
            format: row.try_get("format")?,
            state: row.try_get("state")?,
        }))
    }
}
