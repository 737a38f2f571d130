//! Storage over sqlx: one pool that speaks SQLite (the embedded default) or PostgreSQL, chosen by
//! the URL. Queries are written once in the SQL both accept (`$1` placeholders, `BIGINT`, `TEXT`);
//! each database has its own commented migrations under `migrations/`.

pub mod accounts;
pub mod matches;
pub mod tokens;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Executor};

use crate::config::Settings;

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
    /// Anything else: a bug or a corrupt database.
    #[error("database error")]
    Other(#[source] sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
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

/// The connection pool and what it talks to.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
}

impl Db {
    /// Connects (creating a SQLite file if needed). Fails when the database cannot be reached.
    pub async fn connect(settings: &Settings) -> Result<Db, sqlx::Error> {
        install_default_drivers();
        let (url, backend) = if settings.database_url.starts_with("sqlite:") {
            let url = &settings.database_url;
            let with_create = if url.contains("mode=") {
                url.clone()
            } else if url.contains('?') {
                format!("{url}&mode=rwc")
            } else {
                format!("{url}?mode=rwc")
            };
            (with_create, Backend::Sqlite)
        } else {
            (settings.database_url.clone(), Backend::Postgres)
        };
        let pool = AnyPoolOptions::new()
            .max_connections(settings.database_max_connections)
            .acquire_timeout(Duration::from_secs(settings.database_timeout_seconds))
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
            .connect(&url)
            .await?;
        Ok(Db { pool, backend })
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

    /// The pool.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
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
