//! The `ratings` and `rating_changes` tables (migration 0014): each account's rating per pool,
//! and every change a rated match made to it, in the order the matches were rated.
//!
//! A match's changes are written in the transaction that ends it ([`record`], called by the
//! append), and only if each of its players' rows still holds the count of rated matches the
//! change was computed from: two matches ending at once with a player in common cannot both
//! be rated from the same rating. The one that finds a row moved writes nothing (its append is
//! refused) and is rated again from the new rating.

use std::collections::HashMap;

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::{Db, StoreError, query};
use crate::ratings::{RatedResult, Rating};
use crate::rules::{Preset, Seat};

/// A rated match's end: the pool and each seat's change.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingUpdate {
    /// The pool the match counts in.
    pub pool: Preset,
    /// One change per seat, in seat order.
    pub changes: Vec<RatingChange>,
}

impl RatingUpdate {
    /// What the update did to `seat`, as the API shows it.
    pub fn result_of(&self, seat: Seat) -> Option<RatedResult> {
        let change = self.changes.iter().find(|change| change.seat == seat)?;
        Some(RatedResult::new(
            self.pool.name(),
            change.place,
            change.before.rating,
            change.after,
        ))
    }
}

/// One seat's rating change.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    /// The seat's account.
    pub account_id: String,
    /// The seat.
    pub seat: Seat,
    /// Its place, 1 the best.
    pub place: u8,
    /// The rating the change was computed from, and the count of rated matches behind it
    /// (0 for a player's first rated match in the pool: no row yet).
    pub before: Standing,
    /// The rating after the match.
    pub after: Rating,
}

/// A player's rating in a pool and the rated matches behind it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standing {
    /// The rating.
    pub rating: Rating,
    /// Rated matches behind it: the row's version.
    pub matches: i64,
}

/// An account's rating in one pool, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolRating {
    /// The account.
    pub account_id: String,
    /// The pool.
    pub pool: Preset,
    /// The rating and its count.
    pub standing: Standing,
    /// When it last changed (Unix seconds).
    pub updated_at: i64,
}

/// One player on a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardEntry {
    /// The account.
    pub account_id: String,
    /// Its username.
    pub username: String,
    /// Its rating and count.
    pub standing: Standing,
    /// μ − 3σ as the database computed it: the board's order, and the cursor's key.
    pub ordinal: f64,
}

/// Where a leaderboard's page ends: the last entry's μ − 3σ and account.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardCursor {
    /// μ − 3σ of the last entry.
    pub ordinal: f64,
    /// Its account id.
    pub account_id: String,
}

/// One stored change, as the history and the rebuild read it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredChange {
    /// Its place in the order matches were rated.
    pub id: i64,
    /// The rated match.
    pub match_id: String,
    /// The player.
    pub account_id: String,
    /// The pool.
    pub pool: Preset,
    /// The player's seat in the match.
    pub seat: Seat,
    /// The player's place.
    pub place: u8,
    /// Before the match.
    pub before: Rating,
    /// After it.
    pub after: Rating,
    /// When it was rated (Unix seconds).
    pub at: i64,
}

/// A change's columns, of `rating_changes c`.
const CHANGE_COLUMNS: &str = "c.id, c.match_id, c.account_id, c.pool, c.seat, c.place, c.mu_before, \
     c.sigma_before, c.mu_after, c.sigma_after, c.created_at";

impl Db {
    /// Every rating of any of `accounts`, by account and pool (the seats of a page of
    /// summaries).
    pub async fn standings_of(
        &self,
        accounts: &[&str],
    ) -> Result<HashMap<(String, Preset), Standing>, StoreError> {
        if accounts.is_empty() {
            return Ok(HashMap::new());
        }
        let placeholders: Vec<String> = (1..=accounts.len()).map(|i| format!("${i}")).collect();
        let statement = format!(
            "SELECT account_id, pool, mu, sigma, matches FROM ratings WHERE account_id IN ({})",
            placeholders.join(", ")
        );
        let rows = self
            .read(async |connection| {
                let mut select = query(&statement);
                for account in accounts {
                    select = select.bind(*account);
                }
                select.fetch_all(connection).await
            })
            .await?;
        rows.iter()
            .map(|row| Ok(((row.try_get("account_id")?, pool(row)?), standing(row)?)))
            .collect()
    }

