//! Quick pairing (docs/playing.md, "Quick pairing"): a player asks for a kind of table (`POST
//! /v1/seeks`) instead of waiting in the lobby, and the server seats compatible seeks together
//! in a new match that starts at once; its players are told by `match_started`.
//!
//! A seek is paired at once when enough compatible seeks wait, and otherwise by the pairing
//! round every process runs every [`PAIR_EVERY`] (which also expires seeks). [`super::pairing`]
//! chooses the tables; the store writes each in one transaction that takes its seeks only if
//! every one is still open ([`crate::store::Db::pair_seeks`]). Two processes that choose the
//! same seeks therefore write one match between them, and a seek cancelled meanwhile is never
//! seated. Every seek is written before any process reads the open seeks to pair it, so of two
//! seeks made at once in two processes at least one pairing attempt sees both.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::Player;
use super::bots::BotRequest;
use super::lobby::{ClockChoice, TableSettings, open_match, resolve_rules, vacations_at};
use super::pairing::{self, Apart, Pairing};
use super::rated::{self, TableAsked};
use super::refusals::{SeekError, TableError};
use super::{MatchError, Matches};
use crate::background::{self, Schedule};
use crate::model::{ClockSettings, Level, OnTimeout, SeekStatus, Visibility};
use crate::rules::Preset;
use crate::store::NewMatch;
use crate::store::SeatRow;
use crate::store::seeks::{OpenSeek, SeekRow, SeekTable};

/// How many open seeks an account may have at once.
pub const MOST_OPEN_SEEKS: usize = 10;
/// How long a seek waits by default before it expires: a week.
pub const DEFAULT_EXPIRY_SECONDS: u32 = 7 * 86_400;
/// The shortest and longest wait a seek may ask for.
pub const EXPIRY_SECONDS: std::ops::RangeInclusive<u32> = 60..=30 * 86_400;
/// The shortest and longest wait before bots may take the empty seats (no longer than the
/// longest a seek may wait).
pub const BOTS_AFTER_SECONDS: std::ops::RangeInclusive<u32> = 10..=30 * 86_400;
/// How often each process pairs the open seeks and expires the old ones.
pub const PAIR_EVERY: Duration = Duration::from_secs(1);
/// How long an ended seek stays in its seeker's list.
pub const KEEP_ENDED_SECONDS: i64 = 7 * 86_400;

/// A request for a table.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"preset": "standard", "seats": 4, "clock": "correspondence_1d", "rated": true, "rating_range": {"min": 900, "max": 1400}}))]
pub struct NewSeek {
    /// The rules: a preset's name (`standard`, `draw-first`, `foundations`, `night-one`),
    /// played unchanged.
    pub preset: String,
    /// Seats at the table (the preset's number by default).
    pub seats: Option<u8>,
    /// A clock, as for a new match: a preset (`fast_5m`, `correspondence_1d`, …) or
    /// `{"turn_seconds": n, "bank_seconds": m}`; none by default. Seeks pair only with seeks
    /// of the same clock.
    pub clock: Option<ClockChoice>,
    /// What a passed deadline means (`claim` by default); needs a clock.
    pub on_timeout: Option<OnTimeout>,
    /// Whether the table is rated (default false): then it needs a clock and `on_timeout`
    /// `claim` or `forfeit`, and no bots take its seats (docs/ratings.md).
    #[serde(default)]
    pub rated: bool,
    /// The shown ratings (in the preset's pool) of the players this seeker accepts at the
    /// table; both ends optional. A seek pairs only with seekers each of whose ratings every
    /// other seek's range takes.
    pub rating_range: Option<RatingRange>,
    /// Unrated seeks only: after this many seconds (10 s to 30 days) with no full table, bots
    /// take the empty seats, beside any seekers of the same kind who accept bots too.
    pub bots_after_seconds: Option<u32>,
    /// The level of those bots: `random`, `basic` (default) or `expert`.
    pub bot_level: Option<Level>,
    /// How long the seek waits before it expires: 60 s to 30 days (a week by default).
    pub expires_in_seconds: Option<u32>,
}

/// A range of shown ratings; either end may be left out.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingRange {
    /// The lowest accepted.
    pub min: Option<i64>,
    /// The highest accepted.
    pub max: Option<i64>,
}

/// A seek as its seeker sees it.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "3f2b8c1e-7d4a-4b6e-9c0d-1a2b3c4d5e6f", "status": "matched", "preset": "standard", "seats": 4,
    "clock": {"turn_seconds": 86400, "bank_seconds": 172800}, "on_timeout": "claim", "rated": true,
    "rating_range": {"min": 900, "max": 1400}, "bots_after_seconds": null, "bot_level": null,
    "created_at": "2026-12-02T10:00:00Z", "expires_at": "2026-12-09T10:00:00Z", "ended_at": "2026-12-02T10:04:12Z",
    "match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10"}))]
