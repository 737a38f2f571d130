//! Storage over sqlx: one pool that speaks SQLite (the embedded default) or PostgreSQL, chosen by
//! the URL. Queries are written once in the SQL both accept (`$1` placeholders, `BIGINT`, `TEXT`);
//! each database has its own commented migrations under `migrations/`. A few statements only
//! PostgreSQL runs (the batched append of [`append`], row locks, `NOTIFY`) say so where they
//! are written.
//!
//! # Layout
//! - this file: [`Db`] (the pool, connecting, migrating, the statement timeout, readiness);
//! - `error`: [`StoreError`], sorted by what a caller can do about it;
//! - [`accounts`], [`tokens`]: accounts, refresh tokens and signing keys;
//! - [`matches`]: match rows, seats, secrets, the log's reads and listings; [`records`]: the
//!   matches an account played, for its player page;
//! - [`seating`]: seat changes, each under a lock on its match; [`invitations`] to private
//!   matches; [`seeks`]: quick pairing's requests for a table, each seated once; [`blocks`]: who
//!   blocks whom, in spans of time; [`follows`]: which players each account follows;
//!   [`mutes`]: the matches whose talk a reader muted; [`notes`]: players' private notes on
//!   matches; [`reports`]: what accounts told the operators about; [`moderation`]: the
//!   operators' queue of reports and their audit log;
//! - [`ratings`]: each account's rating per pool and the changes behind it; [`vacations`]: an
//!   account's vacation days and vacation, and the matches whose logs must record it;
//! - [`append`]: writing a move (its events, read model, kept response and notifications)
//!   atomically; [`snapshots`]: each match's newest snapshot of its state;
//! - [`notifications`]: each account's stream, and the relay that numbers it;
//! - [`personal_tokens`], [`webhooks`]: long-lived tokens, webhooks and their deliveries;
//!   [`stream_tickets`]: single-use tickets that open a stream from a browser;
//! - [`mail`]: an account's address, the tokens mailed to it, and the outbox of letters;
//!   [`push`]: the VAPID key, push subscriptions and the outbox of push messages;
//!   [`alerts`]: what an account wants to be told away from the table, and the alerts waiting;
//! - [`work`]: background work on matches (clocks, bot turns) shared by processes with leases;
//!   `topics`: the newest versions of many matches and accounts at once (the notifier's catch-up);
//!   `backlog`: how much of each kind of background work waits, for the metrics;
//! - `statements`: [`query`], sqlx's, with unnamed statements behind a transaction pooler;
//! - [`transfer`]: whole tables read from one database and written to another, with digests
//!   both compute alike, for `kings-corner copy`.

pub mod accounts;
pub mod alerts;
pub mod append;
mod backlog;
pub mod blocks;
mod error;
pub mod follows;
pub mod invitations;
mod listing;
mod log_rows;
pub mod mail;
mod matches;
pub mod moderation;
pub mod mutes;
pub mod notes;
pub mod notifications;
pub mod personal_tokens;
pub mod push;
pub mod ratings;
pub mod records;
pub mod reports;
mod rows;
pub mod seating;
pub mod seeks;
pub mod snapshots;
mod sqlite_file;
mod statements;
pub mod stream_tickets;
pub mod tokens;
mod told;
mod topics;
pub mod transfer;
pub mod vacations;
pub mod webhooks;
pub mod work;

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Connection, Executor, Row, Transaction};

use crate::config::DatabaseSettings;
use crate::instruments;
pub use error::StoreError;
use error::outage;
pub use listing::{Cursor, Listing};
pub use matches::NewMatch;
pub use rows::{BOT_ACCOUNTS, MatchRow, SeatOf, SeatRow, StoredEvent, free_bot_account, seat_of};
pub use sqlite_file::{StartError, sqlite_path};
pub(crate) use statements::{query, query_as};
pub use told::Told;

/// How much longer than the server's statement timeout the client waits, so that a slow
/// statement on a live server ends in the server's own (definite) cancellation.
const CLIENT_TIMEOUT_MARGIN: Duration = Duration::from_secs(1);

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

impl Backend {
    /// What a `SELECT` ends with to lock its rows until the transaction ends: `FOR UPDATE`
    /// on PostgreSQL; nothing on SQLite, where a write transaction holds the database's lock
    /// from its start.
    pub(crate) fn row_lock(self) -> &'static str {
        match self {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        }
    }
}

/// A pooled connection idle for longer than this is pinged before it is handed out.
const IDLE_BEFORE_PING: Duration = Duration::from_secs(1);

/// How long a readiness check may take before it says "not ready".
const READINESS_TIMEOUT: Duration = Duration::from_secs(1);

/// How long a returned connection may take to answer a ping after an outage before it is
/// closed instead of pooled.
const RELEASE_PING_TIMEOUT: Duration = Duration::from_secs(1);

