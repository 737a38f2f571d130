//! The rows of the match tables as the store hands them out (`matches`, `match_seats`, and the
//! events of `match_events`, whose rows `log_rows.rs` lays out), and how each is read from its
//! columns: a value no column should hold is [`StoreError::Corrupt`].

use std::sync::LazyLock;

use sqlx::Row;
use sqlx::any::AnyRow;

use super::StoreError;
use crate::model::{ClockSettings, Level, MatchStatus, Named, OnTimeout, Outcome, Visibility};
use crate::rules::{Preset, Rules, Seat};

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
    /// The shuffle algorithm (docs/rules.md §9) its hands are dealt with.
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
    /// Whether a player's vacation stops their seat's clock (only a correspondence clock's).
    pub vacations: bool,
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
    /// A rated match: the pool it counts in (the preset its rules are; docs/ratings.md).
    pub rating_pool: Option<Preset>,
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

/// Where an account sits at a match: the seat it took, and the seat a rematch keeps for it
/// until it joins (at most one of the two).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatOf {
    /// The seat it took.
    pub taken: Option<Seat>,
    /// The seat kept for it.
    pub kept: Option<Seat>,
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

pub(super) const MATCH_COLUMNS: &str = "id, created_by, visibility, invite_code, rules, seat_count, auto_end_turn, \
     status, version, commitment, shuffle_version, turn_seat, turn_since, winners, created_at, updated_at, \
     turn_seconds, bank_seconds, on_timeout, deadline, outcome, final_totals, log_format, hints, \
     first_dealer, rematch_of, next_match_id, spectator_code, rating_pool, vacations";

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
        visibility: named(row, "visibility")?,
        invite_code: row.try_get("invite_code")?,
        rules: serde_json::from_str(&rules)
            .map_err(|error| StoreError::Corrupt(format!("rules: {error}")))?,
        seat_count: small(row.try_get("seat_count")?, "seat_count")?,
        auto_end_turn: row.try_get::<i64, _>("auto_end_turn")? != 0,
        hints: row.try_get::<i64, _>("hints")? != 0,
        status: named(row, "status")?,
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
        on_timeout: named(row, "on_timeout")?,
        vacations: row.try_get::<i64, _>("vacations")? != 0,
        deadline: row.try_get("deadline")?,
        outcome: named_or_none(row, "outcome")?,
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
        rating_pool: row
            .try_get::<Option<String>, _>("rating_pool")?
            .map(|pool| {
                Preset::from_name(&pool)
                    .ok_or_else(|| StoreError::Corrupt(format!("rating_pool = {pool}")))
            })
            .transpose()?,
    })
}

/// A stored integer as the small type it stands for.
pub(super) fn small<T: TryFrom<i64>>(value: i64, column: &str) -> Result<T, StoreError> {
    T::try_from(value).map_err(|_| StoreError::Corrupt(format!("{column} = {value}")))
}

/// A column holding one of a [`Named`] set's names.
pub(super) fn named<T: Named>(row: &AnyRow, column: &str) -> Result<T, StoreError> {
    named_or_none(row, column)?.ok_or_else(|| StoreError::Corrupt(format!("{column} is NULL")))
}

/// A nullable column holding one of a [`Named`] set's names.
pub(super) fn named_or_none<T: Named>(row: &AnyRow, column: &str) -> Result<Option<T>, StoreError> {
    let name: Option<String> = row.try_get(column)?;
    name.map(|name| {
        T::from_name(&name).ok_or_else(|| StoreError::Corrupt(format!("{column} = `{name}`")))
    })
    .transpose()
}

pub(super) fn seat_from_row(row: &AnyRow) -> Result<SeatRow, StoreError> {
    Ok(SeatRow {
        seat: small(row.try_get("seat")?, "seat")?,
        account_id: row.try_get("account_id")?,
        username: row.try_get("username")?,
        client_seed: row.try_get("client_seed")?,
        bot: named_or_none(row, "bot_level")?,
    })
}
