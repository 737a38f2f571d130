//! Storage over sqlx: one pool that speaks SQLite (the embedded default) or PostgreSQL, chosen by
//! the URL. Queries are written once in the SQL both accept (`$1` placeholders, `BIGINT`, `TEXT`);
//! each database has its own commented migrations under `migrations/`. A few statements only
//! PostgreSQL runs (the batched append of [`append`], row locks, `NOTIFY`) say so where they
//! are written.
//!
//! # Layout
//! - this file: [`Db`] (the pool, connecting, migrating) and [`StoreError`];
//! - [`accounts`], [`tokens`]: accounts, refresh tokens and signing keys;
//! - [`matches`]: match rows, seats, secrets, the log's reads and listings;
//! - [`seating`]: seat changes, each under a lock on its match;
//! - [`append`]: writing a move (its events, read model and kept response) atomically.

pub mod accounts;
pub mod append;
pub mod matches;
pub mod seating;
pub mod tokens;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::{Any, AnyPool, Connection, Executor, Transaction};

use crate::config::DatabaseSettings;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("migrations/postgres");

/// Which database the URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// An embedded SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// Why storage failed. Rule and input errors never come from here.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached now (down, restarting, pool exhausted).
    #[error("the database is unavailable")]
    Unavailable(#[source] sqlx::Error),
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
    fn classify(error: sqlx::Error) -> StoreError {
        match &error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_) => StoreError::Unavailable(error),
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(error),
            // PostgreSQL refusing connections: connection exceptions (08), insufficient
            // resources (53), shutting down or starting up (57P), connections disallowed (55000).
            sqlx::Error::Database(db)
                if db.code().is_some_and(|code| {
                    code.starts_with("08")
                        || code.starts_with("53")
                        || code.starts_with("57P")
                        || code == "55000"
                }) =>
            {
                StoreError::Unavailable(error)
            }
            _ => StoreError::Other(error),
        }
    }
}

/// A pooled connection idle for longer than this is pinged before it is handed out.
const IDLE_BEFORE_PING: Duration = Duration::from_secs(1);

/// When this process last found the database unreachable. For a while after that, every
/// pooled connection is pinged before use: the ones a restart cut are dropped unused instead
/// of failing a request each once the database is back.
mod outage {
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

/// The connection pool and what it talks to.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
    /// PostgreSQL: the writer that gathers concurrent appends.
    batcher: Option<append::Batcher>,
}

impl Db {
    /// Connects (creating a SQLite file if needed). Fails when the database cannot be reached.
    pub async fn connect(settings: &DatabaseSettings) -> Result<Db, sqlx::Error> {
        install_default_drivers();
        let (url, backend) = if settings.is_sqlite() {
            let url = &settings.url;
            let with_create = if url.contains("mode=") {
                url.clone()
            } else if url.contains('?') {
                format!("{url}&mode=rwc")
            } else {
                format!("{url}?mode=rwc")
            };
            (with_create, Backend::Sqlite)
        } else {
            (settings.url.clone(), Backend::Postgres)
        };
        let pool = AnyPoolOptions::new()
            .max_connections(settings.max_connections)
            .acquire_timeout(Duration::from_secs(settings.timeout_seconds))
            .after_connect(move |connection, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // Writers wait for each other instead of failing; WAL lets readers go on.
                        connection.execute("PRAGMA busy_timeout = 5000").await?;
                        connection.execute("PRAGMA journal_mode = WAL").await?;
                        connection.execute("PRAGMA foreign_keys = ON").await?;
                    }
                    Ok(())
                })
            })
            // sqlx pings every connection it hands out by default: a round trip per query.
            // Only a connection that sat idle, or one that may have outlived a database restart,
            // is worth it.
            .test_before_acquire(false)
            .before_acquire(|connection, metadata| {
                Box::pin(async move {
                    if metadata.idle_for > IDLE_BEFORE_PING || outage::recent() {
                        connection.ping().await?;
                    }
                    Ok(true)
                })
            })
            .connect(&url)
            .await?;
        let mut db = Db {
            pool,
            backend,
            batcher: None,
        };
        if backend == Backend::Postgres {
            db.batcher = Some(append::Batcher::start(db.clone()));
        }
        Ok(db)
    }

    /// Applies the pending migrations of this backend.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        match self.backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&self.pool).await,
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&self.pool).await,
        }
    }

    /// Whether the database answers now.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// PostgreSQL: `NOTIFY channel, payload` in a transaction of its own. Its commit skips
    /// the disk flush (`synchronous_commit` off): it writes nothing worth keeping, and a flush
    /// would hold PostgreSQL's global notify lock for its whole duration.
    pub async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)")
            .bind(channel)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The pool.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A write transaction. On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`): a
    /// transaction that read first and wrote later could not get the lock while another writer
    /// held it and would fail with `SQLITE_BUSY` instead of waiting for its turn.
    pub(crate) async fn begin_write(&self) -> Result<Transaction<'static, Any>, StoreError> {
        Ok(match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await?,
            Backend::Postgres => self.pool.begin().await?,
        })
    }

    /// On PostgreSQL: what the append writer did so far.
    pub fn append_statistics(&self) -> Option<append::Statistics> {
        self.batcher.as_ref().map(append::Batcher::statistics)
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }
}

/// Seconds since the Unix epoch: the one time format stored.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs() as i64)
        .unwrap_or(0)
}