/// The connection pool and what it talks to.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
    /// How long any one statement may take, as the client sees it.
    statement_timeout: Duration,
    /// The writer that gathers concurrent appends (group commit, `append::Batcher`).
    batcher: Option<append::Batcher>,
    /// Behind a pooler in transaction mode ([`Db::single`]).
    pooled: bool,
    /// Where migrations run: a direct session (their lock is a session's).
    session_url: String,
    /// The accounts told something since the relay last looked.
    told: told::ToldAccounts,
}

/// Whether a PostgreSQL connection reaches a primary, which takes writes. The simple query
/// protocol (no arguments): nothing is prepared, as a transaction pooler needs.
async fn reaches_primary(connection: &mut sqlx::AnyConnection) -> Result<bool, sqlx::Error> {
    use sqlx::{Executor, Row};
    let row = connection.fetch_one("SELECT pg_is_in_recovery()").await?;
    Ok(!row.try_get::<bool, _>(0)?)
}

impl Db {
    /// Connects (creating a SQLite file if needed, readable by its owner only). Fails when the
    /// database cannot be reached, or a SQLite file cannot be written.
    pub async fn connect(settings: &DatabaseSettings) -> Result<Db, StartError> {
        install_default_drivers();
        let backend = if settings.is_sqlite() {
            sqlite_file::prepare(&settings.url)?;
            Backend::Sqlite
        } else {
            Backend::Postgres
        };
        let statement_timeout = Duration::from_secs(settings.statement_timeout_seconds);
        let pooled = settings.behind_transaction_pooler();
        if pooled {
            statements::unnamed_from_now_on();
        }
        let pool = AnyPoolOptions::new()
            .max_connections(settings.max_connections)
            .acquire_timeout(Duration::from_secs(settings.timeout_seconds))
            .after_connect(move |connection, _| {
                Box::pin(async move {
                    match backend {
                        Backend::Sqlite => {
                            // Writers wait for each other instead of failing; WAL lets readers
                            // go on.
                            connection.execute(sqlite_file::WAIT_FOR_LOCK).await?;
                            connection.execute("PRAGMA journal_mode = WAL").await?;
                            connection.execute("PRAGMA foreign_keys = ON").await?;
                        }
                        // Behind a transaction pooler a session setting would land on one
                        // borrowed server connection: the timeout is then set on the database
                        // or role instead (docs/operations.md, "Behind a load balancer and PgBouncer").
                        Backend::Postgres if pooled => {}
                        Backend::Postgres => {
                            // The server cancels what runs too long (and rolls it back), so a
                            // slow statement ends in a definite refusal.
                            let millis = statement_timeout.as_millis();
                            connection
                                .execute(format!("SET statement_timeout = {millis}").as_str())
                                .await?;
                        }
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
            .after_release(move |connection, _| {
                Box::pin(async move {
                    // A connection still inside a transaction (its COMMIT or ROLLBACK failed: a
                    // full disk, an I/O error) must never be handed out again: on SQLite its next
                    // transaction would be a savepoint inside the stuck one, answered as written
                    // and never committed, while the stuck one holds the write lock. Closing it
                    // rolls the stuck one back.
                    if connection.is_in_transaction() {
                        return Ok(false);
                    }
                    // After an outage (or a statement abandoned at its timeout), keep only the
                    // connections that answer at once and can still write: on SQLite, those
                    // whose file takes writes; on PostgreSQL, those that reach the primary (a
                    // failover or switchover leaves open connections to a node that became a
                    // standby, and a new connection goes where the proxy now routes).
                    if outage::recent() {
                        if backend == Backend::Sqlite {
                            return Ok(sqlite_file::can_write(connection).await);
                        }
                        let answered =
                            tokio::time::timeout(RELEASE_PING_TIMEOUT, reaches_primary(connection))
                                .await;
                        return Ok(matches!(answered, Ok(Ok(true))));
                    }
                    Ok(true)
                })
            })
            .connect(&sqlite_file::connect_url(&settings.url, backend))
            .await
            .map_err(StartError::Connect)?;
        let mut db = Db {
            pool,
            backend,
            statement_timeout: statement_timeout + CLIENT_TIMEOUT_MARGIN,
            batcher: None,
            pooled,
            session_url: settings.session_url().to_owned(),
            told: told::ToldAccounts::default(),
        };
        db.batcher = Some(append::Batcher::start(db.clone()));
        Ok(db)
    }

    /// Runs one database operation within the statement timeout. Past it the operation is
    /// abandoned (its connection checked before reuse) and the caller told the database is
    /// unavailable: PostgreSQL cancels a slow statement itself a moment earlier, but a frozen
    /// or unreachable server answers nothing at all.
    pub(crate) async fn timed<T, E>(
        &self,
        operation: impl Future<Output = Result<T, E>>,
    ) -> Result<T, StoreError>
    where
        StoreError: From<E>,
    {
        within(self.statement_timeout, operation).await
    }

    /// Connects to a database that must exist already, for a tool that reads one
    /// (`ratings rebuild`): a missing SQLite file is said so and not created, and a database
    /// without the server's tables is refused before any of them is read.
    pub async fn connect_existing(settings: &DatabaseSettings) -> Result<Db, StartError> {
        if let Some(path) = sqlite_file::sqlite_path(&settings.url)
            && !path.exists()
        {
            return Err(StartError::Missing { path });
        }
        let db = Db::connect(settings).await?;
        match db.applied_migrations().await {
            Ok(applied) if !applied.is_empty() => Ok(db),
            _ => Err(StartError::NoSchema),
        }
    }

    /// Applies the pending migrations of this backend. Behind a transaction pooler they run on
    /// a direct session ([`DatabaseSettings::session_url`]): their lock is a session's.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        match self.backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&self.pool).await,
            Backend::Postgres if self.pooled => {
                let mut session = AnyConnection::connect(&self.session_url).await?;
                let outcome = POSTGRES_MIGRATIONS.run(&mut session).await;
                let _ = session.close().await;
                outcome
            }
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&self.pool).await,
        }
    }

    /// Whether the database can serve now, answered within a second: PostgreSQL answers a
    /// query; SQLite takes a write (a full disk or an unwritable file lets reads through but
    /// no write).
    pub async fn ready(&self) -> Result<(), StoreError> {
        let probe = async {
            match self.backend {
                Backend::Postgres => {
                    self.single(async |connection| query("SELECT 1").execute(connection).await)
                        .await?;
                }
                Backend::Sqlite => {
                    let mut transaction = self.pool.begin_with("BEGIN IMMEDIATE").await?;
                    // The database's own time: the probe's value is never read.
                    query("INSERT INTO readiness_probe (id, checked_at) VALUES (1, CAST(strftime('%s', 'now') AS INTEGER)) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at")
                        .execute(&mut *transaction)
                        .await?;
                    transaction.commit().await?;
                }
            }
            Ok::<_, StoreError>(())
        };
        within(READINESS_TIMEOUT, probe).await
    }

    /// PostgreSQL: `NOTIFY channel, payload` in a transaction of its own. Its commit skips
    /// the disk flush (`synchronous_commit` off): it writes nothing worth keeping, and a flush
    /// would hold PostgreSQL's global notify lock for its whole duration.
    pub async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        self.single(async |connection| {
            query("SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)")
                .bind(channel)
                .bind(payload)
                .execute(connection)
                .await
        })
        .await?;
        Ok(())
    }

    /// The pool itself, for tests that reach past the store.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A connection from the pool, the wait for it measured
    /// ([`instruments::waiting_for_connection`]).
    async fn connection(&self) -> Result<PoolConnection<Any>, StoreError> {
        let _waiting = instruments::waiting_for_connection();
        Ok(self.pool.acquire().await?)
    }

    /// Runs `statement` (one statement, or several that need no transaction of their own) on a
    /// pooled connection within the statement timeout. Behind a pooler in transaction mode it
    /// runs inside a transaction: the pooler keeps a client on one PostgreSQL session only
    /// within a transaction, and sqlx prepares a statement and executes it in two round trips
    /// that must reach the same session.
    pub(crate) async fn single<T, E>(
        &self,
        statement: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, E>,
    ) -> Result<T, StoreError>
    where
        StoreError: From<E>,
    {
        // The wait for a connection has its own limit (`DATABASE_TIMEOUT_SECONDS`); only the
        // work on it counts against the statement timeout, as before `single` existed.
        let mut connection = self.connection().await?;
        self.timed::<T, StoreError>(async {
            if !self.pooled {
                return Ok::<T, StoreError>(statement(&mut connection).await?);
            }
            let mut transaction = connection.begin().await?;
            let value = statement(&mut transaction).await?;
            transaction.commit().await?;
            Ok(value)
        })
        .await
    }

    /// [`Db::single`] for a statement that only reads. One that finds its pooled connection
    /// cut (the database restarted, failed over or switched over, or a pooler between was
    /// restarted) is run once more on another connection, checked before use: the client hears
    /// an answer instead of a 503. A write is never run again here: it may have been made, and
    /// only the client's `Idempotency-Key` can tell.
    pub(crate) async fn read<T, E>(
        &self,
        statement: impl AsyncFnOnce(&mut AnyConnection) -> Result<T, E> + Clone,
    ) -> Result<T, StoreError>
    where
        StoreError: From<E>,
    {
        match self.single(statement.clone()).await {
            Err(error) if error.is_lost_connection() => {
                instruments::read_retried();
                self.single(statement).await
            }
            answered => answered,
        }
    }

    /// The pool's connections as a scrape reports them: open, idle, and the most it opens.
    pub fn pool_figures(&self) -> (u32, u32, u32) {
        let idle = u32::try_from(self.pool.num_idle()).unwrap_or(u32::MAX);
        (
            self.pool.size(),
            idle,
            self.pool.options().get_max_connections(),
        )
    }

    /// A write transaction. On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`): a
    /// transaction that read first and wrote later could not get the lock while another writer
    /// held it and would fail with `SQLITE_BUSY` instead of waiting for its turn.
    pub(crate) async fn begin_write(&self) -> Result<Transaction<'static, Any>, StoreError> {
        let _waiting = instruments::waiting_for_connection();
        match self.backend {
            Backend::Sqlite => self.timed(self.pool.begin_with("BEGIN IMMEDIATE")).await,
            Backend::Postgres => self.timed(self.pool.begin()).await,
        }
    }

