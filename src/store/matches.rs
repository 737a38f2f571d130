//! The `matches`, `match_seats`, `match_secrets`, `match_events` and `idempotency_keys` tables.

use std::collections::HashMap;

use sqlx::AnyConnection;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, StoreError};

/// A match's row: its setup and the read model kept with its log.
#[derive(Clone, Debug)]
pub struct MatchRow {
    /// UUID.
    pub id: String,
    /// Creator's account id.
    pub created_by: String,
    /// `public` or `private`.
    pub visibility: String,
    /// Private matches only.
    pub invite_code: Option<String>,
    /// JSON of the rules.
    pub rules: String,
    /// Number of seats.
    pub seats: i64,
    /// Whether forced `end_turn`s are taken automatically.
    pub auto_end_turn: bool,
    /// `open`, `playing`, `finished`.
    pub status: String,
    /// Events in the log.
    pub version: i64,
    /// Hex SHA-256 of the secret.
    pub commitment: String,
    /// The shuffle algorithm's version.
    pub shuffle_version: i64,
    /// Whose turn, while playing.
    pub turn_seat: Option<i64>,
    /// Since when (Unix seconds).
    pub turn_since: Option<i64>,
    /// JSON array of winners, once finished.
    pub winners: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds.
    pub updated_at: i64,
}

/// A taken seat.
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// Seat number.
    pub seat: i64,
    /// Who sits there.
    pub account_id: String,
    /// Their username.
    pub username: String,
    /// Their client seed (`""` for none).
    pub client_seed: String,
}

/// One stored event.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    /// 1-based position; the match's version after it.
    pub seq: i64,
    /// The event's canonical JSON.
    pub event: String,
    /// Hex hash chaining it to the previous event.
    pub hash: String,
}

/// What an accepted move changes in the read model.
#[derive(Clone, Debug)]
pub struct ReadModel {
    /// New status.
    pub status: &'static str,
    /// Whose turn now.
    pub turn_seat: Option<i64>,
    /// Whether the turn changed hands (resets `turn_since`).
    pub turn_changed: bool,
    /// Winners JSON, when finished.
    pub winners: Option<String>,
}

/// One accepted move's writes: its events, the read model after them, a kept response.
#[derive(Debug)]
pub struct Append {
    /// The match.
    pub match_id: String,
    /// The version the move was decided at.
    pub expected_version: i64,
    /// Its events, numbered from `expected_version + 1`.
    pub events: Vec<StoredEvent>,
    /// The read model after them.
    pub model: ReadModel,
    /// A response to keep: (account, key, request hash, status, body).
    pub idempotency: Option<(String, String, String, i64, String)>,
    /// Unix seconds.
    pub now: i64,
}

/// A response stored under an idempotency key.
#[derive(Clone, Debug)]
pub struct StoredResponse {
    /// Hex SHA-256 of the request body it answered.
    pub request_hash: String,
    /// HTTP status.
    pub status: i64,
    /// Body.
    pub response: String,
}

const MATCH_COLUMNS: &str = "id, created_by, visibility, invite_code, rules, seats, auto_end_turn, status, version, \
                             commitment, shuffle_version, turn_seat, turn_since, winners, created_at, updated_at";

