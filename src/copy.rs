//! `kings-corner copy --from sqlite://OLD.db --to postgres://…`: the way off the embedded
//! SQLite default. Everything a server keeps (accounts, signing keys, tokens, matches with their
//! logs, notifications, webhooks with their outboxes, reservations, invitations) goes into an
//! empty PostgreSQL database, and is then checked there.
//!
//! 1. The source must be a SQLite file no server holds (stop the server first: what it wrote
//!    after the copy would stay behind), migrated to this build's schema; the target is
//!    migrated here, and its columns must be the source's.
//! 2. Every table's rows and digest are read from the source ([`Db::digest`]). The first run
//!    records them in the target ([`PROGRESS_TABLE`]), on an empty target only; a later run
//!    resumes that copy, and only if the source is still what it was.
//! 3. Table by table, parents first ([`COPIED_TABLES`]), batches of rows in `rowid` order go
//!    into the target, each in one transaction with the copy's progress: killed at any point,
//!    the next run goes on from the last batch that committed, and copies nothing twice.
//! 4. The sequences behind serial ids move past the copied ids.
//! 5. The checks: every table's row count and digest in the target equal the source's (so
//!    every match's log, hash chain and all, is the same row for row), and every ended match's
//!    export verifies ([`crate::matches::export::verify`]).
//!
//! A run after a complete copy changes nothing and repeats the checks.

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{DatabaseSettings, Pooler};
use crate::live::{Notifier, Wake};
use crate::matches::Matches;
use crate::matches::export;
use crate::store::transfer::{
    COPIED_TABLES, Column, ColumnKind, PROGRESS_TABLE, TableDigest, TableProgress,
};
use crate::store::{Db, StartError, StoreError, sqlite_path};
use crate::time_source::SystemClock;

/// PostgreSQL takes at most 65,535 parameters in one statement; a batch stays below it.
const MOST_PARAMETERS: usize = 60_000;

/// What to copy where.
#[derive(Clone, Debug)]
pub struct CopyOrder {
    /// The SQLite database: `sqlite://FILE`.
    pub from: String,
    /// The PostgreSQL database: `postgres://…`, reached directly (not through a pooler).
    pub to: String,
    /// Rows written per transaction (fewer for tables whose rows have many columns).
    pub batch_rows: usize,
}

/// Why a copy stopped or failed its checks. Nothing is left half-written: every batch the
/// target holds committed whole, with the progress a later run resumes from.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// `--from` names no SQLite file.
    #[error("--from must name a SQLite database file: sqlite://FILE")]
    SourceNotSqlite,
    /// `--to` names no PostgreSQL database.
    #[error("--to must name a PostgreSQL database: postgres://USER@HOST/DATABASE")]
    TargetNotPostgres,
    /// There is no file at the source's path.
    #[error("there is no database at {}", .0.display())]
    NoSource(PathBuf),
    /// A server holds the source.
    #[error(
        "{} is in use by a running server: stop it first, so that nothing it writes later is \
         left behind (to rehearse the move meanwhile, copy a backup made with `kings-corner \
         backup`)",
        .0.display()
    )]
    SourceInUse(PathBuf),
    /// A database could not be opened.
    #[error("cannot open the {which} database: {detail}")]
    Connect {
        /// `source` or `target`.
        which: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// The source was written by another version of kings-corner.
    #[error("{0}")]
    SourceVersion(String),
    /// The two schemas do not have the same tables and columns.
    #[error("the source and the target do not have the same schema: {0}")]
    SchemaMismatch(String),
    /// The target holds data, and no copy of this source began there.
    #[error(
        "the target already holds data ({table} has rows): copy into a new, empty database, \
         before any server starts on it"
    )]
    TargetNotEmpty {
        /// A table with rows.
        table: String,
    },
    /// The source is no longer what it was when the copy that the target records began.
    #[error(
        "the source has changed since this copy began ({table}: {then} rows then, {now} now, \
         or other contents): drop the target database, create it empty, and copy again"
    )]
    SourceChanged {
        /// The first table that differs.
        table: String,
        /// Its rows when the copy began.
        then: i64,
        /// Its rows now.
        now: i64,
    },
    /// A database failed while the copy ran.
    #[error("{during}: {detail}")]
    Database {
        /// What the copy was doing.
        during: String,
        /// The database's own words.
        detail: String,
    },
    /// The copy ran but the checks found differences.
    #[error("the copy does not check out:\n  {}", .0.join("\n  "))]
    Checks(Vec<String>),
}

