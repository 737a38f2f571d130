//! The `matches`, `match_seats`, `match_secrets` and `match_events` tables: creating a match,
//! reading rows, seats and the log, and the listings.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use super::{Db, StoreError};
use crate::rules::{Rules, Seat};

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Waiting for players.
    Open,
    /// Dealt and in play.
    Playing,
    /// Over: the winners are known and the shuffle secret is revealed.
    Finished,
    /// Called off before its first action: no winners; the shuffle secret is revealed.
    Aborted,
}

impl MatchStatus {
    /// Its name in the database and the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            MatchStatus::Open => "open",
            MatchStatus::Playing => "playing",
            MatchStatus::Finished => "finished",
            MatchStatus::Aborted => "aborted",
        }
    }

    fn parse(name: &str) -> Result<MatchStatus, StoreError> {
        [
            MatchStatus::Open,
            MatchStatus::Playing,
            MatchStatus::Finished,
            MatchStatus::Aborted,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
        .ok_or_else(|| StoreError::Corrupt(format!("match status `{name}`")))
    }
}

/// Who may find and watch a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed in the lobby; anyone may watch.
    #[default]
    Public,
    /// Joined with the invite code; invisible to others.
    Private,
}

impl Visibility {
    /// Its name in the database and the API.
    pub const fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
        }
    }

    fn parse(name: &str) -> Result<Visibility, StoreError> {
        [Visibility::Public, Visibility::Private]
            .into_iter()
            .find(|visibility| visibility.as_str() == name)
            .ok_or_else(|| StoreError::Corrupt(format!("visibility `{name}`")))
    }
}

/// A match's row: its setup and the read model kept with its log.
#[derive(Clone, Debug)]
pub struct MatchRow {
    /// UUID.
    pub id: String,
    /// The creator's account id.
    pub created_by: String,
    /// Who may find and watch it.
    pub visibility: Visibility,
    /// Private matches only: the code that lets a player join.
    pub invite_code: Option<String>,
    /// The table's rules, validated when the match was created.
    pub rules: Rules,
    /// How many seats the table has (`rules.players`).
    pub seat_count: u8,
    /// Whether the server ends a turn whose only legal action is `end_turn`.
    pub auto_end_turn: bool,
    /// Kept in step with the log by every append.
    pub status: MatchStatus,
    /// Events in the log.
    pub version: i64,
    /// Hex SHA-256 of the shuffle secret, published at creation.
    pub commitment: String,
    /// The shuffle algorithm (RULES.md §6) its hands are dealt with.
    pub shuffle_version: u32,
    /// The seat to move, while playing.
    pub turn_seat: Option<Seat>,
    /// When that turn began (Unix seconds): the inbox's order.
    pub turn_since: Option<i64>,
    /// Once finished: the seats that share the win.
    pub winners: Option<Vec<Seat>>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds.
    pub updated_at: i64,
}

/// A taken seat.
#[derive(Clone, Debug)]
pub struct SeatRow {
    /// Seats are numbered from 0 in clockwise order.
    pub seat: Seat,
    /// Who sits there.
    pub account_id: String,
    /// Their username, as the other players see it.
    pub username: String,
    /// Mixed into every hand's shuffle seed; `""` when the player gave none.
    pub client_seed: String,
}

/// The seat `account_id` holds among `seats`, if any.
pub fn seat_of(seats: &[SeatRow], account_id: &str) -> Option<Seat> {
    seats
        .iter()
        .find(|seat| seat.account_id == account_id)
        .map(|seat| seat.seat)
}

/// One event as stored: its canonical JSON and the hash chaining it to the one before.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    /// 1-based position; the match's version after it.
    pub seq: i64,
    /// The event's canonical JSON.
    pub event: String,
    /// Hex SHA-256(previous hash ‖ canonical JSON).
    pub hash: String,
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