    /// Locks the row `id` of `table` (`accounts`, `matches`) until `transaction` ends, so that
    /// what the transaction counts under it and then inserts is one serialised step: a cap
    /// holds under concurrent requests. On PostgreSQL the row is locked (`FOR UPDATE`); on
    /// SQLite a write transaction holds the database's lock from its start already. `false`:
    /// there is no such row.
    pub(crate) async fn lock_row(
        &self,
        transaction: &mut Transaction<'static, Any>,
        table: Owner,
        id: &str,
    ) -> Result<bool, sqlx::Error> {
        let lock = self.backend.row_lock();
        let table = match table {
            Owner::Account => "accounts",
            Owner::Match => "matches",
        };
        let row = query(&format!("SELECT id FROM {table} WHERE id = $1{lock}"))
            .bind(id)
            .fetch_optional(&mut **transaction)
            .await?;
        Ok(row.is_some())
    }

    /// How many rows of `table` the owner `id` has (by its `account_id` or `match_id`
    /// column), counted in `transaction`.
    pub(crate) async fn count_owned(
        transaction: &mut Transaction<'static, Any>,
        owner: Owner,
        table: &str,
        id: &str,
    ) -> Result<i64, sqlx::Error> {
        let column = match owner {
            Owner::Account => "account_id",
            Owner::Match => "match_id",
        };
        query(&format!(
            "SELECT COUNT(*) AS n FROM {table} WHERE {column} = $1"
        ))
        .bind(id)
        .fetch_one(&mut **transaction)
        .await?
        .try_get("n")
    }