/// What a complete copy found.
#[derive(Debug)]
pub struct CopyReport {
    /// Each table with its rows.
    pub tables: Vec<(String, i64)>,
    /// Rows this run copied (the rest came from an earlier run).
    pub copied_now: i64,
    /// Whether an earlier run had begun this copy.
    pub resumed: bool,
    /// Matches whose logs were compared.
    pub logs: i64,
    /// Rows of those logs (a row holds one append's events: a move's, a note's).
    pub log_rows: i64,
    /// Ended matches whose exports verified.
    pub verified: usize,
}

impl fmt::Display for CopyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: i64 = self.tables.iter().map(|(_, rows)| rows).sum();
        let runs = if self.resumed {
            format!(
                "{} by this run, the rest by an earlier one",
                self.copied_now
            )
        } else {
            "all by this run".to_owned()
        };
        writeln!(
            f,
            "ok: {rows} rows in {} tables copied, {runs}",
            self.tables.len()
        )?;
        writeln!(
            f,
            "ok: every table's row count and digest equal the source's: {} match logs in {} \
             rows, hash chains included",
            self.logs, self.log_rows
        )?;
        write!(f, "ok: {} ended matches verify", self.verified)
    }
}

/// Copies `order.from` into `order.to` and checks the copy, telling `say` how it goes (a line
/// per step). `settings` gives the pool's limits for both databases.
pub async fn run(
    settings: &DatabaseSettings,
    order: &CopyOrder,
    mut say: impl FnMut(String),
) -> Result<CopyReport, CopyError> {
    let (source, target) = open(settings, order).await?;
    let columns = schema(&source, &target).await?;

    say(format!(
        "reading the source: {} tables",
        COPIED_TABLES.len()
    ));
    let mut sources = Vec::new();
    for (table, columns) in COPIED_TABLES.iter().zip(&columns) {
        let digest = source
            .digest(table, columns)
            .await
            .map_err(failed(format!("reading {table} from the source")))?;
        sources.push(((*table).to_owned(), digest));
    }
    let (mut progress, resumed) = start_or_resume(&target, &sources, &mut say).await?;
    let copied_now = copy_rows(
        &source,
        &target,
        &mut progress,
        &columns,
        order.batch_rows,
        &mut say,
    )
    .await?;
    target
        .advance_sequences()
        .await
        .map_err(failed("moving the target's id sequences on".to_owned()))?;

    say("checking the copy".to_owned());
    check_tables(&target, &columns, &sources).await?;
    let verified = verify_ended_matches(&target).await?;
    let events = &sources[table_index("match_events")].1;
    let logs = &sources[table_index("matches")].1;
    source.pool().close().await;
    target.pool().close().await;
    Ok(CopyReport {
        tables: sources
            .iter()
            .map(|(table, digest)| (table.clone(), digest.rows))
            .collect(),
        copied_now,
        resumed,
        logs: logs.rows,
        log_rows: events.rows,
        verified,
    })
}

/// The copy's progress: the one an earlier run recorded in the target (if it copied this very
/// source), or a new one on an empty target. Also whether it was the earlier run's.
async fn start_or_resume(
    target: &Db,
    sources: &[(String, TableDigest)],
    say: &mut impl FnMut(String),
) -> Result<(Vec<TableProgress>, bool), CopyError> {
    let recorded = target
        .copy_progress()
        .await
        .map_err(failed(format!("reading {PROGRESS_TABLE} in the target")))?;
    if !recorded.is_empty() {
        let progress = resume(recorded, sources)?;
        if progress.iter().all(|table| table.done) {
            say("this copy is complete already: checking it again".to_owned());
        } else {
            let copied: i64 = progress.iter().map(|table| table.copied).sum();
            let total: i64 = sources.iter().map(|(_, digest)| digest.rows).sum();
            say(format!(
                "resuming the copy begun earlier: {copied} of {total} rows copied"
            ));
        }
        return Ok((progress, true));
    }
    for table in COPIED_TABLES {
        let found = target
            .holds_data(table)
            .await
            .map_err(failed(format!("reading {table} in the target")))?;
        if found {
            return Err(CopyError::TargetNotEmpty {
                table: (*table).to_owned(),
            });
        }
    }
    let progress = target.begin_copy(sources).await.map_err(failed(
        "recording the copy's start in the target".to_owned(),
    ))?;
    Ok((progress, false))
}

