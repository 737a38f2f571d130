//! The `matches`, `match_seats`, `match_secrets` and `match_events` tables: creating a match,
//! reading rows, seats and the log, and the listings.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use utoipa::ToSchema;

use super::append::Append;
use super::{Backend, Db, StoreError};
use crate::bots::Level;
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

/// A match's clock (issue 8): so many seconds a turn, plus a bank per seat that time used
/// beyond a turn's seconds comes out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClockSettings {
    /// Seconds each turn may take before it draws on the bank.
    pub turn_seconds: u32,
    /// Seconds each seat may spend beyond its turns' seconds, over the whole match.
    pub bank_seconds: u32,
}

/// What a passed deadline means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// Nothing happens by itself: any other seat still in may claim, forfeiting the late seat.
    #[default]
    Claim,
    /// The server forfeits the late seat at its deadline.
    Forfeit,
    /// At its deadline the `basic` bot plays the late seat's turn for it; the seat stays in.
    Bot,
}

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// By its `game_end`.
    Finished,
    /// Every other seat resigned.
    Resigned,
    /// The last of the other seats left because its time ran out.
    Timeout,
    /// Called off before its first action.
    Aborted,
}

/// A closed set of names stored as text.
trait StoredName: Copy + 'static {
    const ALL: &'static [Self];
    fn as_str(self) -> &'static str;

    fn parse(name: &str) -> Result<Self, StoreError> {
        Self::ALL
            .iter()
            .copied()
            .find(|value| value.as_str() == name)
            .ok_or_else(|| StoreError::Corrupt(format!("`{name}`")))
    }
}

impl StoredName for OnTimeout {
    const ALL: &'static [OnTimeout] = &[OnTimeout::Claim, OnTimeout::Forfeit, OnTimeout::Bot];
    fn as_str(self) -> &'static str {
        match self {
            OnTimeout::Claim => "claim",
            OnTimeout::Forfeit => "forfeit",
            OnTimeout::Bot => "bot",
        }
    }
}

impl StoredName for Outcome {
    const ALL: &'static [Outcome] = &[
        Outcome::Finished,
        Outcome::Resigned,
        Outcome::Timeout,
        Outcome::Aborted,
    ];
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Finished => "finished",
            Outcome::Resigned => "resigned",
            Outcome::Timeout => "timeout",
            Outcome::Aborted => "aborted",
        }
    }
}

impl OnTimeout {
    /// Its name in the database and the API.
    pub fn name(self) -> &'static str {
        self.as_str()
    }
}

impl Outcome {
    /// Its name in the database and the API.
    pub fn name(self) -> &'static str {
        self.as_str()
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
    /// Whether a seated player may ask for a hint.
    pub hints: bool,
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
    /// The clock chosen at creation, if any.
    pub clock: Option<ClockSettings>,
    /// What a passed deadline means.
    pub on_timeout: OnTimeout,
    /// While playing with a clock: when the seat to move runs out of time (Unix seconds).
    pub deadline: Option<i64>,
    /// Once over: how it ended.
    pub outcome: Option<Outcome>,
    /// Once over: each seat's final total.
    pub final_totals: Option<Vec<u32>>,
    /// The hash chain's format: 2 chains each event's time too.
    pub log_format: u8,
    /// The first hand's dealer, when it is set (a rematch) rather than drawn.
    pub first_dealer: Option<Seat>,
    /// The match this one is a rematch of.
    pub rematch_of: Option<String>,
    /// The rematch its players were offered once this one ended.
    pub next_match_id: Option<String>,
    /// A private match's spectator code: `?watch=<code>` lets anyone watch it.
    pub spectator_code: Option<String>,
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
    /// The bot's level, in a seat a bot holds; `None` for a person.
    pub bot: Option<Level>,
}

/// How many bot accounts the migrations create (`bot:1` … `bot:8`): one per seat of the
/// largest table.
pub const BOT_ACCOUNTS: u8 = 8;