    /// Every rating of an account, one per pool it has played a rated match in.
    pub async fn ratings_of(&self, account_id: &str) -> Result<Vec<PoolRating>, StoreError> {
        let rows = self
            .single(async |connection| {
                query(
                    "SELECT account_id, pool, mu, sigma, matches, updated_at FROM ratings \
                     WHERE account_id = $1 ORDER BY pool",
                )
                .bind(account_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter().map(pool_rating).collect()
    }

    /// A page of `pool`'s leaderboard: its players (established ones, or with `provisional`
    /// those whose σ is above `provisional_sigma`) by μ − 3σ, best first, after `cursor`, at
    /// most `limit`; and how many players the board holds before the page.
    pub async fn leaderboard(
        &self,
        pool: Preset,
        provisional: bool,
        provisional_sigma: f64,
        cursor: Option<&BoardCursor>,
        limit: i64,
    ) -> Result<(Vec<BoardEntry>, i64), StoreError> {
        let sigma = if provisional {
            "r.sigma > $2"
        } else {
            "r.sigma <= $2"
        };
        let board = format!(
            "FROM ratings r JOIN accounts a ON a.id = r.account_id \
             WHERE r.pool = $1 AND {sigma} AND a.deleted_at IS NULL"
        );
        let page = format!(
            "SELECT r.account_id, a.username, r.mu, r.sigma, r.matches, \
             (r.mu - 3 * r.sigma) AS ordinal {board} \
             AND ((r.mu - 3 * r.sigma) < $3 OR ((r.mu - 3 * r.sigma) = $3 AND r.account_id > $4)) \
             ORDER BY (r.mu - 3 * r.sigma) DESC, r.account_id LIMIT $5"
        );
        let ahead = format!(
            "SELECT COUNT(*) {board} \
             AND ((r.mu - 3 * r.sigma) > $3 OR ((r.mu - 3 * r.sigma) = $3 AND r.account_id <= $4))"
        );
        // Before the first page: after a place above everyone.
        let (ordinal, after) = cursor.map_or((f64::MAX, ""), |cursor| {
            (cursor.ordinal, cursor.account_id.as_str())
        });
        self.read(async |connection| {
            let rows = query(&page)
                .bind(pool.name())
                .bind(provisional_sigma)
                .bind(ordinal)
                .bind(after)
                .bind(limit)
                .fetch_all(&mut *connection)
                .await?;
            let before: i64 = if cursor.is_some() {
                query(&ahead)
                    .bind(pool.name())
                    .bind(provisional_sigma)
                    .bind(ordinal)
                    .bind(after)
                    .fetch_one(&mut *connection)
                    .await?
                    .try_get(0)?
            } else {
                0
            };
            let entries = rows
                .iter()
                .map(|row| {
                    Ok(BoardEntry {
                        account_id: row.try_get("account_id")?,
                        username: row.try_get("username")?,
                        standing: standing(row)?,
                        ordinal: row.try_get("ordinal")?,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            Ok::<_, StoreError>((entries, before))
        })
        .await
    }

    /// Every rating of every account (the rebuild compares them all).
    pub async fn all_ratings(&self) -> Result<Vec<PoolRating>, StoreError> {
        let rows = self
            .single(async |connection| {
                query(
                    "SELECT account_id, pool, mu, sigma, matches, updated_at FROM ratings \
                     ORDER BY account_id, pool",
                )
                .fetch_all(connection)
                .await
            })
            .await?;
        rows.iter().map(pool_rating).collect()
    }

    /// An account's newest changes in `pool` that `reader` may see, newest first, at most
    /// `limit`: those of public matches, and of private ones `reader` sat in (a private
    /// match's row would tell a stranger who played whom, and when, by its time and places).
    pub async fn rating_history(
        &self,
        account_id: &str,
        pool: Preset,
        reader: Option<&str>,
        limit: i64,
    ) -> Result<Vec<StoredChange>, StoreError> {
        let statement = format!(
            "SELECT {CHANGE_COLUMNS} FROM rating_changes c JOIN matches m ON m.id = c.match_id \
             WHERE c.account_id = $1 AND c.pool = $2 AND (m.visibility = 'public' OR EXISTS \
             (SELECT 1 FROM match_seats s WHERE s.match_id = c.match_id AND s.account_id = $3)) \
             ORDER BY c.id DESC LIMIT $4"
        );
        let rows = self
            .read(async |connection| {
                query(&statement)
                    .bind(account_id)
                    .bind(pool.name())
                    .bind(reader)
                    .bind(limit)
                    .fetch_all(connection)
                    .await
            })
            .await?;
        rows.iter().map(stored_change).collect()
    }

    /// The finished rated matches (each must have been rated).
    pub async fn finished_rated_matches(&self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = self
            .read(async |connection| {
                super::query_as(
                    "SELECT id FROM matches WHERE rating_pool IS NOT NULL AND status = 'finished' \
                     ORDER BY id",
                )
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Every change after `after` (an id), in the order the matches were rated, at most
    /// `limit`: the rebuild reads them all by pages.
    pub async fn rating_changes_after(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredChange>, StoreError> {
        let statement = format!(
            "SELECT {CHANGE_COLUMNS} FROM rating_changes c WHERE c.id > $1 ORDER BY c.id LIMIT $2"
        );
        let rows = self
            .read(async |connection| {
                query(&statement)
                    .bind(after)
                    .bind(limit)
                    .fetch_all(connection)
                    .await
            })
            .await?;
        rows.iter().map(stored_change).collect()
    }
}

/// Writes a rated match's changes inside the transaction that ends it: `false`, writing
/// nothing of them, when a player's rating moved since the change was computed (the caller
/// rolls back). Rows are written in account order, so that two such transactions lock them
/// in the same order and cannot deadlock.
pub(super) async fn record(
    connection: &mut AnyConnection,
    match_id: &str,
    update: &RatingUpdate,
    now: i64,
) -> Result<bool, StoreError> {
    let pool = update.pool.name();
    let mut changes: Vec<&RatingChange> = update.changes.iter().collect();
    changes.sort_by(|one, other| one.account_id.cmp(&other.account_id));
    for change in &changes {
        let written = if change.before.matches == 0 {
            query(
                "INSERT INTO ratings (account_id, pool, mu, sigma, matches, updated_at) \
                 VALUES ($1, $2, $3, $4, 1, $5) ON CONFLICT (account_id, pool) DO NOTHING",
            )
            .bind(&change.account_id)
            .bind(pool)
            .bind(change.after.mu)
            .bind(change.after.sigma)
            .bind(now)
            .execute(&mut *connection)
            .await?
        } else {
            query(
                "UPDATE ratings SET mu = $1, sigma = $2, matches = matches + 1, updated_at = $3 \
                 WHERE account_id = $4 AND pool = $5 AND matches = $6",
            )
            .bind(change.after.mu)
            .bind(change.after.sigma)
            .bind(now)
            .bind(&change.account_id)
            .bind(pool)
            .bind(change.before.matches)
            .execute(&mut *connection)
            .await?
        };
        if written.rows_affected() != 1 {
            return Ok(false);
        }
    }
    // In seat order: the order the rebuild reads a match's changes in.
    for change in &update.changes {
        query(
            "INSERT INTO rating_changes (match_id, account_id, pool, seat, place, mu_before, \
             sigma_before, mu_after, sigma_after, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(match_id)
        .bind(&change.account_id)
        .bind(pool)
        .bind(i64::from(change.seat))
        .bind(i64::from(change.place))
        .bind(change.before.rating.mu)
        .bind(change.before.rating.sigma)
        .bind(change.after.mu)
        .bind(change.after.sigma)
        .bind(now)
        .execute(&mut *connection)
        .await?;
    }
    Ok(true)
}

fn standing(row: &AnyRow) -> Result<Standing, StoreError> {
    Ok(Standing {
        rating: Rating {
            mu: row.try_get("mu")?,
            sigma: row.try_get("sigma")?,
        },
        matches: row.try_get("matches")?,
    })
}

fn pool(row: &AnyRow) -> Result<Preset, StoreError> {
    let name: String = row.try_get("pool")?;
    Preset::from_name(&name).ok_or_else(|| StoreError::Corrupt(format!("rating pool {name}")))
}

fn pool_rating(row: &AnyRow) -> Result<PoolRating, StoreError> {
    Ok(PoolRating {
        account_id: row.try_get("account_id")?,
        pool: pool(row)?,
        standing: standing(row)?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn stored_change(row: &AnyRow) -> Result<StoredChange, StoreError> {
    let small = |column: &str| -> Result<u8, StoreError> {
        let value: i64 = row.try_get(column)?;
        u8::try_from(value).map_err(|_| StoreError::Corrupt(format!("{column} = {value}")))
    };
    Ok(StoredChange {
        id: row.try_get("id")?,
        match_id: row.try_get("match_id")?,
        account_id: row.try_get("account_id")?,
        pool: pool(row)?,
        seat: small("seat")?,
        place: small("place")?,
        before: Rating {
            mu: row.try_get("mu_before")?,
            sigma: row.try_get("sigma_before")?,
        },
        after: Rating {
            mu: row.try_get("mu_after")?,
            sigma: row.try_get("sigma_after")?,
        },
        at: row.try_get("created_at")?,
    })
}
