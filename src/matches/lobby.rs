//! The lobby: creating a match, listing matches, summaries, and seat changes (join, leave).
//!
//! A seat change locks its match for the length of one transaction ([`crate::store::seating`]),
//! and the last join deals the first hand in that same transaction: a match is never full and
//! not started, and never started with a seat empty.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::access::{self, Viewer};
use super::bots::BotRequest;
use super::cache::MatchState;
use super::log;
use super::notices::{self, Seats};
use super::state::advance;
use super::{MatchError, MatchSummary, Matches};
use crate::live::Checkpoint;
use crate::model::{
    CLOCK_PRESETS, ClockSettings, MOST_BANK_SECONDS, MOST_TURN_SECONDS, MatchStatus, OnTimeout,
    Visibility,
};
use crate::rules::{Rules, RulesError, Seat};
use crate::store::append::Append;
use crate::store::seating::SeatChange;
use crate::store::{Cursor, Listing, MatchRow, NewMatch, SeatRow};
use crate::{random, rules, store};

/// Longest client seed, in characters.
pub const MAX_CLIENT_SEED: usize = 128;

/// Most matches on one page of a listing.
const MAX_PAGE: i64 = 100;

/// A new match.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"rules": {"preset": "standard", "must_play": true}, "seats": 4, "visibility": "public", "client_seed": "my lucky seed"}))]
pub struct CreateMatch {
    /// A preset plus overrides (`{"preset": "night-one", "king_hold_penalty": 3}`); see `GET /v1/rules`.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub rules: serde_json::Value,
    /// Number of seats (the `players` option); the creator takes seat 0.
    pub seats: Option<u8>,
    /// `public` (default) or `private`.
    #[serde(default)]
    pub visibility: Visibility,
    /// Mixed into every hand's shuffle seed (at most 128 characters).
    #[serde(default)]
    pub client_seed: String,
    /// Whether the server ends a turn whose only legal action is `end_turn` (default true).
    #[serde(default = "yes")]
    pub auto_end_turn: bool,
    /// A clock: a preset (`fast_5m`, `correspondence_1d`, `correspondence_3d`,
    /// `correspondence_7d`) or `{"turn_seconds": n, "bank_seconds": m}`; none by default.
    pub clock: Option<ClockChoice>,
    /// What a passed deadline means: `claim` (default: another seat may forfeit the late one),
    /// `forfeit` (the server forfeits it) or `bot` (the `basic` bot plays the late turn and
    /// the seat stays in). Needs a clock.
    pub on_timeout: Option<OnTimeout>,
    /// Bots seated at once after the creator, in seats 1, 2, …: `[{"level": "expert"}]`. A
    /// table they fill starts at once (solo play).
    #[serde(default)]
    pub bots: Vec<BotRequest>,
    /// Whether seated players may ask for hints (default true).
    #[serde(default = "yes")]
    pub hints: bool,
}

/// A clock for a new match: a preset's name, or its figures.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ClockChoice {
    /// `fast_5m`, `correspondence_1d`, `correspondence_3d` or `correspondence_7d`.
    Preset(String),
    /// Seconds per turn (1 to 30 days) and bank seconds (0 to 60 days).
    Custom(ClockSettings),
}

impl ClockChoice {
    fn settings(&self) -> Result<ClockSettings, MatchError> {
        let invalid = |detail: String| MatchError::InvalidClock { detail };
        match self {
            ClockChoice::Preset(name) => CLOCK_PRESETS
                .iter()
                .find(|(preset, _)| preset == name)
                .map(|(_, settings)| *settings)
                .ok_or_else(|| {
                    invalid(format!(
                        "unknown clock `{name}`: use fast_5m, correspondence_1d, correspondence_3d, correspondence_7d, or {{\"turn_seconds\": n, \"bank_seconds\": m}}"
                    ))
                }),
            ClockChoice::Custom(settings) => {
                if !(1..=MOST_TURN_SECONDS).contains(&settings.turn_seconds) {
                    return Err(invalid(format!(
                        "turn_seconds is 1 to {} (30 days)",
                        MOST_TURN_SECONDS
                    )));
                }
                if settings.bank_seconds > MOST_BANK_SECONDS {
                    return Err(invalid(format!(
                        "bank_seconds is 0 to {} (60 days)",
                        MOST_BANK_SECONDS
                    )));
                }
                Ok(*settings)
            }
        }
    }
}