/// The first bot account not yet seated among `seats`.
pub fn free_bot_account(seats: &[SeatRow]) -> String {
    (1..=BOT_ACCOUNTS)
        .map(|number| format!("bot:{number}"))
        .find(|account| seats.iter().all(|seat| &seat.account_id != account))
        .expect("a table has fewer seats than there are bot accounts")
}

/// The seat `account_id` holds among `seats`, if any.
pub fn seat_of(seats: &[SeatRow], account_id: &str) -> Option<Seat> {
    seats
        .iter()
        .find(|seat| seat.account_id == account_id)
        .map(|seat| seat.seat)
}

/// One event as stored: its canonical JSON, when it was written, and the hash chaining it to
/// the one before.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    /// 1-based position; the match's version after it.
    pub seq: i64,
    /// The event's canonical JSON.
    pub event: String,
    /// Hex SHA-256 of the previous hash and this event (see `matches::log`).
    pub hash: String,
    /// When it was written (Unix seconds): the append's time.
    pub at: i64,
}

/// A row of `match_events` (`seq, event, hash, created_at`).
fn stored_event(row: &AnyRow) -> Result<StoredEvent, sqlx::Error> {
    Ok(StoredEvent {
        seq: row.try_get("seq")?,
        event: row.try_get("event")?,
        hash: row.try_get("hash")?,
        at: row.try_get("created_at")?,
    })
}

/// Which matches a listing shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Open public matches, newest first.
    Lobby,
    /// The caller's matches (those of one status, if given), newest first.
    Mine {
        /// Only matches in this state.
        status: Option<MatchStatus>,
    },
    /// Matches waiting for the caller's move: the soonest deadline first, then (without a
    /// clock) the longest waiting.
    Inbox,
}

impl Listing {
    /// What a listing sorts by (before the match id, which breaks ties).
    pub fn sort_keys(self) -> &'static [&'static str] {
        match self {
            Listing::Lobby | Listing::Mine { .. } => &["m.created_at"],
            Listing::Inbox => &[
                "COALESCE(m.deadline, 9223372036854775807)",
                "COALESCE(m.turn_since, 0)",
            ],
        }
    }

    fn newest_first(self) -> bool {
        !matches!(self, Listing::Inbox)
    }

    /// The values of [`Listing::sort_keys`] for a row.
    pub fn keys_of(self, row: &MatchRow) -> Vec<i64> {
        match self {
            Listing::Lobby | Listing::Mine { .. } => vec![row.created_at],
            Listing::Inbox => vec![
                row.deadline.unwrap_or(i64::MAX),
                row.turn_since.unwrap_or(0),
            ],
        }
    }
}

/// Where a page of a listing ends: the last row's sort keys and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The values of the listing's sort keys.
    pub keys: Vec<i64>,
    /// The match id.
    pub id: String,
}

pub(super) const MATCH_COLUMNS: &str = "id, created_by, visibility, invite_code, rules, seat_count, auto_end_turn, \
     status, version, commitment, shuffle_version, turn_seat, turn_since, winners, created_at, updated_at, \
     turn_seconds, bank_seconds, on_timeout, deadline, outcome, final_totals, log_format, hints, \
     first_dealer, rematch_of, next_match_id, spectator_code";