pub(super) const MATCH_COLUMNS: &str = "id, created_by, visibility, invite_code, rules, seat_count, auto_end_turn, \
     status, version, commitment, shuffle_version, turn_seat, turn_since, winners, created_at, updated_at";

/// [`MATCH_COLUMNS`] of `matches` aliased as `m`, for queries that join other tables.
static ALIASED_MATCH_COLUMNS: LazyLock<String> = LazyLock::new(|| {
    MATCH_COLUMNS
        .split(", ")
        .map(|column| format!("m.{column}"))
        .collect::<Vec<_>>()
        .join(", ")
});

pub(super) fn match_from_row(row: &AnyRow) -> Result<MatchRow, StoreError> {
    let rules: String = row.try_get("rules")?;
    let winners: Option<String> = row.try_get("winners")?;
    Ok(MatchRow {
        id: row.try_get("id")?,
        created_by: row.try_get("created_by")?,
        visibility: Visibility::parse(&row.try_get::<String, _>("visibility")?)?,
        invite_code: row.try_get("invite_code")?,
        rules: serde_json::from_str(&rules)
            .map_err(|error| StoreError::Corrupt(format!("rules: {error}")))?,
        seat_count: small(row.try_get("seat_count")?, "seat_count")?,
        auto_end_turn: row.try_get::<i64, _>("auto_end_turn")? != 0,
        status: MatchStatus::parse(&row.try_get::<String, _>("status")?)?,
        version: row.try_get("version")?,
        commitment: row.try_get("commitment")?,
        shuffle_version: small(row.try_get("shuffle_version")?, "shuffle_version")?,
        turn_seat: row
            .try_get::<Option<i64>, _>("turn_seat")?
            .map(|seat| small(seat, "turn_seat"))
            .transpose()?,
        turn_since: row.try_get("turn_since")?,
        winners: winners
            .map(|winners| serde_json::from_str(&winners))
            .transpose()
            .map_err(|error| StoreError::Corrupt(format!("winners: {error}")))?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// A stored integer as the small type it stands for.
fn small<T: TryFrom<i64>>(value: i64, column: &str) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| StoreError::Corrupt(format!("{column} = {value}")))
}

pub(super) fn seat_from_row(row: &AnyRow) -> Result<SeatRow, StoreError> {
    Ok(SeatRow {
        seat: small(row.try_get("seat")?, "seat")?,
        account_id: row.try_get("account_id")?,
        username: row.try_get("username")?,
        client_seed: row.try_get("client_seed")?,
    })
}

impl Db {
    /// Creates a match with its secret and the creator in seat 0.
    pub async fn insert_match(
        &self,
        row: &MatchRow,
        secret: &str,
        client_seed: &str,
    ) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            sqlx::query(&format!(
                "INSERT INTO matches ({MATCH_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
            ))
            .bind(&row.id)
            .bind(&row.created_by)
            .bind(row.visibility.as_str())
            .bind(&row.invite_code)
            .bind(serde_json::to_string(&row.rules).expect("rules serialise"))
            .bind(i64::from(row.seat_count))
            .bind(i64::from(row.auto_end_turn))
            .bind(row.status.as_str())
            .bind(row.version)
            .bind(&row.commitment)
            .bind(i64::from(row.shuffle_version))
            .bind(row.turn_seat.map(i64::from))
            .bind(row.turn_since)
            .bind(
                row.winners
                    .as_ref()
                    .map(|winners| serde_json::to_string(winners).expect("seats serialise")),
            )
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
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The match with this id.
    pub async fn match_by_id(&self, id: &str) -> Result<Option<MatchRow>, StoreError> {
        let row = self
            .timed(
                sqlx::query(&format!(
                    "SELECT {MATCH_COLUMNS} FROM matches WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(self.pool()),
            )
            .await?;
        row.as_ref().map(match_from_row).transpose()
    }

    /// The match's version, or `None` for no such match: the cheapest question to ask.
    pub async fn match_version(&self, id: &str) -> Result<Option<i64>, StoreError> {
        let row = self
            .timed(
                sqlx::query("SELECT version FROM matches WHERE id = $1")
                    .bind(id)
                    .fetch_optional(self.pool()),
            )
            .await?;
        Ok(row.map(|row| row.try_get("version")).transpose()?)
    }

    /// The match with this id and the seat `account_id` holds in it, in one round trip.
    pub async fn match_and_seat(
        &self,
        id: &str,
        account_id: &str,
    ) -> Result<Option<(MatchRow, Option<Seat>)>, StoreError> {
        let columns = &*ALIASED_MATCH_COLUMNS;
        let row = self
            .timed(
                sqlx::query(&format!(
                    "SELECT {columns}, s.seat AS caller_seat FROM matches m \
             LEFT JOIN match_seats s ON s.match_id = m.id AND s.account_id = $2 WHERE m.id = $1"
                ))
                .bind(id)
                .bind(account_id)
                .fetch_optional(self.pool()),
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let seat = row
            .try_get::<Option<i64>, _>("caller_seat")?
            .map(|seat| small(seat, "seat"))
            .transpose()?;
        Ok(Some((match_from_row(&row)?, seat)))
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
            "SELECT s.match_id, s.seat, s.account_id, a.username, s.client_seed FROM match_seats s \
             JOIN accounts a ON a.id = s.account_id WHERE s.match_id IN ({}) ORDER BY s.match_id, s.seat",
            placeholders.join(", ")
        );
        let mut query = sqlx::query(&sql);
        for id in match_ids {
            query = query.bind(id);
        }
        for row in self.timed(query.fetch_all(self.pool())).await? {
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
            .timed(
                sqlx::query(
                    "SELECT s.match_id FROM match_seats s JOIN matches m ON m.id = s.match_id \
                     WHERE s.account_id = $1 AND m.status = 'open'",
                )
                .bind(account_id)
                .fetch_all(self.pool()),
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("match_id"))
            .collect::<Result<_, _>>()?)
    }

    /// The match's secret (hex).
    pub async fn match_secret(&self, match_id: &str) -> Result<Option<String>, StoreError> {
        let row = self
            .timed(
                sqlx::query("SELECT secret FROM match_secrets WHERE match_id = $1")
                    .bind(match_id)
                    .fetch_optional(self.pool()),
            )
            .await?;
        Ok(row.map(|row| row.try_get("secret")).transpose()?)
    }

    /// Events with `seq > after`, at most `limit`, in order.
    pub async fn events(
        &self,
        match_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = self.timed(sqlx::query("SELECT seq, event, hash FROM match_events WHERE match_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")
            .bind(match_id)
            .bind(after)
            .bind(limit)
            .fetch_all(self.pool()))
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

    /// A page of matches: `(sort key, id)` strictly after `cursor`, at most `limit`.
    pub async fn list_matches(
        &self,
        listing: Listing,
        account_id: &str,
        cursor: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<MatchRow>, StoreError> {
        let columns = &*ALIASED_MATCH_COLUMNS;
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
        // Every placeholder must appear in the statement whichever filters apply, so the
        // unused ones are compared with themselves.
        let cursor_filter = if cursor.is_some() {
            after
        } else {
            "($2 = $2 AND $3 = $3)"
        };
        let sql = format!(
            "SELECT {columns} FROM matches m WHERE ($1 = $1) AND {filter} AND {cursor_filter} ORDER BY {order} LIMIT $4"
        );
        let (sort_key, id) = cursor.unwrap_or((0, String::new()));
        let rows = self
            .timed(
                sqlx::query(&sql)
                    .bind(account_id)
                    .bind(sort_key)
                    .bind(id)
                    .bind(limit)
                    .fetch_all(self.pool()),
            )
            .await?;
        rows.iter().map(match_from_row).collect()
    }
}