fn yes() -> bool {
    true
}

/// Joining a match.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"client_seed": "my lucky seed", "invite_code": "k2J9xQ0aPq1z"}))]
pub struct JoinMatch {
    /// Mixed into every hand's shuffle seed (at most 128 characters).
    #[serde(default)]
    #[schema(max_length = 128)]
    pub client_seed: String,
    /// Required for a private match.
    pub invite_code: Option<String>,
}

/// Which matches to list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `true`: the caller's matches, newest first.
    pub mine: Option<bool>,
    /// With `mine=true`: only matches `open`, `playing`, `finished` or `aborted` (the history
    /// with results).
    pub status: Option<MatchStatus>,
    /// `mine`: the caller's inbox, matches waiting for their move, soonest deadline first
    /// (then, without a clock, the longest waiting).
    pub turn: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1)]
    pub cursor: Option<String>,
    /// Page size, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// A page of matches.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"matches": [], "next_cursor": null}))]
pub struct MatchPage {
    /// The matches.
    pub matches: Vec<MatchSummary>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

impl Matches {
    /// Creates a match with the creator in seat 0.
    pub async fn create(
        &self,
        creator: &str,
        request: CreateMatch,
    ) -> Result<MatchSummary, MatchError> {
        check_client_seed(&request.client_seed)?;
        let rules = resolve_rules(request.rules, request.seats)?;
        let clock = request
            .clock
            .as_ref()
            .map(ClockChoice::settings)
            .transpose()?;
        if clock.is_none() && request.on_timeout.is_some() {
            return Err(MatchError::InvalidClock {
                detail: "on_timeout needs a clock".into(),
            });
        }
        let most_bots = rules.players - 1;
        if request.bots.len() > usize::from(most_bots) {
            return Err(MatchError::TooManyBots {
                seats: rules.players,
                most: most_bots,
            });
        }
        let (row, secret) = open_match(
            creator,
            TableSettings {
                visibility: request.visibility,
                rules,
                auto_end_turn: request.auto_end_turn,
                hints: request.hints,
                clock,
                on_timeout: request.on_timeout.unwrap_or_default(),
            },
            self.clock.now(),
        );
        let mut seats = vec![SeatRow {
            seat: 0,
            account_id: creator.to_owned(),
            username: String::new(),
            client_seed: request.client_seed,
            bot: None,
        }];
        for (seat, bot) in (1..).zip(&request.bots) {
            seats.push(bot.seat(seat, &seats));
        }
        if seats.len() < usize::from(row.seat_count) {
            let new = NewMatch {
                row: &row,
                secret: &secret,
                seats: &seats,
                plan: &[],
                start: None,
            };
            self.db.insert_match(&new).await?;
        } else {
            self.insert_started(&row, &secret, &seats).await?;
        }
        self.summary(&row.id, Viewer::Account(creator)).await
    }

    /// Creates a match its first seats fill (solo play: the bots fill the table), its first
    /// hand dealt in the same transaction.
    async fn insert_started(
        &self,
        row: &MatchRow,
        secret: &str,
        seats: &[SeatRow],
    ) -> Result<(), MatchError> {
        let (started, append) = self.first_deal(row, secret, seats)?;
        let verified = self.notifier.checkpoint();
        let new = NewMatch {
            row,
            secret,
            seats,
            plan: &[],
            start: Some(&append),
        };
        self.db.insert_match(&new).await?;
        self.dealt(&row.id, started, &append, verified);
        Ok(())
    }