/// [`MATCH_COLUMNS`] of `matches` aliased as `m`, for queries that join other tables.
pub(super) static ALIASED_MATCH_COLUMNS: LazyLock<String> = LazyLock::new(|| {
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
        hints: row.try_get::<i64, _>("hints")? != 0,
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
        clock: match (
            row.try_get::<Option<i64>, _>("turn_seconds")?,
            row.try_get::<Option<i64>, _>("bank_seconds")?,
        ) {
            (Some(turn), Some(bank)) => Some(ClockSettings {
                turn_seconds: small(turn, "turn_seconds")?,
                bank_seconds: small(bank, "bank_seconds")?,
            }),
            _ => None,
        },
        on_timeout: OnTimeout::parse(&row.try_get::<String, _>("on_timeout")?)?,
        deadline: row.try_get("deadline")?,
        outcome: row
            .try_get::<Option<String>, _>("outcome")?
            .map(|name| Outcome::parse(&name))
            .transpose()?,
        final_totals: row
            .try_get::<Option<String>, _>("final_totals")?
            .map(|totals| serde_json::from_str(&totals))
            .transpose()
            .map_err(|error| StoreError::Corrupt(format!("final_totals: {error}")))?,
        log_format: small(row.try_get("log_format")?, "log_format")?,
        first_dealer: row
            .try_get::<Option<i64>, _>("first_dealer")?
            .map(|seat| small(seat, "first_dealer"))
            .transpose()?,
        rematch_of: row.try_get("rematch_of")?,
        next_match_id: row.try_get("next_match_id")?,
        spectator_code: row.try_get("spectator_code")?,
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
        bot: row
            .try_get::<Option<String>, _>("bot_level")?
            .map(|name| {
                Level::from_name(&name)
                    .ok_or_else(|| StoreError::Corrupt(format!("bot_level = {name}")))
            })
            .transpose()?,
    })
}