pub struct SeekView {
    /// The seek.
    #[schema(format = Uuid)]
    pub id: String,
    /// `open` (waiting), `matched` (see `match_id`), `cancelled` or `expired`.
    pub status: SeekStatus,
    /// The preset.
    pub preset: String,
    /// Seats at the table.
    pub seats: u8,
    /// The clock, if any.
    pub clock: Option<ClockSettings>,
    /// What a passed deadline means.
    pub on_timeout: OnTimeout,
    /// Whether the table is rated.
    pub rated: bool,
    /// The shown ratings accepted at the table.
    pub rating_range: Option<RatingRange>,
    /// After how long bots may take the empty seats.
    pub bots_after_seconds: Option<i64>,
    /// The level of those bots.
    pub bot_level: Option<Level>,
    /// When it was made (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    /// When it expires if still open (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: i64,
    /// When it was matched, cancelled or expired (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub ended_at: Option<i64>,
    /// Once matched: the match, already started (`GET /v1/matches/{id}/view`).
    #[schema(format = Uuid)]
    pub match_id: Option<String>,
}

/// The caller's seeks: the open ones and the newest matched or expired ones (kept a week),
/// newest first.
#[derive(Serialize, ToSchema)]
pub struct SeekList {
    /// Newest first.
    pub seeks: Vec<SeekView>,
}

impl SeekView {
    /// `row` as its seeker sees it at `now`: an open seek past its time is shown expired
    /// before the pairing round has marked it.
    fn of(row: SeekRow, now: i64) -> SeekView {
        let overdue = row.status == SeekStatus::Open && row.expires_at <= now;
        SeekView {
            id: row.id,
            status: if overdue {
                SeekStatus::Expired
            } else {
                row.status
            },
            preset: row.table.preset.name().to_owned(),
            seats: row.table.seats,
            clock: row.table.clock,
            on_timeout: row.table.on_timeout,
            rated: row.table.rated,
            rating_range: (row.rating_min.is_some() || row.rating_max.is_some()).then_some(
                RatingRange {
                    min: row.rating_min,
                    max: row.rating_max,
                },
            ),
            bots_after_seconds: row.bots_after,
            bot_level: row.bot_level,
            created_at: row.created_at,
            expires_at: row.expires_at,
            ended_at: if overdue {
                Some(row.expires_at)
            } else {
                row.ended_at
            },
            match_id: row.match_id,
        }
    }
}

/// A [`MatchError::Seek(SeekError::InvalidSeek)`].
fn invalid(field: &'static str, detail: impl Into<String>) -> MatchError {
    MatchError::Seek(SeekError::InvalidSeek {
        field,
        detail: detail.into(),
    })
}

/// The seek `request` asks for, checked, as `seeker` makes it at `now`.
fn checked(request: NewSeek, seeker: &str, now: i64) -> Result<SeekRow, MatchError> {
    let preset = Preset::from_name(&request.preset).ok_or_else(|| {
        invalid(
            "preset",
            "the preset is one of `standard`, `draw-first`, `foundations`, `night-one`",
        )
    })?;
    let rules = resolve_rules(serde_json::json!({"preset": preset.name()}), request.seats)?;
    let clock = request
        .clock
        .as_ref()
        .map(ClockChoice::settings)
        .transpose()?;
    if clock.is_none() && request.on_timeout.is_some() {
        return Err(MatchError::Table(TableError::InvalidClock {
            detail: "on_timeout needs a clock".into(),
        }));
    }
    if request.rated {
        rated::pool_of(&TableAsked {
            rules: &rules,
            clock: clock.as_ref(),
            on_timeout: request.on_timeout,
            bots: 0,
            hints: None,
        })?;
        if request.bots_after_seconds.is_some() {
            return Err(invalid(
                "bots_after_seconds",
                "a rated table seats people only: bots cannot take its empty seats",
            ));
        }
    }
    let range = request.rating_range;
    if let Some(RatingRange {
        min: Some(min),
        max: Some(max),
    }) = range
        && min > max
    {
        return Err(invalid("rating_range", "min is above max"));
    }
    if let Some(after) = request.bots_after_seconds
        && !BOTS_AFTER_SECONDS.contains(&after)
    {
        return Err(invalid(
            "bots_after_seconds",
            format!(
                "bots take empty seats after {} s to {} s",
                BOTS_AFTER_SECONDS.start(),
                BOTS_AFTER_SECONDS.end()
            ),
        ));
    }
    if request.bot_level.is_some() && request.bots_after_seconds.is_none() {
        return Err(invalid(
            "bot_level",
            "bot_level goes with bots_after_seconds",
        ));
    }
    let expiry = request.expires_in_seconds.unwrap_or(DEFAULT_EXPIRY_SECONDS);
    if !EXPIRY_SECONDS.contains(&expiry) {
        return Err(invalid(
            "expires_in_seconds",
            format!(
                "a seek waits {} s to {} s (30 days)",
                EXPIRY_SECONDS.start(),
                EXPIRY_SECONDS.end()
            ),
        ));
    }
    Ok(SeekRow {
        id: uuid::Uuid::new_v4().to_string(),
        account_id: seeker.to_owned(),
        table: SeekTable {
            preset,
            seats: rules.players,
            clock,
            on_timeout: request.on_timeout.unwrap_or_default(),
            rated: request.rated,
        },
        rating_min: range.and_then(|range| range.min),
        rating_max: range.and_then(|range| range.max),
        bots_after: request.bots_after_seconds.map(i64::from),
        bot_level: request
            .bots_after_seconds
            .map(|_| request.bot_level.unwrap_or(Level::Basic)),
        status: SeekStatus::Open,
        match_id: None,
        created_at: now,
        expires_at: now + i64::from(expiry),
        ended_at: None,
    })
}