    /// The first hand of a match whose first seats fill it, and its writes.
    pub(super) fn first_deal(
        &self,
        row: &MatchRow,
        secret: &str,
        seats: &[SeatRow],
    ) -> Result<(MatchState, Append), MatchError> {
        let before = MatchState::before_start(row, seats, secret)?;
        let events = before.state.start()?;
        advance(&row.id, &before, events, self.clock.now())
    }

    /// After the first deal of a new match was written: caches it, and wakes who must act.
    pub(super) fn dealt(
        &self,
        match_id: &str,
        started: MatchState,
        append: &Append,
        verified: Checkpoint,
    ) {
        self.remember(match_id, started, verified);
        self.relay.wake();
        if append.model.bot_turn {
            self.bot_turns.wake();
        }
    }

    /// A page of the open public lobby, the caller's matches or their inbox.
    pub async fn list(&self, account_id: &str, query: ListQuery) -> Result<MatchPage, MatchError> {
        let listing = match (query.mine, query.turn.as_deref(), query.status) {
            (_, Some("mine"), None) => Listing::Inbox,
            (_, Some(_), _) => {
                return Err(MatchError::invalid_query(
                    "turn",
                    "turn takes only `mine`, and lists matches being played: no status",
                ));
            }
            (Some(true), None, status) => Listing::Mine { status },
            (_, None, Some(_)) => {
                return Err(MatchError::invalid_query(
                    "status",
                    "status filters your own matches: add mine=true",
                ));
            }
            _ => Listing::Lobby,
        };
        let limit = query.limit.unwrap_or(20);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(MatchError::invalid_query("limit", "limit is 1 to 100"));
        }
        let cursor = match &query.cursor {
            None => None,
            Some(cursor) => Some(
                decode_cursor(cursor)
                    .filter(|cursor| cursor.keys.len() == listing.sort_keys().len())
                    .ok_or_else(|| {
                        MatchError::invalid_query("cursor", "not a cursor of this listing")
                    })?,
            ),
        };
        let rows = self
            .db
            .list_matches(listing, account_id, cursor.as_ref(), limit)
            .await?;
        let next_cursor = (rows.len() as i64 == limit)
            .then(|| rows.last().map(|last| encode_cursor(listing, last)))
            .flatten();
        let ids: Vec<String> = rows.iter().map(|row| row.id.clone()).collect();
        let mut seats = self.db.seats_of(&ids).await?;
        let now = self.clock.now();
        let matches = rows
            .iter()
            .map(|row| {
                let seats = seats.remove(&row.id).unwrap_or_default();
                let seated = store::seat_of(&seats, account_id).is_some();
                MatchSummary::new(row, &seats, seated, now)
            })
            .collect();
        Ok(MatchPage {
            matches,
            next_cursor,
        })
    }

    /// The summary of a match the caller may see, with running totals once it has started.
    pub async fn summary(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
    ) -> Result<MatchSummary, MatchError> {
        let (read, seats, seat) = self.read_row_and_seats(match_id, viewer).await?;
        let now = self.clock.now();
        let summary = MatchSummary::new(&read.row, &seats, seat.is_some(), now);
        if read.row.version == 0 {
            return Ok(summary);
        }
        let current = self.load(&read).await?;
        let current = self.on_time(match_id, current).await?;
        if current.version != read.row.version {
            // The clock forfeited a late seat just now: the row has moved on.
            return Box::pin(self.summary(match_id, viewer)).await;
        }
        Ok(summary.with_state(&current, now))
    }

