//! The `matches`, `match_seats`, `match_secrets` and `match_events` tables: creating a match,
//! and reading its row, seats, secret and log (its rows laid out as `log_rows.rs` says).

use std::collections::HashMap;
use std::sync::LazyLock;

use sqlx::{Any, Row, Transaction};

use super::append::Append;
use super::log_rows::{LOG_ROW_COLUMNS, events_of};
use super::rows::{
    ALIASED_MATCH_COLUMNS, MATCH_COLUMNS, MatchRow, SeatRow, StoredEvent, match_from_row,
    seat_from_row, small,
};
use super::{Backend, Db, SeatOf, StoreError};
use crate::model::{Level, Named, Outcome};
use crate::rules::{Preset, Seat};
use crate::store::query;

/// A match's log rows, by `match_id = $1`; a query adds its own conditions and order.
static SELECT_LOG_ROWS: LazyLock<String> =
    LazyLock::new(|| format!("SELECT {LOG_ROW_COLUMNS} FROM match_events WHERE match_id = $1"));

impl Db {
    /// Creates a match with its secret and its first seats (the creator in seat 0, and any
    /// bots); a table they fill starts at once, with `start` written in the same transaction.
    pub async fn insert_match(&self, new: &NewMatch<'_>) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            insert_in(&mut transaction, self.backend(), new).await?;
            transaction.commit().await?;
            if let Some(start) = new.start {
                self.told.record(&start.notifications);
            }
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The match with this id.
    pub async fn match_by_id(&self, id: &str) -> Result<Option<MatchRow>, StoreError> {
        let row = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {MATCH_COLUMNS} FROM matches WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        row.as_ref().map(match_from_row).transpose()
    }

    /// The match's version, or `None` for no such match: the cheapest question to ask.
    pub async fn match_version(&self, id: &str) -> Result<Option<i64>, StoreError> {
        self.value_by_id("SELECT version FROM matches WHERE id = $1", id)
            .await
    }

    /// The match with this id, the seat `account_id` holds in it and, in a rematch waiting for
    /// them, the seat kept for them; in one round trip.
    pub async fn match_and_seat(
        &self,
        id: &str,
        account_id: Option<&str>,
    ) -> Result<Option<(MatchRow, SeatOf)>, StoreError> {
        let columns = &*ALIASED_MATCH_COLUMNS;
        let row = self
            .read(async |connection| {
                query(&format!(
                    "SELECT {columns}, s.seat AS taken_seat, r.seat AS kept_seat FROM matches m \
             LEFT JOIN match_seats s ON s.match_id = m.id AND s.account_id = $2 \
             LEFT JOIN match_reservations r ON r.match_id = m.id AND r.account_id = $2 \
             WHERE m.id = $1"
                ))
                .bind(id)
                .bind(account_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        let Some(row) = row else { return Ok(None) };
        let seat = |column| {
            row.try_get::<Option<i64>, _>(column)?
                .map(|seat| small(seat, "seat"))
                .transpose()
        };
        let seat_of = SeatOf {
            taken: seat("taken_seat")?,
            kept: seat("kept_seat")?,
        };
        Ok(Some((match_from_row(&row)?, seat_of)))
    }

    /// The taken seats of a match, in seat order.
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
            "SELECT s.match_id, s.seat, s.account_id, a.username, s.client_seed, s.bot_level FROM match_seats s \
             JOIN accounts a ON a.id = s.account_id WHERE s.match_id IN ({}) ORDER BY s.match_id, s.seat",
            placeholders.join(", ")
        );
        let mut query = query(&sql);
        for id in match_ids {
            query = query.bind(id);
        }
        for row in self
            .single(async |connection| query.fetch_all(connection).await)
            .await?
        {
            by_match
                .entry(row.try_get("match_id")?)
                .or_default()
                .push(seat_from_row(&row)?);
        }
        Ok(by_match)
    }

    /// The open matches (not started) `account_id` has a seat in.
    pub async fn open_matches_of(&self, account_id: &str) -> Result<Vec<String>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT s.match_id FROM match_seats s JOIN matches m ON m.id = s.match_id \
                     WHERE s.account_id = $1 AND m.status = 'open'",
                )
                .bind(account_id)
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("match_id"))
            .collect::<Result<_, _>>()?)
    }

    /// Deleted accounts that still hold a seat in a match that has not started: deletions a
    /// stopped process left half done.
    pub async fn deleted_but_seated(&self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .single(async |connection| {
                query(
                    "SELECT DISTINCT s.account_id FROM match_seats s \
                     JOIN matches m ON m.id = s.match_id JOIN accounts a ON a.id = s.account_id \
                     WHERE m.status = 'open' AND a.deleted_at IS NOT NULL",
                )
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("account_id"))
            .collect::<Result<_, _>>()?)
    }

    /// The match's secret (hex).
    pub async fn match_secret(&self, match_id: &str) -> Result<Option<String>, StoreError> {
        self.value_by_id(
            "SELECT secret FROM match_secrets WHERE match_id = $1",
            match_id,
        )
        .await
    }

    /// The one value that `sql`, a query of one column by one id, finds, if any.
    async fn value_by_id<T>(&self, sql: &str, id: &str) -> Result<Option<T>, StoreError>
    where
        T: for<'r> sqlx::Decode<'r, Any> + sqlx::Type<Any>,
    {
        let row = self
            .read(async |connection| query(sql).bind(id).fetch_optional(connection).await)
            .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }

    /// Events with `seq > after`, at most `limit`, in order.
    pub async fn events(
        &self,
        match_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        // A row is keyed by its last event, and holds one event at least: the first row past
        // `after` ends past it, so `limit` rows hold `limit` events past it (or all there are).
        let sql = format!("{} AND seq > $2 ORDER BY seq LIMIT $3", *SELECT_LOG_ROWS);
        let query = query(&sql).bind(match_id).bind(after).bind(limit);
        let mut events = self.stored_events(query).await?;
        events.retain(|event| event.seq > after);
        events.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(events)
    }

    /// A match's events written after the time `since` (seconds), in log order: what a window
    /// of time holds of the log, however busy the table was.
    pub async fn events_written_after(
        &self,
        match_id: &str,
        since: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        // An append's events share its row and its time.
        let sql = format!("{} AND created_at > $2 ORDER BY seq", *SELECT_LOG_ROWS);
        let query = query(&sql).bind(match_id).bind(since);
        self.stored_events(query).await
    }

    /// The events of the rows a query of [`SELECT_LOG_ROWS`] finds, in its order.
    async fn stored_events<'q>(
        &self,
        query: sqlx::query::Query<'q, Any, sqlx::any::AnyArguments<'q>>,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = self
            .single(async |connection| query.fetch_all(connection).await)
            .await?;
        let mut events = Vec::with_capacity(rows.len() * 2);
        for row in &rows {
            events_of(row, &mut events)?;
        }
        Ok(events)
    }
}

