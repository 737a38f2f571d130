//! [`StoreError`]: what went wrong below the service, sorted by what a caller can do about it;
//! and the memory of a recent outage that makes the pool check connections before use.

/// Why storage failed. Rule and input errors never come from here.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be used now (down, restarting, pool exhausted, disk full, a write
    /// lock held too long). Nothing was written.
    #[error("the database is unavailable")]
    Unavailable(#[source] sqlx::Error),
    /// The database did not answer within the statement timeout.
    #[error("the database did not answer within the statement timeout")]
    TimedOut,
    /// A write was sent but never confirmed: the database did not answer within the statement
    /// timeout, the connection broke, or the commit itself failed. Whether it was made is
    /// unknown (SQLite, for one, can find a commit that failed on a full disk in its log when
    /// it next recovers it, and keep it).
    #[error("the database did not confirm the write")]
    Unconfirmed(#[source] Option<sqlx::Error>),
    /// A unique constraint refused the write.
    #[error("a unique constraint refused the write")]
    Conflict(#[source] sqlx::Error),
    /// A stored value the code cannot read back: a bug or a corrupt database.
    #[error("a stored value is corrupt: {0}")]
    Corrupt(String),
    /// Anything else: a bug or a corrupt database.
    #[error("database error")]
    Other(#[source] sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        let classified = StoreError::classify(error);
        if let StoreError::Unavailable(_) = classified {
            outage::noticed();
        }
        classified
    }
}

impl StoreError {
    /// Whether the database, not the request, is at fault: try again later.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            StoreError::Unavailable(_) | StoreError::TimedOut | StoreError::Unconfirmed(_)
        )
    }

    /// Whether the connection was lost under the statement (cut, or the database shutting
    /// down, or a node that is no longer the primary): another connection may well succeed.
    pub fn is_lost_connection(&self) -> bool {
        let StoreError::Unavailable(error) = self else {
            return false;
        };
        match error {
            sqlx::Error::Io(_) => true,
            sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                code.starts_with("08") || matches!(code.as_ref(), "57P01" | "57P02" | "25006")
            }),
            _ => false,
        }
    }

    /// The same error, seen from a write that was sent: a failure of the database after the
    /// write left this process leaves its outcome unknown. Only a write that never got a
    /// connection is known not to have been made.
    pub fn of_write(self) -> StoreError {
        match self {
            StoreError::Unavailable(sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed) => self,
            StoreError::Unavailable(error) => StoreError::Unconfirmed(Some(error)),
            StoreError::TimedOut => StoreError::Unconfirmed(None),
            other => other,
        }
    }

    fn classify(error: sqlx::Error) -> StoreError {
        match &error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_) => StoreError::Unavailable(error),
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(error),
            sqlx::Error::Database(db) => match db.try_downcast_ref::<sqlx::sqlite::SqliteError>() {
                Some(sqlite) if sqlite_unavailable(sqlite) => StoreError::Unavailable(error),
                Some(_) => StoreError::Other(error),
                None if postgres_unavailable(db.code().as_deref()) => {
                    StoreError::Unavailable(error)
                }
                None => StoreError::Other(error),
            },
            _ => StoreError::Other(error),
        }
    }
}

/// PostgreSQL refusing work for now: connection exceptions (08), insufficient resources (53),
/// operator intervention: shutting down, starting up, a statement timeout or cancel (57),
/// connections disallowed (55000), and a write refused by a standby (25006: a connection that
/// reached a node which is not, or no longer, the primary, during a failover or a switchover;
/// the pool drops such connections, see `Db::connect`).
fn postgres_unavailable(sqlstate: Option<&str>) -> bool {
    sqlstate.is_some_and(|code| {
        code.starts_with("08")
            || code.starts_with("53")
            || code.starts_with("57")
            || code == "55000"
            || code == "25006"
    })
}

/// SQLite failing for reasons of the machine, not the request: busy or locked past the busy
/// timeout (5, 6), out of memory (7), read-only (8), an I/O error (10), a full disk (13), a file
/// it cannot open (14), a lock protocol error (15). Its extended codes keep the primary code in
/// their low byte.
fn sqlite_unavailable(error: &sqlx::sqlite::SqliteError) -> bool {
    use sqlx::error::DatabaseError;
    let code = error
        .code()
        .and_then(|code| code.parse::<i32>().ok())
        .unwrap_or_default();
    matches!(code & 0xff, 5 | 6 | 7 | 8 | 10 | 13 | 14 | 15)
}

/// When this process last found the database unreachable. For a while after that, every
/// pooled connection is pinged before use: the ones a restart cut are dropped unused instead
/// of failing a request each once the database is back.
pub(super) mod outage {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};

    /// How long after an outage connections are checked before use.
    const WARY_FOR_MILLIS: u64 = 30_000;

    static NOTICED_AT_MILLIS: AtomicU64 = AtomicU64::new(0);

    fn now_millis() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis() as u64)
    }

    /// Records that the database did not answer.
    pub fn noticed() {
        NOTICED_AT_MILLIS.store(now_millis(), Ordering::Relaxed);
    }

    /// Whether the database failed to answer lately.
    pub fn recent() -> bool {
        let noticed = NOTICED_AT_MILLIS.load(Ordering::Relaxed);
        noticed != 0 && now_millis().saturating_sub(noticed) < WARY_FOR_MILLIS
    }
}

#[cfg(test)]
mod tests {
    use super::postgres_unavailable;

    #[test]
    fn a_standby_s_refusal_of_a_write_is_an_outage_not_a_bug() {
        for code in ["08006", "53300", "57P01", "57014", "55000", "25006"] {
            assert!(postgres_unavailable(Some(code)), "{code}");
        }
        // A constraint, a syntax error, another transaction-state error: the request's or
        // the code's fault.
        for code in ["23503", "42601", "25P02"] {
            assert!(!postgres_unavailable(Some(code)), "{code}");
        }
        assert!(!postgres_unavailable(None));
    }
}