    /// Seats the caller in the lowest free seat of an open match; the last seat taken deals the
    /// first hand, in the same transaction. Joining a match one already sits in succeeds again
    /// (a retry after an unclear failure gets the same answer), with or without the invite code.
    pub async fn join(
        &self,
        match_id: &str,
        account_id: &str,
        request: JoinMatch,
    ) -> Result<MatchSummary, MatchError> {
        check_client_seed(&request.client_seed)?;
        let (mut change, seat) = self.lock_seats(match_id, account_id).await?;
        if seat.is_some() {
            drop(change);
            return self.summary(match_id, Viewer::Account(account_id)).await;
        }
        // A rematch's seats are kept for the players of the match before it, who need no code.
        let plan = change.plan().await?;
        let planned = plan.iter().any(|(_, player)| player == account_id);
        let row = &change.row;
        if row.visibility == Visibility::Private
            && !planned
            && row.invite_code.as_deref() != request.invite_code.as_deref()
        {
            // A private match is invisible without its code.
            return Err(MatchError::NotFound);
        }
        if !plan.is_empty() && !planned {
            return Err(MatchError::NotInRematch);
        }
        let taken = change.seats.len();
        if row.status != MatchStatus::Open || taken >= usize::from(row.seat_count) {
            return Err(MatchError::MatchFull);
        }
        change
            .take_seat(
                taken as Seat,
                account_id,
                &request.client_seed,
                None,
                self.clock.now(),
            )
            .await?;
        self.seat_taken(change).await?;
        self.summary(match_id, Viewer::Account(account_id)).await
    }

    /// A match locked for a change of its seats, and the caller's seat in it.
    pub(super) async fn lock_seats(
        &self,
        match_id: &str,
        account_id: &str,
    ) -> Result<(SeatChange, Option<Seat>), MatchError> {
        let change = self
            .db
            .lock_seats(match_id)
            .await?
            .ok_or(MatchError::NotFound)?;
        let seat = store::seat_of(&change.seats, account_id);
        Ok((change, seat))
    }

    /// Commits a seat change that took the last seat of `change.seats`: the others waiting are
    /// told who joined or, when that filled the table, the first hand is dealt with it.
    pub(super) async fn seat_taken(&self, mut change: SeatChange) -> Result<(), MatchError> {
        if change.seats.len() < usize::from(change.row.seat_count) {
            let joined = change.seats.last().map(|seat| seat.username.clone());
            let notices = notices::of_seat_change(
                &change.row,
                &change.seats,
                joined.as_deref().unwrap_or_default(),
                Seats::Joined,
                self.clock.now(),
            );
            change.notify(&notices).await?;
            change.commit().await?;
        } else {
            self.start(change).await?;
        }
        self.relay.wake();
        Ok(())
    }

    /// Gives up the caller's seat: in a match that has not started the seat is freed; in one
    /// being played, leaving is resigning (docs/rules.md §7).
    pub async fn leave(&self, match_id: &str, account_id: &str) -> Result<(), MatchError> {
        let (mut change, seat) = self.lock_seats(match_id, account_id).await?;
        access::check_visible(&change.row, Viewer::Account(account_id), seat)?;
        if seat.is_none() {
            return Err(MatchError::NotSeated);
        }
        match change.row.status {
            MatchStatus::Open => {
                let seat = usize::from(seat.unwrap_or_default());
                let username = change.seats[seat].username.clone();
                change.free_seat(account_id).await?;
                let notices = notices::of_seat_change(
                    &change.row,
                    &change.seats,
                    &username,
                    Seats::Left,
                    self.clock.now(),
                );
                change.notify(&notices).await?;
                change.commit().await?;
                self.relay.wake();
                Ok(())
            }
            MatchStatus::Playing => {
                drop(change);
                self.resign(match_id, account_id).await.map(|_| ())
            }
            MatchStatus::Finished | MatchStatus::Aborted => Err(MatchError::MatchStarted),
        }
    }

    /// Deals the first hand of a match whose seats are all taken, and commits the seat change
    /// that filled it together with the deal.
    async fn start(&self, mut change: SeatChange) -> Result<(), MatchError> {
        if change.row.rematch_of.is_some() {
            let plan = change.plan().await?;
            change.seat_as_planned(&plan).await?;
        }
        let secret = change.secret().await?;
        let before = MatchState::before_start(&change.row, &change.seats, &secret)?;
        let events = before.state.start()?;
        let (started, append) = advance(&change.row.id, &before, events, self.clock.now())?;
        let verified = self.notifier.checkpoint();
        if !change.append(&append).await? {
            return Err(MatchError::Corrupt(
                "a match locked for its start had moved on".into(),
            ));
        }
        let match_id = change.row.id.clone();
        change.commit().await?;
        self.remember(&match_id, started, verified);
        if append.model.bot_turn {
            self.bot_turns.wake();
        }
        Ok(())
    }
}