/// A match to create.
pub struct NewMatch<'a> {
    /// Its row.
    pub row: &'a MatchRow,
    /// Its shuffle secret (hex).
    pub secret: &'a str,
    /// Its first seats: the creator's, and any bots'.
    pub seats: &'a [SeatRow],
    /// Who may take a seat, and where each sits once the table is full (a rematch's plan);
    /// empty: anyone, in the order they come.
    pub plan: &'a [(Seat, String)],
    /// Its first events, when its first seats fill the table.
    pub start: Option<&'a Append>,
}

/// Inserts a new match within `transaction`.
pub(super) async fn insert_in(
    transaction: &mut Transaction<'static, Any>,
    backend: Backend,
    new: &NewMatch<'_>,
) -> Result<(), StoreError> {
    query(&format!(
        "INSERT INTO matches ({MATCH_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)"
    ))
    .bind(&new.row.id)
    .bind(&new.row.created_by)
    .bind(new.row.visibility.name())
    .bind(&new.row.invite_code)
    .bind(serde_json::to_string(&new.row.rules).expect("rules serialise"))
    .bind(i64::from(new.row.seat_count))
    .bind(i64::from(new.row.auto_end_turn))
    .bind(new.row.status.name())
    .bind(new.row.version)
    .bind(&new.row.commitment)
    .bind(i64::from(new.row.shuffle_version))
    .bind(new.row.turn_seat.map(i64::from))
    .bind(new.row.turn_since)
    .bind(
        new.row.winners
            .as_ref()
            .map(|winners| serde_json::to_string(winners).expect("seats serialise")),
    )
    .bind(new.row.created_at)
    .bind(new.row.updated_at)
    .bind(new.row.clock.map(|clock| i64::from(clock.turn_seconds)))
    .bind(new.row.clock.map(|clock| i64::from(clock.bank_seconds)))
    .bind(new.row.on_timeout.name())
    .bind(new.row.deadline)
    .bind(new.row.outcome.map(Outcome::name))
    .bind(
        new.row.final_totals
            .as_ref()
            .map(|totals| serde_json::to_string(totals).expect("totals serialise")),
    )
    .bind(i64::from(new.row.log_format))
    .bind(i64::from(new.row.hints))
    .bind(new.row.first_dealer.map(i64::from))
    .bind(&new.row.rematch_of)
    .bind(&new.row.next_match_id)
    .bind(&new.row.spectator_code)
    .bind(new.row.rating_pool.map(Preset::name))
    .bind(i64::from(new.row.vacations))
    .execute(&mut **transaction)
    .await?;
    query("INSERT INTO match_secrets (match_id, secret) VALUES ($1, $2)")
        .bind(&new.row.id)
        .bind(new.secret)
        .execute(&mut **transaction)
        .await?;
    let outside = |seat: Seat| seat >= new.row.seat_count;
    if new.seats.iter().any(|taken| outside(taken.seat))
        || new.plan.iter().any(|(seat, _)| outside(*seat))
    {
        return Err(StoreError::Corrupt(format!(
            "a new match of {} seats with a seat outside them",
            new.row.seat_count
        )));
    }
    for seat in new.seats {
        query("INSERT INTO match_seats (match_id, seat, account_id, client_seed, joined_at, bot_level) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(&new.row.id)
            .bind(i64::from(seat.seat))
            .bind(&seat.account_id)
            .bind(&seat.client_seed)
            .bind(new.row.created_at)
            .bind(seat.bot.map(Level::name))
            .execute(&mut **transaction)
            .await?;
    }
    if let Some(start) = new.start {
        if !super::append::append_in(transaction, backend, start).await? {
            return Err(StoreError::Corrupt(
                "a match being created was at another version".into(),
            ));
        }
        super::vacations::look_at_start(transaction, &new.row.id).await?;
    }
    for (seat, account_id) in new.plan {
        query("INSERT INTO match_reservations (match_id, seat, account_id) VALUES ($1, $2, $3)")
            .bind(&new.row.id)
            .bind(i64::from(*seat))
            .bind(account_id)
            .execute(&mut **transaction)
            .await?;
    }
    Ok(())
}