fn match_from_row(row: &AnyRow) -> Result<MatchRow, sqlx::Error> {
    Ok(MatchRow {
        id: row.try_get("id")?,
        created_by: row.try_get("created_by")?,
        visibility: row.try_get("visibility")?,
        invite_code: row.try_get("invite_code")?,
        rules: row.try_get("rules")?,
        seats: row.try_get("seats")?,
        auto_end_turn: row.try_get::<i64, _>("auto_end_turn")? != 0,
        status: row.try_get("status")?,
        version: row.try_get("version")?,
        commitment: row.try_get("commitment")?,
        shuffle_version: row.try_get("shuffle_version")?,
        turn_seat: row.try_get("turn_seat")?,
        turn_since: row.try_get("turn_since")?,
        winners: row.try_get("winners")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Which matches a listing shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Open public matches, newest first.
    Lobby,
    /// The caller's matches, newest first.
    Mine,
    /// Matches waiting for the caller's move, longest-waiting first.
    Inbox,
}

impl Db {
    /// Creates a match with its secret and the creator in seat 0.
    pub async fn insert_match(
        &self,
        row: &MatchRow,
        secret: &str,
        client_seed: &str,
    ) -> Result<(), StoreError> {
        let mut transaction = self.pool().begin().await?;
        sqlx::query(&format!(
            "INSERT INTO matches ({MATCH_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        ))
        .bind(&row.id)
        .bind(&row.created_by)
        .bind(&row.visibility)
        .bind(&row.invite_code)
        .bind(&row.rules)
        .bind(row.seats)
        .bind(i64::from(row.auto_end_turn))
        .bind(&row.status)
        .bind(row.version)
        .bind(&row.commitment)
        .bind(row.shuffle_version)
        .bind(row.turn_seat)
        .bind(row.turn_since)
        .bind(&row.winners)
        .bind(row.created_at)
        .bind(row.updated_at)
        .execute(&mut *transaction)
        .await?;
        sqlx::query("INSERT INTO match_secrets (match_id, secret) VALUES ($1, $2)")
            .bind(&row.id)
            .bind(secret)
            .execute(&mut *transaction)
            .await?;
        sqlx::query("INSERT INTO match_seats (match_id, seat, account_id, client_seed, joined_at) VALUES ($1, 0, $2, $3, $4)")
            .bind(&row.id)
            .bind(&row.created_by)
            .bind(client_seed)
            .bind(row.created_at)
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    /// The match with this id.
    pub async fn match_by_id(&self, id: &str) -> Result<Option<MatchRow>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.as_ref().map(match_from_row).transpose()?)
    }

    /// The match with this id and the seat `account_id` holds in it, in one round trip.
    pub async fn match_and_seat(
        &self,
        id: &str,
        account_id: &str,
    ) -> Result<Option<(MatchRow, Option<i64>)>, StoreError> {
        let columns = MATCH_COLUMNS
            .split(", ")
            .map(|column| format!("m.{column}"))
            .collect::<Vec<_>>()
            .join(", ");
        let row = sqlx::query(&format!(
            "SELECT {columns}, s.seat AS caller_seat FROM matches m \
             LEFT JOIN match_seats s ON s.match_id = m.id AND s.account_id = $2 WHERE m.id = $1"
        ))
        .bind(id)
        .bind(account_id)
        .fetch_optional(self.pool())
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some((match_from_row(&row)?, row.try_get("caller_seat")?)))
    }

    /// The taken seats of a match, by seat.
    pub async fn seats(&self, match_id: &str) -> Result<Vec<SeatRow>, StoreError> {
        let mut seats = self.seats_of(&[match_id.to_owned()]).await?;
        Ok(seats.remove(match_id).unwrap_or_default())
    }

    /// The taken seats of several matches (a page of a listing), in one query.
    pub async fn seats_of(
        &self,
        match_ids: &[String],
    ) -> Result<HashMap<String, Vec<SeatRow>>, StoreError> {
        let mut by_match: HashMap<String, Vec<SeatRow>> = HashMap::new();
        if match_ids.is_empty() {
            return Ok(by_match);
        }
        let placeholders: Vec<String> = (1..=match_ids.len())
            .map(|index| format!("${index}"))
            .collect();
        let sql = format!(
            "SELECT s.match_id, s.seat, s.account_id, a.username, s.client_seed FROM match_seats s \
             JOIN accounts a ON a.id = s.account_id WHERE s.match_id IN ({}) ORDER BY s.match_id, s.seat",
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql);
        for id in match_ids {
            query = query.bind(id);
        }
        for row in query.fetch_all(self.pool()).await? {
            by_match
                .entry(row.try_get("match_id")?)
                .or_default()
                .push(SeatRow {
                    seat: row.try_get("seat")?,
                    account_id: row.try_get("account_id")?,
                    username: row.try_get("username")?,
                    client_seed: row.try_get("client_seed")?,
                });
        }
        Ok(by_match)
    }

    /// The match's secret (hex).
    pub async fn match_secret(&self, match_id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT secret FROM match_secrets WHERE match_id = $1")
            .bind(match_id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|row| row.try_get("secret")).transpose()?)
    }

    /// Takes a seat in an open match; [`StoreError::Conflict`] if it (or the player) is already seated.
    pub async fn take_seat(
        &self,
        match_id: &str,
        seat: i64,
        account_id: &str,
        client_seed: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO match_seats (match_id, seat, account_id, client_seed, joined_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(match_id)
            .bind(seat)
            .bind(account_id)
            .bind(client_seed)
            .bind(now)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Leaves an open match: the seat is freed and later seats move down one; a match left
    /// empty is deleted. Returns whether the player was seated.
    pub async fn leave_seat(&self, match_id: &str, account_id: &str) -> Result<bool, StoreError> {
        let mut transaction = self.pool().begin().await?;
        let seat: Option<i64> =
            sqlx::query("SELECT seat FROM match_seats WHERE match_id = $1 AND account_id = $2")
                .bind(match_id)
                .bind(account_id)
                .fetch_optional(&mut *transaction)
                .await?
                .map(|row| row.try_get("seat"))
                .transpose()?;
        let Some(seat) = seat else { return Ok(false) };
        sqlx::query("DELETE FROM match_seats WHERE match_id = $1 AND seat = $2")
            .bind(match_id)
            .bind(seat)
            .execute(&mut *transaction)
            .await?;
        // One row at a time, lowest first, so (match_id, seat) stays unique throughout.
        let later: Vec<i64> = sqlx::query(
            "SELECT seat FROM match_seats WHERE match_id = $1 AND seat > $2 ORDER BY seat",
        )
        .bind(match_id)
        .bind(seat)
        .fetch_all(&mut *transaction)
        .await?
        .iter()
        .map(|row| row.try_get("seat"))
        .collect::<Result<_, _>>()?;
        for taken in later {
            sqlx::query("UPDATE match_seats SET seat = $1 WHERE match_id = $2 AND seat = $3")
                .bind(taken - 1)
                .bind(match_id)
                .bind(taken)
                .execute(&mut *transaction)
                .await?;
        }
        let left: i64 = sqlx::query("SELECT COUNT(*) AS n FROM match_seats WHERE match_id = $1")
            .bind(match_id)
            .fetch_one(&mut *transaction)
            .await?
            .try_get("n")?;
        if left == 0 {
            sqlx::query("DELETE FROM matches WHERE id = $1")
                .bind(match_id)
                .execute(&mut *transaction)
                .await?;
        }
        transaction.commit().await?;
        Ok(true)
    }

    /// Events with `seq > after`, at most `limit`, in order.
    pub async fn events(
        &self,
        match_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query("SELECT seq, event, hash FROM match_events WHERE match_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")
            .bind(match_id)
            .bind(after)
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|row| {
                Ok(StoredEvent {
                    seq: row.try_get("seq")?,
                    event: row.try_get("event")?,
                    hash: row.try_get("hash")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// Appends events and updates the read model atomically, if the match is still at
    /// `expected_version`. Returns `false` (writing nothing) when another writer got there first.
    /// On PostgreSQL concurrent appends share a statement (see [`super::batch`]).
    pub async fn append_events(&self, append: Append) -> Result<bool, StoreError> {
        match self.batcher() {
            Some(batcher) => batcher.append(append).await,
            None => self.append_alone(&append).await,
        }
    }

    /// One append on its own: a transaction on SQLite, a single statement on PostgreSQL.
    pub(super) async fn append_alone(&self, append: &Append) -> Result<bool, StoreError> {
        if self.backend() == super::Backend::Postgres {
            return self.append_in_one_statement(append).await;
        }
        let mut transaction = self.pool().begin().await?;
        // A unique key refusing a write (a lost race on `seq`, an idempotency key already
        // kept) is a refusal like a stale version: nothing is written.
        match write_append(&mut transaction, append).await {
            Ok(true) => {
                transaction.commit().await?;
                Ok(true)
            }
            Ok(false) | Err(StoreError::Conflict(_)) => {
                transaction.rollback().await?;
                Ok(false)
            }
            Err(other) => Err(other),
        }
    }

    /// PostgreSQL: the same append as one statement (data-modifying CTEs are atomic), so an
    /// accepted move costs one round trip instead of a transaction's five.
    async fn append_in_one_statement(&self, append: &Append) -> Result<bool, StoreError> {
        let Append {
            match_id,
            expected_version,
            events,
            model,
            idempotency,
            now,
        } = append;
        let (expected_version, now) = (*expected_version, *now);
        let new_version = expected_version + events.len() as i64;
        // $1 version, $2 status, $3 turn seat, $4 turn changed, $5 now, $6 winners, $7 id,
        // $8 expected version; then 3 per event; then 5 for idempotency.
        let mut sql = String::from(
            "WITH updated AS (UPDATE matches SET version = $1, status = $2, turn_seat = $3, \
             turn_since = CASE WHEN $4 = 1 THEN $5 ELSE turn_since END, winners = $6, updated_at = $5 \
             WHERE id = $7 AND version = $8 RETURNING id), \
             inserted AS (INSERT INTO match_events (match_id, seq, event, hash, created_at) \
             SELECT updated.id, v.seq, v.event, v.hash, $5 FROM updated, (VALUES ",
        );
        let mut next = 9;
        for index in 0..events.len() {
            if index > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!(
                "(${}::BIGINT, ${}::TEXT, ${}::TEXT)",
                next,
                next + 1,
                next + 2
            ));
            next += 3;
        }
        sql.push_str(") AS v (seq, event, hash) RETURNING seq)");
        if idempotency.is_some() {
            sql.push_str(&format!(
                ", kept AS (INSERT INTO idempotency_keys (account_id, match_id, key, request_hash, status, response, created_at) \
                 SELECT ${}, updated.id, ${}, ${}, ${}, ${}, $5 FROM updated RETURNING key)",
                next,
                next + 1,
                next + 2,
                next + 3,
                next + 4
            ));
        }
        sql.push_str(
            " SELECT (SELECT COUNT(*) FROM updated) AS updated, (SELECT COUNT(*) FROM inserted) AS inserted",
        );
        if idempotency.is_some() {
            sql.push_str(", (SELECT COUNT(*) FROM kept) AS kept");
        }
        let mut query = sqlx::query(&sql)
            .bind(new_version)
            .bind(model.status)
            .bind(model.turn_seat)
            .bind(i64::from(model.turn_changed))
            .bind(now)
            .bind(&model.winners)
            .bind(match_id)
            .bind(expected_version);
        for event in events {
            query = query.bind(event.seq).bind(&event.event).bind(&event.hash);
        }
        if let Some((account_id, key, request_hash, status, response)) = idempotency {
            query = query
                .bind(account_id)
                .bind(key)
                .bind(request_hash)
                .bind(status)
                .bind(response);
        }
        match query.fetch_one(self.pool()).await.map_err(StoreError::from) {
            Ok(row) => Ok(row.try_get::<i64, _>("updated")? == 1),
            Err(StoreError::Conflict(_)) => Ok(false),
            Err(other) => Err(other),
        }
    }

    /// The response stored under an idempotency key.
    pub async fn stored_response(
        &self,
        account_id: &str,
        match_id: &str,
        key: &str,
    ) -> Result<Option<StoredResponse>, StoreError> {
        let row = sqlx::query(
            "SELECT request_hash, status, response FROM idempotency_keys WHERE account_id = $1 AND match_id = $2 AND key = $3",
        )
        .bind(account_id)
        .bind(match_id)
        .bind(key)
        .fetch_optional(self.pool())
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(StoredResponse {
            request_hash: row.try_get("request_hash")?,
            status: row.try_get("status")?,
            response: row.try_get("response")?,
        }))
    }

    /// A page of matches: `(sort key, id)` strictly after `cursor`, at most `limit`.
    pub async fn list_matches(
        &self,
        listing: Listing,
        account_id: Option<&str>,
        cursor: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<MatchRow>, StoreError> {
        let columns = MATCH_COLUMNS
            .split(", ")
            .map(|column| format!("m.{column}"))
            .collect::<Vec<_>>()
            .join(", ");
        // Newest first for the lobby and "mine"; longest-waiting first for the inbox.
        let (filter, order, after) = match listing {
            Listing::Lobby => (
                "m.status = 'open' AND m.visibility = 'public'",
                "m.created_at DESC, m.id DESC",
                "(m.created_at < $2 OR (m.created_at = $2 AND m.id < $3))",
            ),
            Listing::Mine => (
                "EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id AND s.account_id = $1)",
                "m.created_at DESC, m.id DESC",
                "(m.created_at < $2 OR (m.created_at = $2 AND m.id < $3))",
            ),
            Listing::Inbox => (
                "m.status = 'playing' AND EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id \
                 AND s.account_id = $1 AND s.seat = m.turn_seat)",
                "m.turn_since ASC, m.id ASC",
                "(m.turn_since > $2 OR (m.turn_since = $2 AND m.id > $3))",
            ),
        };
        let cursor_filter = if cursor.is_some() {
            after
        } else {
            "($2 = $2 AND $3 = $3)"
        };
        let sql = format!(
            "SELECT {columns} FROM matches m WHERE ($1 = $1) AND {filter} AND {cursor_filter} ORDER BY {order} LIMIT $4"
        );
        let (sort_key, id) = cursor.unwrap_or((0, String::new()));
        let rows = sqlx::query(&sql)
            .bind(account_id.unwrap_or(""))
            .bind(sort_key)
            .bind(id)
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(match_from_row)
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }
}

/// SQLite: an append's writes inside the caller's transaction; `false` when the match is not
/// at the expected version.
async fn write_append(connection: &mut AnyConnection, append: &Append) -> Result<bool, StoreError> {
    let Append {
        match_id,
        expected_version,
        events,
        model,
        idempotency,
        now,
    } = append;
    let (expected_version, now) = (*expected_version, *now);
    let new_version = expected_version + events.len() as i64;
    let updated = sqlx::query(
            "UPDATE matches SET version = $1, status = $2, turn_seat = $3, \
             turn_since = CASE WHEN $4 = 1 THEN $5 ELSE turn_since END, winners = $6, updated_at = $5 \
             WHERE id = $7 AND version = $8",
        )
        .bind(new_version)
        .bind(model.status)
        .bind(model.turn_seat)
        .bind(i64::from(model.turn_changed))
        .bind(now)
        .bind(&model.winners)
        .bind(match_id)
        .bind(expected_version)
        .execute(&mut *connection)
        .await?;
    if updated.rows_affected() != 1 {
        return Ok(false);
    }
    // One multi-row INSERT: the primary key (match_id, seq) refuses a lost race.
    let mut insert =
        String::from("INSERT INTO match_events (match_id, seq, event, hash, created_at) VALUES ");
    for index in 0..events.len() {
        let base = index * 5;
        if index > 0 {
            insert.push_str(", ");
        }
        insert.push_str(&format!(
            "(${}, ${}, ${}, ${}, ${})",
            base + 1,
            base + 2,
            base + 3,
            base + 4,
            base + 5
        ));
    }
    let mut query = sqlx::query(&insert);
    for event in events {
        query = query
            .bind(match_id)
            .bind(event.seq)
            .bind(&event.event)
            .bind(&event.hash)
            .bind(now);
    }
    query.execute(&mut *connection).await?;
    if let Some((account_id, key, request_hash, status, response)) = idempotency {
        sqlx::query(
                "INSERT INTO idempotency_keys (account_id, match_id, key, request_hash, status, response, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(account_id)
            .bind(match_id)
            .bind(key)
            .bind(request_hash)
            .bind(status)
            .bind(response)
            .bind(now)
            .execute(&mut *connection)
            .await?;
    }
    Ok(true)
}
