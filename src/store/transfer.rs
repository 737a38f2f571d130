//! Whole tables carried from one database into another, for `kings-corner copy` (the command,
//! its order and its checks are `src/copy.rs`): which tables travel, in an order their foreign
//! keys accept; their columns as each database describes them; batches read from SQLite in
//! `rowid` order and written to PostgreSQL in one transaction each, together with how far the
//! copy got; and each table's digest, which both databases compute alike.
//!
//! Every statement runs in a transaction opened here or alone through [`Db::single`], as
//! everywhere in the store. The one long read, a table's digest, runs in a transaction of its
//! own that lifts PostgreSQL's statement timeout for itself.

use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use super::{Backend, Db, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, StoreError, query, value_rows};

/// Every table a copy carries, parents before children: PostgreSQL checks each row's foreign
/// keys as it arrives. A migration that adds a table adds it here (a test compares this list
/// with the migrated schema).
pub const COPIED_TABLES: &[&str] = &[
    "accounts",
    "account_blocks",
    "follows",
    "signing_keys",
    "refresh_tokens",
    "personal_tokens",
    "stream_tickets",
    "matches",
    "match_secrets",
    "match_seats",
    "match_reservations",
    "match_invitations",
    "talk_mutes",
    "match_notes",
    "reports",
    "operator_actions",
    "match_events",
    "idempotency_keys",
    "ratings",
    "rating_changes",
    "seeks",
    "notifications",
    "notification_fanout",
    "webhooks",
    "webhook_kinds",
    "webhook_deliveries",
    "webhook_attempts",
    "email_tokens",
    "outgoing_mail",
    "alert_settings",
    "pending_alerts",
    "alert_queues",
    "unsubscribe_tokens",
    "push_keys",
    "push_subscriptions",
    "outgoing_pushes",
];

/// The copy's own record in the target: per table, the source's row count and digest when the
/// copy began, the last source `rowid` copied and whether the table is complete. Each batch
/// moves it in the batch's own transaction, so an interrupted copy resumes exactly where its
/// last commit left it.
pub const PROGRESS_TABLE: &str = "kings_corner_copy";

/// Tables that stay behind: sqlx's record of the migrations (each database is migrated by its
/// own files), SQLite's bookkeeping, the readiness probe's scratch row, the copy's record, and
/// the matches' snapshots (the target takes its own from the logs as it reads them).
const LEFT_BEHIND: &[&str] = &[
    "_sqlx_migrations",
    "match_snapshots",
    "sqlite_sequence",
    "readiness_probe",
    PROGRESS_TABLE,
];

/// The rows the migrations themselves write, as a condition per table: the bot accounts of
/// `0008_bots.sql` (account ids are UUIDs otherwise). A freshly migrated target holds them and
/// is still empty; the copy replaces them with the source's own.
const SEEDED: &[(&str, &str)] = &[("accounts", "id LIKE 'bot:%'")];

/// The condition that picks the rows of `table` its migrations wrote (`FALSE`: none).
fn seeded_in(table: &str) -> &'static str {
    SEEDED
        .iter()
        .find(|(seeded, _)| *seeded == table)
        .map_or("FALSE", |(_, condition)| condition)
}

/// The `last_rowid` of a table none of whose rows is copied yet: below any SQLite `rowid`.
const BEFORE_ANY_ROW: i64 = i64::MIN;

/// What a column holds: the schema uses three types only, in both databases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// `BIGINT` (SQLite: integer affinity).
    Integer,
    /// `TEXT`.
    Text,
    /// `DOUBLE PRECISION` (SQLite: `REAL`), the ratings: carried and summed bit for bit.
    Float,
    /// Anything else, by its declared name: the copy refuses it.
    Other(String),
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// What it holds.
    pub kind: ColumnKind,
}

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// `NULL`.
    Null,
    /// An integer.
    Integer(i64),
    /// A double.
    Float(f64),
    /// A text.
    Text(String),
}

/// A table's rows, summed up the same way in both databases: how many there are, and the sum
/// (mod 2²⁵⁶) of every row's SHA-256 over its columns taken by name. A sum does not depend on
/// the order rows are read in, so neither database has to sort text the other's way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDigest {
    /// Rows in the table.
    pub rows: i64,
    /// The sum of the rows' hashes, as hex.
    pub digest: String,
}