impl Matches {
    /// Makes a seek, and seats it at once if enough compatible seeks wait.
    pub async fn create_seek(
        &self,
        seeker: Player<'_>,
        request: NewSeek,
    ) -> Result<SeekView, MatchError> {
        let seek = checked(request, seeker.id(), self.clock.now())?;
        if !self.db.insert_seek(&seek, MOST_OPEN_SEEKS).await? {
            return Err(MatchError::Seek(SeekError::TooManySeeks(MOST_OPEN_SEEKS)));
        }
        // The seek is stored: a failure to pair it now leaves it to the next round.
        if let Err(error) = self.pair_seeks().await {
            tracing::warn!(%error, "pairing a new seek failed; the next round tries again");
        }
        self.seek(seeker, &seek.id).await
    }

    /// The caller's seeks: the open ones and the newest matched or expired ones.
    pub async fn seeks(&self, seeker: Player<'_>) -> Result<SeekList, MatchError> {
        let now = self.clock.now();
        let rows = self.db.seeks_of(seeker.id()).await?;
        Ok(SeekList {
            seeks: rows.into_iter().map(|row| SeekView::of(row, now)).collect(),
        })
    }

    /// One of the caller's seeks.
    pub async fn seek(&self, seeker: Player<'_>, id: &str) -> Result<SeekView, MatchError> {
        let row = self.db.seek_of(seeker.id(), id).await?;
        let row = row.ok_or(MatchError::Seek(SeekError::SeekNotFound))?;
        Ok(SeekView::of(row, self.clock.now()))
    }

    /// Withdraws one of the caller's seeks, and answers it as it was withdrawn: from then on
    /// it is gone (`seek_not_found`). One already seated is refused with the match it was
    /// seated in; one expired answers as it is.
    pub async fn cancel_seek(&self, seeker: Player<'_>, id: &str) -> Result<SeekView, MatchError> {
        let now = self.clock.now();
        if let Some(cancelled) = self.db.cancel_seek(seeker.id(), id, now).await? {
            return Ok(SeekView::of(cancelled, now));
        }
        let seek = self.seek(seeker, id).await?;
        match (seek.status, &seek.match_id) {
            (SeekStatus::Matched, Some(match_id)) => {
                Err(MatchError::Seek(SeekError::SeekMatched {
                    match_id: match_id.clone(),
                }))
            }
            _ => Ok(seek),
        }
    }

    /// One pairing round: expires old seeks, then seats every table the open seeks fill. How
    /// many matches it started.
    pub async fn pair_seeks(&self) -> Result<usize, MatchError> {
        let now = self.clock.now();
        self.db.expire_seeks(now, now - KEEP_ENDED_SECONDS).await?;
        let open = self.db.open_seeks(now).await?;
        let apart = Apart::of(self.db.blocks_among_seekers().await?);
        let mut started = 0;
        for table in pairing::tables(&open, &apart, now) {
            if self.seat(&open, &table, now).await? {
                started += 1;
            }
        }
        Ok(started)
    }