/// What a table plays with, chosen at its creation (and kept by its rematches).
pub(super) struct TableSettings {
    pub visibility: Visibility,
    pub rules: Rules,
    pub auto_end_turn: bool,
    pub hints: bool,
    pub clock: Option<ClockSettings>,
    pub on_timeout: OnTimeout,
}

/// The row of a new match waiting for players, created by `creator` at `now`, and its fresh
/// shuffle secret (hex), whose commitment the row publishes.
pub(super) fn open_match(creator: &str, table: TableSettings, now: i64) -> (MatchRow, String) {
    let secret = random::bytes::<32>();
    let private = table.visibility == Visibility::Private;
    let row = MatchRow {
        id: uuid::Uuid::new_v4().to_string(),
        created_by: creator.to_owned(),
        visibility: table.visibility,
        invite_code: private.then(random::token::<9>),
        spectator_code: private.then(random::token::<9>),
        seat_count: table.rules.players,
        rules: table.rules,
        auto_end_turn: table.auto_end_turn,
        hints: table.hints,
        status: MatchStatus::Open,
        version: 0,
        commitment: rules::shuffle::commitment(&secret),
        shuffle_version: rules::shuffle::SHUFFLE_VERSION,
        turn_seat: None,
        turn_since: None,
        winners: None,
        created_at: now,
        updated_at: now,
        clock: table.clock,
        on_timeout: table.on_timeout,
        deadline: None,
        outcome: None,
        final_totals: None,
        log_format: log::LOG_FORMAT,
        first_dealer: None,
        rematch_of: None,
        next_match_id: None,
    };
    (row, hex::encode(secret))
}

/// Refuses a client seed longer than [`MAX_CLIENT_SEED`] characters.
fn check_client_seed(seed: &str) -> Result<(), MatchError> {
    if seed.chars().count() > MAX_CLIENT_SEED {
        return Err(MatchError::InvalidClientSeed);
    }
    Ok(())
}

/// Rules from a preset plus overrides, with `seats` as the `players` option.
fn resolve_rules(spec: serde_json::Value, seats: Option<u8>) -> Result<Rules, MatchError> {
    let mut spec = match spec {
        serde_json::Value::Null => serde_json::json!({}),
        other => other,
    };
    if let (Some(seats), Some(fields)) = (seats, spec.as_object_mut()) {
        if fields
            .get("players")
            .is_some_and(|players| players != &serde_json::json!(seats))
        {
            return Err(MatchError::InvalidRules {
                field: "seats".into(),
                error: RulesError {
                    option: "seats".into(),
                    message: "does not match rules.players".into(),
                },
            });
        }
        fields.insert("players".into(), seats.into());
    }
    Rules::resolve(&spec).map_err(|error| MatchError::InvalidRules {
        field: if error.option == "players" && seats.is_some() {
            "seats".to_owned()
        } else {
            error.option.clone()
        },
        error,
    })
}

/// A listing's cursor: the last row's sort keys and id, opaque to clients.
fn encode_cursor(listing: Listing, last: &MatchRow) -> String {
    let keys: Vec<String> = listing
        .keys_of(last)
        .iter()
        .map(ToString::to_string)
        .collect();
    URL_SAFE_NO_PAD.encode(format!("{}:{}", keys.join(","), last.id))
}

fn decode_cursor(cursor: &str) -> Option<Cursor> {
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(cursor).ok()?).ok()?;
    let (keys, id) = text.split_once(':')?;
    let keys = keys
        .split(',')
        .map(|key| key.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    Some(Cursor {
        keys,
        id: id.to_owned(),
    })
}