/// How far the copy of one table got, from [`PROGRESS_TABLE`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableProgress {
    /// The table.
    pub table: String,
    /// The source's rows when the copy began.
    pub source: TableDigest,
    /// The `rowid` of the last source row copied ([`BEFORE_ANY_ROW`] when none is).
    pub last_rowid: i64,
    /// Rows copied so far.
    pub copied: i64,
    /// Whether every row is copied.
    pub done: bool,
}

/// A batch of source rows, each with its `rowid`.
pub struct Batch {
    /// The rows, in `rowid` order, their cells in the order of the columns asked for.
    pub rows: Vec<(i64, Vec<Cell>)>,
}

impl Db {
    /// The tables of the database's schema, by name.
    pub async fn table_names(&self) -> Result<Vec<String>, StoreError> {
        let sql = match self.backend {
            Backend::Sqlite => {
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
                 ORDER BY name"
            }
            Backend::Postgres => {
                "SELECT table_name::text AS name FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY name"
            }
        };
        let rows = self
            .single(async |connection| query(sql).fetch_all(connection).await)
            .await?;
        let names = rows
            .iter()
            .map(|row| row.try_get::<String, _>("name"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(names
            .into_iter()
            .filter(|name| !LEFT_BEHIND.contains(&name.as_str()))
            .collect())
    }

    /// The columns of `table`, in the database's order.
    pub async fn columns(&self, table: &str) -> Result<Vec<Column>, StoreError> {
        let sql = match self.backend {
            Backend::Sqlite => "SELECT name, type AS kind FROM pragma_table_info($1) ORDER BY cid",
            Backend::Postgres => {
                "SELECT column_name::text AS name, data_type::text AS kind \
                 FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 \
                 ORDER BY ordinal_position"
            }
        };
        let rows = self
            .single(async |connection| query(sql).bind(table).fetch_all(connection).await)
            .await?;
        rows.iter()
            .map(|row| {
                let declared: String = row.try_get("kind")?;
                let kind = match declared.to_ascii_uppercase().as_str() {
                    "BIGINT" | "INTEGER" => ColumnKind::Integer,
                    "TEXT" => ColumnKind::Text,
                    "REAL" | "DOUBLE PRECISION" => ColumnKind::Float,
                    _ => ColumnKind::Other(declared),
                };
                Ok(Column {
                    name: row.try_get("name")?,
                    kind,
                })
            })
            .collect()
    }

    /// The versions of the migrations applied to this database, oldest first.
    pub async fn applied_migrations(&self) -> Result<Vec<i64>, StoreError> {
        let rows = self
            .single(async |connection| {
                query("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
                    .fetch_all(connection)
                    .await
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get::<i64, _>("version"))
            .collect::<Result<_, _>>()?)
    }

    /// The versions of the migrations this build carries for this database, oldest first.
    pub fn known_migrations(&self) -> Vec<i64> {
        let migrator = match self.backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator.iter().map(|migration| migration.version).collect()
    }

    /// The rows and digest of `table` over `columns`, read in one transaction (on PostgreSQL
    /// without the statement timeout: a large table takes as long as it takes).
    pub async fn digest(&self, table: &str, columns: &[Column]) -> Result<TableDigest, StoreError> {
        let mut transaction = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            query("SET LOCAL statement_timeout = 0")
                .execute(&mut *transaction)
                .await?;
        }
        let sql = format!("SELECT {} FROM {}", column_list(columns), quoted(table));
        let mut summed = RowSum::default();
        let mut rows = query(&sql).fetch(&mut *transaction);
        while let Some(row) = rows.next().await {
            summed.add(columns, &cells_of(&row?, columns, 0)?);
        }
        drop(rows);
        transaction.rollback().await?;
        Ok(summed.finish())
    }

    /// Whether `table` holds any row besides those the migrations write ([`SEEDED`]).
    pub async fn holds_data(&self, table: &str) -> Result<bool, StoreError> {
        let sql = format!(
            "SELECT 1 AS found FROM {} WHERE NOT ({}) LIMIT 1",
            quoted(table),
            seeded_in(table)
        );
        let found = self
            .single(async |connection| query(&sql).fetch_optional(connection).await)
            .await?;
        Ok(found.is_some())
    }

    /// SQLite: up to `limit` rows of `table` after `rowid` `after`, in `rowid` order.
    pub async fn rows_after(
        &self,
        table: &str,
        columns: &[Column],
        after: i64,
        limit: usize,
    ) -> Result<Batch, StoreError> {
        let sql = format!(
            "SELECT rowid AS kc_rowid, {} FROM {} WHERE rowid > $1 ORDER BY rowid LIMIT $2",
            column_list(columns),
            quoted(table)
        );
        let rows = self
            .single(async |connection| {
                query(&sql)
                    .bind(after)
                    .bind(limit as i64)
                    .fetch_all(connection)
                    .await
            })
            .await?;
        let rows = rows
            .iter()
            .map(|row| Ok((row.try_get::<i64, _>(0)?, cells_of(row, columns, 1)?)))
            .collect::<Result<_, StoreError>>()?;
        Ok(Batch { rows })
    }

    /// PostgreSQL: creates the copy's record ([`PROGRESS_TABLE`]) unless it exists, and reads
    /// it (empty: no copy began here).
    pub async fn copy_progress(&self) -> Result<Vec<TableProgress>, StoreError> {
        let create = format!(
            "CREATE TABLE IF NOT EXISTS {PROGRESS_TABLE} (
                 table_name    TEXT PRIMARY KEY,
                 source_rows   BIGINT NOT NULL,
                 source_digest TEXT NOT NULL,
                 last_rowid    BIGINT NOT NULL,
                 copied        BIGINT NOT NULL,
                 done          BIGINT NOT NULL
             )"
        );
        let read = format!(
            "SELECT table_name, source_rows, source_digest, last_rowid, copied, done \
             FROM {PROGRESS_TABLE}"
        );
        let rows = self
            .single(async |connection| {
                query(&create).execute(&mut *connection).await?;
                query(&read).fetch_all(connection).await
            })
            .await?;
        rows.iter()
            .map(|row| {
                Ok(TableProgress {
                    table: row.try_get("table_name")?,
                    source: TableDigest {
                        rows: row.try_get("source_rows")?,
                        digest: row.try_get("source_digest")?,
                    },
                    last_rowid: row.try_get("last_rowid")?,
                    copied: row.try_get("copied")?,
                    done: row.try_get::<i64, _>("done")? != 0,
                })
            })
            .collect()
    }

    /// PostgreSQL: records the start of a copy of `sources` (each table with its source's
    /// digest), nothing copied yet, and clears the rows the target's migrations wrote (the
    /// source has its own), in one transaction. A second copy starting at the same time fails
    /// here on the primary key.
    pub async fn begin_copy(
        &self,
        sources: &[(String, TableDigest)],
    ) -> Result<Vec<TableProgress>, StoreError> {
        let mut transaction = self.begin_write().await?;
        for (table, condition) in SEEDED {
            query(&format!("DELETE FROM {} WHERE {condition}", quoted(table)))
                .execute(&mut *transaction)
                .await?;
        }
        for (table, source) in sources {
            query(&format!(
                "INSERT INTO {PROGRESS_TABLE} \
                 (table_name, source_rows, source_digest, last_rowid, copied, done) \
                 VALUES ($1, $2, $3, $4, 0, 0)"
            ))
            .bind(table)
            .bind(source.rows)
            .bind(&source.digest)
            .bind(BEFORE_ANY_ROW)
            .execute(&mut *transaction)
            .await?;
        }
        transaction.commit().await?;
        Ok(sources
            .iter()
            .map(|(table, source)| TableProgress {
                table: table.clone(),
                source: source.clone(),
                last_rowid: BEFORE_ANY_ROW,
                copied: 0,
                done: false,
            })
            .collect())
    }

    /// PostgreSQL: inserts `batch` into `progress.table` and moves the table's progress past
    /// it, in one transaction; then `progress` says so too.
    pub async fn write_batch(
        &self,
        progress: &mut TableProgress,
        columns: &[Column],
        batch: &Batch,
    ) -> Result<(), StoreError> {
        let Some(&(last_rowid, _)) = batch.rows.last() else {
            return Ok(());
        };
        let sql = format!(
            "INSERT INTO {} ({}) VALUES {}",
            quoted(&progress.table),
            column_list(columns),
            value_rows(batch.rows.len(), columns.len())
        );
        let mut insert = query(&sql);
        for (_, cells) in &batch.rows {
            for (cell, column) in cells.iter().zip(columns) {
                insert = match (cell, &column.kind) {
                    (Cell::Integer(value), _) => insert.bind(*value),
                    (Cell::Float(value), _) => insert.bind(*value),
                    (Cell::Text(value), _) => insert.bind(value.clone()),
                    // A NULL is sent with its column's type: PostgreSQL checks parameter types.
                    (Cell::Null, ColumnKind::Integer) => insert.bind(None::<i64>),
                    (Cell::Null, ColumnKind::Float) => insert.bind(None::<f64>),
                    (Cell::Null, _) => insert.bind(None::<String>),
                };
            }
        }
        let copied = batch.rows.len() as i64;
        let mut transaction = self.begin_write().await?;
        insert.execute(&mut *transaction).await?;
        record_progress(&mut transaction, &progress.table, last_rowid, copied, false).await?;
        transaction.commit().await?;
        progress.last_rowid = last_rowid;
        progress.copied += copied;
        Ok(())
    }

    /// PostgreSQL: records that every row of `progress.table` is copied.
    pub async fn finish_table(&self, progress: &mut TableProgress) -> Result<(), StoreError> {
        let mut transaction = self.begin_write().await?;
        record_progress(
            &mut transaction,
            &progress.table,
            progress.last_rowid,
            0,
            true,
        )
        .await?;
        transaction.commit().await?;
        progress.done = true;
        Ok(())
    }

    /// PostgreSQL: moves every sequence behind a serial column (`notifications.id`, …) past
    /// the largest id copied, so that the next row the server inserts gets a new one.
    pub async fn advance_sequences(&self) -> Result<(), StoreError> {
        let serials = self
            .single(async |connection| {
                query(
                    "SELECT table_name::text AS table_name, column_name::text AS column_name \
                     FROM information_schema.columns \
                     WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'",
                )
                .fetch_all(connection)
                .await
            })
            .await?;
        for serial in &serials {
            let table: String = serial.try_get("table_name")?;
            let column: String = serial.try_get("column_name")?;
            let advance = format!(
                "SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(MAX({}), 0) + 1, false) \
                 FROM {}",
                quoted(&column),
                quoted(&table)
            );
            self.single(async |connection| {
                query(&advance)
                    .bind(&table)
                    .bind(&column)
                    .fetch_one(connection)
                    .await
            })
            .await?;
        }
        Ok(())
    }

    /// The matches whose log is closed (finished or aborted): those an export verifies.
    pub async fn ended_match_ids(&self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .single(async |connection| {
                query("SELECT id FROM matches WHERE status IN ('finished', 'aborted') ORDER BY id")
                    .fetch_all(connection)
                    .await
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get::<String, _>("id"))
            .collect::<Result<_, _>>()?)
    }
}

/// Moves `table`'s line of [`PROGRESS_TABLE`] in `transaction`.
async fn record_progress(
    transaction: &mut Transaction<'static, Any>,
    table: &str,
    last_rowid: i64,
    copied: i64,
    done: bool,
) -> Result<(), StoreError> {
    query(&format!(
        "UPDATE {PROGRESS_TABLE} SET last_rowid = $1, copied = copied + $2, done = $3 \
         WHERE table_name = $4"
    ))
    .bind(last_rowid)
    .bind(copied)
    .bind(i64::from(done))
    .bind(table)
    .execute(&mut **transaction)
    .await?;
    Ok(())
}

/// `table` as an identifier both databases take whatever its name.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The columns' names, quoted, comma-separated.
fn column_list(columns: &[Column]) -> String {
    columns
        .iter()
        .map(|column| quoted(&column.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cells of `row` from its column `first` on, one per column of `columns`.
fn cells_of(row: &AnyRow, columns: &[Column], first: usize) -> Result<Vec<Cell>, StoreError> {
    columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            let at = first + index;
            let cell = match column.kind {
                ColumnKind::Integer => row.try_get::<Option<i64>, _>(at)?.map(Cell::Integer),
                ColumnKind::Float => row.try_get::<Option<f64>, _>(at)?.map(Cell::Float),
                _ => row.try_get::<Option<String>, _>(at)?.map(Cell::Text),
            };
            Ok(cell.unwrap_or(Cell::Null))
        })
        .collect()
}

/// The running sum of a [`TableDigest`].
#[derive(Default)]
struct RowSum {
    rows: i64,
    /// 256 bits, least significant limb first.
    sum: [u64; 4],
}

impl RowSum {
    /// Adds one row: the SHA-256 of its columns in order of name, each as its name, a tag and
    /// its value with the value's length, so that no two different rows read alike.
    fn add(&mut self, columns: &[Column], cells: &[Cell]) {
        let mut named: Vec<(&str, &Cell)> = columns
            .iter()
            .map(|column| column.name.as_str())
            .zip(cells)
            .collect();
        named.sort_by_key(|(name, _)| *name);
        let mut hash = Sha256::new();
        for (name, cell) in named {
            hash.update((name.len() as u64).to_le_bytes());
            hash.update(name.as_bytes());
            match cell {
                Cell::Null => hash.update([0]),
                Cell::Integer(value) => {
                    hash.update([1]);
                    hash.update(value.to_le_bytes());
                }
                Cell::Float(value) => {
                    hash.update([3]);
                    hash.update(value.to_bits().to_le_bytes());
                }
                Cell::Text(text) => {
                    hash.update([2]);
                    hash.update((text.len() as u64).to_le_bytes());
                    hash.update(text.as_bytes());
                }
            }
        }
        let hash = hash.finalize();
        let mut carry = 0u128;
        for (limb, chunk) in self.sum.iter_mut().zip(hash.chunks_exact(8)) {
            let added = u128::from(*limb)
                + u128::from(u64::from_le_bytes(chunk.try_into().expect("8 bytes")))
                + carry;
            *limb = added as u64;
            carry = added >> 64;
        }
        self.rows += 1;
    }

    fn finish(self) -> TableDigest {
        let bytes: Vec<u8> = self
            .sum
            .iter()
            .rev()
            .flat_map(|limb| limb.to_be_bytes())
            .collect();
        TableDigest {
            rows: self.rows,
            digest: hex::encode(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns() -> Vec<Column> {
        vec![
            Column {
                name: "b".into(),
                kind: ColumnKind::Text,
            },
            Column {
                name: "a".into(),
                kind: ColumnKind::Integer,
            },
        ]
    }

    fn digest_of(rows: &[Vec<Cell>], columns: &[Column]) -> TableDigest {
        let mut sum = RowSum::default();
        for row in rows {
            sum.add(columns, row);
        }
        sum.finish()
    }

    #[test]
    fn a_digest_ignores_the_order_of_rows_and_columns_but_not_a_value() {
        let rows = vec![
            vec![Cell::Text("x".into()), Cell::Integer(1)],
            vec![Cell::Null, Cell::Integer(2)],
        ];
        let forward = digest_of(&rows, &columns());
        let reversed: Vec<Vec<Cell>> = rows.iter().rev().cloned().collect();
        assert_eq!(forward, digest_of(&reversed, &columns()));
        let mut swapped_columns = columns();
        swapped_columns.reverse();
        let swapped_rows: Vec<Vec<Cell>> = rows
            .iter()
            .map(|row| row.iter().rev().cloned().collect())
            .collect();
        assert_eq!(forward, digest_of(&swapped_rows, &swapped_columns));
        assert_eq!(forward.rows, 2);

        let changed = vec![
            vec![Cell::Text("x".into()), Cell::Integer(1)],
            vec![Cell::Text(String::new()), Cell::Integer(2)],
        ];
        assert_ne!(forward.digest, digest_of(&changed, &columns()).digest);
        let as_text = vec![
            vec![Cell::Text("x".into()), Cell::Text("1".into())],
            vec![Cell::Null, Cell::Integer(2)],
        ];
        assert_ne!(forward.digest, digest_of(&as_text, &columns()).digest);
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(quoted("key"), "\"key\"");
        assert_eq!(quoted("a\"b"), "\"a\"\"b\"");
    }
}