    /// Starts the match of `table`; `false`: one of its seeks was taken or withdrawn since the
    /// round read them, and nothing was written.
    async fn seat(&self, open: &[OpenSeek], table: &Pairing, now: i64) -> Result<bool, MatchError> {
        let served = &open[table.seeks[0]].seek;
        let kind = served.table;
        let rules = resolve_rules(
            serde_json::json!({"preset": kind.preset.name()}),
            Some(kind.seats),
        )?;
        let (row, secret) = open_match(
            &served.account_id,
            TableSettings {
                visibility: Visibility::Public,
                rules,
                auto_end_turn: true,
                hints: !kind.rated,
                clock: kind.clock,
                on_timeout: kind.on_timeout,
                vacations: vacations_at(kind.clock.as_ref(), None)?,
                rating_pool: kind.rated.then_some(kind.preset),
            },
            now,
        );
        // Who sits where is drawn: the longest waiting has no right to the first seat.
        let mut people: Vec<&str> = table
            .seeks
            .iter()
            .map(|&index| open[index].seek.account_id.as_str())
            .collect();
        shuffle(&mut people);
        let mut seats: Vec<SeatRow> = people
            .into_iter()
            .zip(0..)
            .map(|(account_id, seat)| SeatRow {
                seat,
                account_id: account_id.to_owned(),
                username: String::new(),
                client_seed: String::new(),
                bot: None,
            })
            .collect();
        let bot = BotRequest {
            level: table.bot_level,
        };
        for _ in 0..table.bots {
            let seat = bot.seat(seats.len() as u8, &seats);
            seats.push(seat);
        }
        let (started, append) = self.first_deal(&row, &secret, &seats)?;
        let verified = self.notifier.checkpoint();
        let new = NewMatch {
            row: &row,
            secret: &secret,
            seats: &seats,
            plan: &[],
            start: Some(&append),
        };
        let ids: Vec<&str> = table
            .seeks
            .iter()
            .map(|&index| open[index].seek.id.as_str())
            .collect();
        if !self.db.pair_seeks(&ids, &new, now).await? {
            return Ok(false);
        }
        self.dealt(&row.id, started, &append, verified);
        Ok(true)
    }

    /// Pairs seeks now and every [`PAIR_EVERY`], in the background.
    pub fn keep_pairing(self: Arc<Self>) {
        let schedule = Schedule {
            name: "pairing",
            every: PAIR_EVERY,
            wake: None,
            batch: None,
        };
        background::keep_running(schedule, move || {
            let matches = self.clone();
            async move { matches.pair_seeks().await }
        });
    }
}

/// Shuffles `items` with the server's randomness (Fisher–Yates).
fn shuffle<T>(items: &mut [T]) {
    for last in (1..items.len()).rev() {
        let draw = u64::from_le_bytes(crate::random::bytes::<8>());
        // A modulo bias of at most 6 in 2^64: nothing a seat order would notice.
        let pick = (draw % (last as u64 + 1)) as usize;
        items.swap(last, pick);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(body: serde_json::Value) -> NewSeek {
        serde_json::from_value(body).unwrap()
    }

    fn code(body: serde_json::Value) -> &'static str {
        checked(request(body), "a", 0).unwrap_err().code()
    }

    #[test]
    fn a_seek_is_checked_before_it_is_stored() {
        let seek = checked(
            request(serde_json::json!({"preset": "night-one"})),
            "a",
            100,
        )
        .unwrap();
        let preset = crate::rules::Rules::resolve(&serde_json::json!({"preset": "night-one"}));
        assert_eq!(
            seek.table.seats,
            preset.unwrap().players,
            "the preset's seats"
        );
        assert_eq!(seek.expires_at, 100 + i64::from(DEFAULT_EXPIRY_SECONDS));
        assert_eq!(code(serde_json::json!({"preset": "chess"})), "invalid_seek");
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "seats": 9})),
            "invalid_rules"
        );
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "rated": true})),
            "rated_needs_clock"
        );
        assert_eq!(
            code(
                serde_json::json!({"preset": "standard", "rated": true, "clock": "fast_5m", "bots_after_seconds": 60})
            ),
            "invalid_seek"
        );
        assert_eq!(
            code(
                serde_json::json!({"preset": "standard", "rating_range": {"min": 1300, "max": 1200}})
            ),
            "invalid_seek"
        );
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "bots_after_seconds": 5})),
            "invalid_seek"
        );
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "bots_after_seconds": 2_592_001})),
            "invalid_seek"
        );
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "bot_level": "expert"})),
            "invalid_seek"
        );
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "expires_in_seconds": 10})),
            "invalid_seek"
        );
        assert_eq!(
            code(serde_json::json!({"preset": "standard", "on_timeout": "forfeit"})),
            "invalid_clock"
        );
    }

    #[test]
    fn a_shuffle_keeps_every_item() {
        let mut items: Vec<u32> = (0..6).collect();
        shuffle(&mut items);
        items.sort_unstable();
        assert_eq!(items, (0..6).collect::<Vec<_>>());
    }
}