/// Copies every table not yet done, batch by batch from where its progress stands; returns
/// how many rows this run copied.
async fn copy_rows(
    source: &Db,
    target: &Db,
    progress: &mut [TableProgress],
    columns: &[Vec<Column>],
    batch_rows: usize,
    say: &mut impl FnMut(String),
) -> Result<i64, CopyError> {
    let mut copied_now = 0;
    for (table, columns) in progress.iter_mut().zip(columns) {
        if table.done {
            continue;
        }
        let limit = batch_rows.clamp(1, MOST_PARAMETERS / columns.len());
        loop {
            let batch = source
                .rows_after(&table.table, columns, table.last_rowid, limit)
                .await
                .map_err(failed(format!("reading {} from the source", table.table)))?;
            if batch.rows.is_empty() {
                break;
            }
            copied_now += batch.rows.len() as i64;
            target
                .write_batch(table, columns, &batch)
                .await
                .map_err(failed(format!(
                    "writing {} rows after source rowid {} into the target",
                    table.table, table.last_rowid
                )))?;
        }
        target
            .finish_table(table)
            .await
            .map_err(failed(format!("recording {} as copied", table.table)))?;
        say(format!("{}: {} rows copied", table.table, table.copied));
    }
    Ok(copied_now)
}

/// Opens both databases: the source as it is, the target migrated to this build's schema.
async fn open(settings: &DatabaseSettings, order: &CopyOrder) -> Result<(Db, Db), CopyError> {
    let path = sqlite_path(&order.from).ok_or(CopyError::SourceNotSqlite)?;
    if !order.to.starts_with("postgres://") && !order.to.starts_with("postgresql://") {
        return Err(CopyError::TargetNotPostgres);
    }
    if !path.exists() {
        return Err(CopyError::NoSource(path));
    }
    if Db::sqlite_file_in_use(&path) {
        return Err(CopyError::SourceInUse(path));
    }
    let with_url = |url: &str| DatabaseSettings {
        url: url.to_owned(),
        pooler: Pooler::None,
        listen_url: None,
        ..settings.clone()
    };
    let source = Db::connect(&with_url(&order.from))
        .await
        .map_err(|error| match error {
            StartError::InUse { path } => CopyError::SourceInUse(path),
            other => CopyError::Connect {
                which: "source",
                detail: chain(&other),
            },
        })?;
    let applied = source.applied_migrations().await.map_err(|error| {
        CopyError::SourceVersion(format!(
            "{} is not a kings-corner database ({})",
            path.display(),
            chain(&error)
        ))
    })?;
    let known = source.known_migrations();
    if applied != known {
        let (newest, ours) = (applied.last().copied(), known.last().copied());
        return Err(CopyError::SourceVersion(if newest > ours {
            format!(
                "{} was written by a newer kings-corner (migration {}): copy it with that version",
                path.display(),
                newest.unwrap_or_default()
            )
        } else {
            format!(
                "{} has not had this version's migrations: run `kings-corner migrate \
                 --database-url {}` first",
                path.display(),
                order.from
            )
        }));
    }
    let target = Db::connect(&with_url(&order.to))
        .await
        .map_err(|error| CopyError::Connect {
            which: "target",
            detail: chain(&error),
        })?;
    target.migrate().await.map_err(|error| CopyError::Connect {
        which: "target",
        detail: format!("its migrations failed: {}", chain(&error)),
    })?;
    Ok((source, target))
}