impl Db {
    /// Creates a match with its secret and its first seats (the creator in seat 0, and any
    /// bots); a table they fill starts at once, with `start` written in the same transaction.
    pub async fn insert_match(&self, new: &NewMatch<'_>) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            insert_in(&mut transaction, self.backend(), new).await?;
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

    /// The match with this id and the seat `account_id` holds in it, or, in a rematch waiting
    /// for them, the seat kept for them; in one round trip.
    pub async fn match_and_seat(
        &self,
        id: &str,
        account_id: &str,
    ) -> Result<Option<(MatchRow, Option<Seat>)>, StoreError> {
        let columns = &*ALIASED_MATCH_COLUMNS;
        let row = self
            .timed(
                sqlx::query(&format!(
                    "SELECT {columns}, COALESCE(s.seat, r.seat) AS caller_seat FROM matches m \
             LEFT JOIN match_seats s ON s.match_id = m.id AND s.account_id = $2 \
             LEFT JOIN match_reservations r ON r.match_id = m.id AND r.account_id = $2 \
             WHERE m.id = $1"
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
            "SELECT s.match_id, s.seat, s.account_id, a.username, s.client_seed, s.bot_level FROM match_seats s \
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

    /// Deleted accounts that still hold a seat in a match that has not started: deletions a
    /// stopped process left half done.
    pub async fn deleted_but_seated(&self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .timed(
                sqlx::query(
                    "SELECT DISTINCT s.account_id FROM match_seats s \
                     JOIN matches m ON m.id = s.match_id JOIN accounts a ON a.id = s.account_id \
                     WHERE m.status = 'open' AND a.deleted_at IS NOT NULL",
                )
                .fetch_all(self.pool()),
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("account_id"))
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
        let rows = self.timed(sqlx::query("SELECT seq, event, hash, created_at FROM match_events WHERE match_id = $1 AND seq > $2 ORDER BY seq LIMIT $3")
            .bind(match_id)
            .bind(after)
            .bind(limit)
            .fetch_all(self.pool()))
            .await?;
        rows.iter()
            .map(stored_event)
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// A match's events written after the time `since` (seconds), in log order: what a window
    /// of time holds of the log, however busy the table was.
    pub async fn events_written_after(
        &self,
        match_id: &str,
        since: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = self.timed(sqlx::query("SELECT seq, event, hash, created_at FROM match_events WHERE match_id = $1 AND created_at > $2 ORDER BY seq")
            .bind(match_id)
            .bind(since)
            .fetch_all(self.pool()))
            .await?;
        rows.iter()
            .map(stored_event)
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// A page of matches: those sorting strictly after `cursor`, at most `limit`.
    pub async fn list_matches(
        &self,
        listing: Listing,
        account_id: &str,
        cursor: Option<&Cursor>,
        limit: i64,
    ) -> Result<Vec<MatchRow>, StoreError> {
        let columns = &*ALIASED_MATCH_COLUMNS;
        let seated =
            "EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id AND s.account_id = $1)";
        let filter = match listing {
            Listing::Lobby => {
                "m.status = 'open' AND m.visibility = 'public' AND m.rematch_of IS NULL".to_owned()
            }
            Listing::Mine { status: None } => seated.to_owned(),
            Listing::Mine { status: Some(_) } => format!("{seated} AND m.status = $2"),
            Listing::Inbox => "m.status = 'playing' AND EXISTS (SELECT 1 FROM match_seats s \
                 WHERE s.match_id = m.id AND s.account_id = $1 AND s.seat = m.turn_seat)"
                .to_owned(),
        };
        let keys = listing.sort_keys();
        let (direction, beyond) = if listing.newest_first() {
            ("DESC", "<")
        } else {
            ("ASC", ">")
        };
        let order = keys
            .iter()
            .chain(["m.id"].iter())
            .map(|key| format!("{key} {direction}"))
            .collect::<Vec<_>>()
            .join(", ");
        // $1 the account, $2 the status; then the cursor's keys and id; then the limit. Every
        // placeholder appears whichever filters apply (an unused one compared with itself).
        let mut next = 3;
        let cursor_filter = match cursor {
            Some(cursor) if cursor.keys.len() == keys.len() => {
                let placeholders: Vec<String> = (0..=keys.len())
                    .map(|offset| format!("${}", next + offset))
                    .collect();
                next += placeholders.len();
                format!(
                    "({}, m.id) {beyond} ({})",
                    keys.join(", "),
                    placeholders.join(", ")
                )
            }
            _ => "TRUE".to_owned(),
        };
        let sql = format!(
            "SELECT {columns} FROM matches m WHERE ($1 = $1) AND ($2 = $2) AND {filter} \
             AND {cursor_filter} ORDER BY {order} LIMIT ${next}"
        );
        let status = match listing {
            Listing::Mine {
                status: Some(status),
            } => status.as_str(),
            _ => "",
        };
        let mut query = sqlx::query(&sql).bind(account_id).bind(status);
        if let Some(cursor) = cursor.filter(|cursor| cursor.keys.len() == keys.len()) {
            for key in &cursor.keys {
                query = query.bind(*key);
            }
            query = query.bind(cursor.id.clone());
        }
        let rows = self.timed(query.bind(limit).fetch_all(self.pool())).await?;
        rows.iter().map(match_from_row).collect()
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
    sqlx::query(&format!(
        "INSERT INTO matches ({MATCH_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28)"
    ))
    .bind(&new.row.id)
    .bind(&new.row.created_by)
    .bind(new.row.visibility.as_str())
    .bind(&new.row.invite_code)
    .bind(serde_json::to_string(&new.row.rules).expect("rules serialise"))
    .bind(i64::from(new.row.seat_count))
    .bind(i64::from(new.row.auto_end_turn))
    .bind(new.row.status.as_str())
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
    .bind(new.row.on_timeout.as_str())
    .bind(new.row.deadline)
    .bind(new.row.outcome.map(Outcome::as_str))
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
    .execute(&mut **transaction)
    .await?;
    sqlx::query("INSERT INTO match_secrets (match_id, secret) VALUES ($1, $2)")
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
        sqlx::query("INSERT INTO match_seats (match_id, seat, account_id, client_seed, joined_at, bot_level) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(&new.row.id)
            .bind(i64::from(seat.seat))
            .bind(&seat.account_id)
            .bind(&seat.client_seed)
            .bind(new.row.created_at)
            .bind(seat.bot.map(Level::name))
            .execute(&mut **transaction)
            .await?;
    }
    if let Some(start) = new.start
        && !super::append::append_in(transaction, backend, start).await?
    {
        return Err(StoreError::Corrupt(
            "a match being created was at another version".into(),
        ));
    }
    for (seat, account_id) in new.plan {
        sqlx::query(
            "INSERT INTO match_reservations (match_id, seat, account_id) VALUES ($1, $2, $3)",
        )
        .bind(&new.row.id)
        .bind(i64::from(*seat))
        .bind(account_id)
        .execute(&mut **transaction)
        .await?;
    }
    Ok(())
}