    /// A write transaction under the lock on the owner's row ([`Db::lock_row`]) if the owner
    /// has fewer than `most` rows of `table`, for the insert of one more: the count and the
    /// insert are one step, so concurrent creations cannot pass the cap together. `None`: the
    /// cap is reached, and nothing is held.
    pub(crate) async fn begin_capped(
        &self,
        owner: Owner,
        id: &str,
        table: &str,
        most: usize,
    ) -> Result<Option<Transaction<'static, Any>>, StoreError> {
        let mut transaction = self.begin_write().await?;
        self.lock_row(&mut transaction, owner, id).await?;
        let count = Db::count_owned(&mut transaction, owner, table, id).await?;
        Ok((count < most as i64).then_some(transaction))
    }

    /// What the append writer (group commit) did so far.
    pub fn append_statistics(&self) -> Option<append::Statistics> {
        self.batcher.as_ref().map(append::Batcher::statistics)
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }
}

/// Whose row [`Db::lock_row`] locks: the owner of what a cap counts.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Owner {
    /// An account (its personal tokens, its webhooks).
    Account,
    /// A match (its invitations).
    Match,
}

/// Runs `operation` for at most `limit` (see [`Db::timed`]).
pub(crate) async fn within<T, E>(
    limit: Duration,
    operation: impl Future<Output = Result<T, E>>,
) -> Result<T, StoreError>
where
    StoreError: From<E>,
{
    match tokio::time::timeout(limit, operation).await {
        Ok(outcome) => Ok(outcome?),
        Err(_) => {
            outage::noticed();
            Err(StoreError::TimedOut)
        }
    }
}

/// The `VALUES` list of a multi-row insert of `rows` rows of `columns` values each, numbered
/// from `$1`: `($1, $2), ($3, $4)`.
pub(crate) fn value_rows(rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|row| {
            let values: Vec<String> = (1..=columns)
                .map(|column| format!("${}", row * columns + column))
                .collect();
            format!("({})", values.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod value_rows_tests {
    #[test]
    fn rows_are_numbered_from_one() {
        assert_eq!(super::value_rows(2, 2), "($1, $2), ($3, $4)");
        assert_eq!(super::value_rows(1, 3), "($1, $2, $3)");
    }
}