/// Checks that both databases have exactly the copied tables, each with the same columns of
/// the same kinds, and returns each table's columns (in the target's order).
async fn schema(source: &Db, target: &Db) -> Result<Vec<Vec<Column>>, CopyError> {
    let expected: BTreeSet<String> = COPIED_TABLES.iter().map(|t| (*t).to_owned()).collect();
    for (which, db) in [("source", source), ("target", target)] {
        let found: BTreeSet<String> = db
            .table_names()
            .await
            .map_err(failed(format!("listing the {which}'s tables")))?
            .into_iter()
            .collect();
        if let Some(unknown) = found.difference(&expected).next() {
            return Err(CopyError::SchemaMismatch(format!(
                "the {which} has a table this build does not copy: {unknown}"
            )));
        }
        if let Some(missing) = expected.difference(&found).next() {
            return Err(CopyError::SchemaMismatch(format!(
                "the {which} has no table {missing}"
            )));
        }
    }
    let mut all = Vec::new();
    for table in COPIED_TABLES {
        let theirs = source
            .columns(table)
            .await
            .map_err(failed(format!("reading {table}'s columns in the source")))?;
        let ours = target
            .columns(table)
            .await
            .map_err(failed(format!("reading {table}'s columns in the target")))?;
        if let Some(odd) = ours
            .iter()
            .chain(&theirs)
            .find(|column| matches!(column.kind, ColumnKind::Other(_)))
        {
            return Err(CopyError::SchemaMismatch(format!(
                "{table}.{} is of a type the copy does not carry ({:?})",
                odd.name, odd.kind
            )));
        }
        let sorted = |columns: &[Column]| {
            let mut columns = columns.to_vec();
            columns.sort_by(|a, b| a.name.cmp(&b.name));
            columns
        };
        if sorted(&theirs) != sorted(&ours) {
            let names = |columns: &[Column]| {
                columns
                    .iter()
                    .map(|column| column.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(CopyError::SchemaMismatch(format!(
                "{table} has the columns ({}) in the source but ({}) in the target",
                names(&theirs),
                names(&ours)
            )));
        }
        all.push(ours);
    }
    Ok(all)
}

/// The progress an earlier run recorded, if it was a copy of this very source.
fn resume(
    mut recorded: Vec<TableProgress>,
    sources: &[(String, TableDigest)],
) -> Result<Vec<TableProgress>, CopyError> {
    let mut progress = Vec::new();
    for (table, source) in sources {
        let Some(at) = recorded.iter().position(|line| &line.table == table) else {
            return Err(CopyError::SchemaMismatch(format!(
                "{PROGRESS_TABLE} records no progress for {table}: the copy that began here \
                 was made by another version"
            )));
        };
        let line = recorded.swap_remove(at);
        if &line.source != source {
            return Err(CopyError::SourceChanged {
                table: table.clone(),
                then: line.source.rows,
                now: source.rows,
            });
        }
        progress.push(line);
    }
    Ok(progress)
}

/// Every table's rows and digest in the target, against the source's.
async fn check_tables(
    target: &Db,
    columns: &[Vec<Column>],
    sources: &[(String, TableDigest)],
) -> Result<(), CopyError> {
    let mut differences = Vec::new();
    for ((table, source), columns) in sources.iter().zip(columns) {
        let copied = target
            .digest(table, columns)
            .await
            .map_err(failed(format!("reading {table} in the target")))?;
        if copied.rows != source.rows {
            differences.push(format!(
                "{table}: {} rows in the source, {} in the target",
                source.rows, copied.rows
            ));
        } else if copied.digest != source.digest {
            differences.push(format!(
                "{table}: the same {} rows in number, but not in content",
                source.rows
            ));
        }
    }
    if differences.is_empty() {
        Ok(())
    } else {
        Err(CopyError::Checks(differences))
    }
}

/// Verifies the export of every ended match in the target, as `kings-corner verify` would;
/// returns how many verified.
async fn verify_ended_matches(target: &Db) -> Result<usize, CopyError> {
    let ids = target
        .ended_match_ids()
        .await
        .map_err(failed("listing the ended matches".to_owned()))?;
    let matches = Matches::new(
        target.clone(),
        1,
        Notifier::in_process(),
        Arc::new(SystemClock),
        Wake::default(),
    );
    let mut failures = Vec::new();
    for id in &ids {
        match matches.export_for_audit(id).await {
            Ok(exported) => {
                if let Err(problem) = export::verify(&exported) {
                    failures.push(format!("match {id} does not verify: {problem}"));
                }
            }
            Err(problem) => failures.push(format!("match {id} cannot be exported: {problem}")),
        }
    }
    if failures.is_empty() {
        Ok(ids.len())
    } else {
        Err(CopyError::Checks(failures))
    }
}

/// Where `table` sits in [`COPIED_TABLES`].
fn table_index(table: &str) -> usize {
    COPIED_TABLES
        .iter()
        .position(|name| *name == table)
        .expect("a copied table")
}

/// A store error while `during`, with the database's own words.
fn failed(during: String) -> impl FnOnce(StoreError) -> CopyError {
    move |error| CopyError::Database {
        during,
        detail: chain(&error),
    }
}

/// An error and its causes on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        // sqlx repeats its cause in its own words: each sentence once.
        let said = next.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = next.source();
    }
    text
}
