//! The lobby: opening a table. A new match's rules, clock and settings are checked here, and a
//! table its first seats fill (bots for solo play) is dealt in the same transaction that
//! creates it. Listing tables is [`super::listing`]; taking and leaving seats, [`super::seating`].

use serde::Deserialize;
use utoipa::ToSchema;

use super::access::Player;
use super::bots::BotRequest;
use super::ledger::MatchState;
use super::ledger::advance;
use super::log::{self, Entry};
use super::rated::{self, TableAsked};
use super::refusals::TableError;
use super::{MatchError, MatchSummary, Matches};
use crate::live::Checkpoint;
use crate::model::{
    CLOCK_PRESETS, ClockSettings, MOST_BANK_SECONDS, MOST_TURN_SECONDS, MatchStatus, OnTimeout,
    Visibility,
};
use crate::rules::{Preset, Rules, RulesError};
use crate::store::append::Append;
use crate::store::{MatchRow, NewMatch, SeatRow};
use crate::{random, rules};

/// Longest client seed, in characters.
pub const MAX_CLIENT_SEED: usize = 128;

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
    /// Whether seated players may ask for hints (default true; false at a rated table, which
    /// plays without them).
    pub hints: Option<bool>,
    /// Whether a player's vacation stops their seat's clock (`POST /v1/me/vacation`;
    /// docs/clocks.md, "Vacations"): true by default with a correspondence clock (turns of a day or more), which
    /// it needs.
    pub vacations: Option<bool>,
    /// Whether the match is rated (default false): its end changes its players' ratings in the
    /// pool of its preset (docs/ratings.md). A rated table needs a clock, `on_timeout` `claim` or
    /// `forfeit`, people in every seat (no `bots`), a preset's rules unchanged but for the
    /// number of seats, and no hints.
    #[serde(default)]
    pub rated: bool,
}

/// A clock for a new match: a preset's name, or its figures.
#[derive(ToSchema)]
#[serde(untagged)]
pub enum ClockChoice {
    /// `fast_5m`, `correspondence_1d`, `correspondence_3d` or `correspondence_7d`.
    Preset(String),
    /// Seconds per turn (1 to 30 days) and bank seconds (0 to 60 days).
    Custom(ClockSettings),
}

/// By hand rather than `untagged`: an untagged enum's error says only that nothing matched,
/// where a client needs to hear which field of its figures is wrong (an unknown one, say).
impl<'de> Deserialize<'de> for ClockChoice {
    fn deserialize<D: serde::Deserializer<'de>>(input: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(input)? {
            serde_json::Value::String(name) => Ok(ClockChoice::Preset(name)),
            figures @ serde_json::Value::Object(_) => serde_json::from_value(figures)
                .map(ClockChoice::Custom)
                .map_err(|error| D::Error::custom(format!("clock: {error}"))),
            _ => Err(D::Error::custom(
                "clock is a preset's name or {\"turn_seconds\": n, \"bank_seconds\": m}",
            )),
        }
    }
}

impl ClockChoice {
    pub(super) fn settings(&self) -> Result<ClockSettings, MatchError> {
        let invalid = |detail: String| MatchError::Table(TableError::InvalidClock { detail });
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

impl Matches {
    /// Creates a match with the creator in seat 0.
    pub async fn create(
        &self,
        creator: Player<'_>,
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
            return Err(MatchError::Table(TableError::InvalidClock {
                detail: "on_timeout needs a clock".into(),
            }));
        }
        let vacations = vacations_at(clock.as_ref(), request.vacations)?;
        let rating_pool = if request.rated {
            Some(rated::pool_of(&TableAsked {
                rules: &rules,
                clock: clock.as_ref(),
                on_timeout: request.on_timeout,
                bots: request.bots.len(),
                hints: request.hints,
            })?)
        } else {
            None
        };
        let most_bots = rules.players - 1;
        if request.bots.len() > usize::from(most_bots) {
            return Err(MatchError::Table(TableError::TooManyBots {
                seats: rules.players,
                most: most_bots,
            }));
        }
        let (row, secret) = open_match(
            creator.id(),
            TableSettings {
                visibility: request.visibility,
                rules,
                auto_end_turn: request.auto_end_turn,
                hints: request.hints.unwrap_or(rating_pool.is_none()),
                clock,
                on_timeout: request.on_timeout.unwrap_or_default(),
                vacations,
                rating_pool,
            },
            self.clock.now(),
        );
        let mut seats = vec![SeatRow {
            seat: 0,
            account_id: creator.id().to_owned(),
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
        self.summary(&row.id, creator.viewer()).await
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
        advance(&row.id, &before, Entry::games(events), self.clock.now())
    }

    /// After the first deal of a new match was written: caches it, and wakes who must act.
    pub(super) fn dealt(
        &self,
        match_id: &str,
        started: MatchState,
        append: &Append,
        verified: Checkpoint,
    ) {
        self.ledger.remember(match_id, started, verified);
        self.relay.wake();
        if append.model.bot_turn {
            self.bot_turns.wake();
        }
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
    pub vacations: bool,
    pub rating_pool: Option<Preset>,
}

/// Whether a table with `clock` lets vacations stop it, as `asked` (the default: whenever it
/// is a correspondence clock). Asking for them without a correspondence clock is refused.
pub(super) fn vacations_at(
    clock: Option<&ClockSettings>,
    asked: Option<bool>,
) -> Result<bool, MatchError> {
    let correspondence = clock.is_some_and(ClockSettings::is_correspondence);
    match asked {
        Some(true) if !correspondence => Err(MatchError::Table(TableError::InvalidClock {
            detail: "vacations stop correspondence clocks only (turns of a day or more)".into(),
        })),
        asked => Ok(correspondence && asked.unwrap_or(true)),
    }
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
        rating_pool: table.rating_pool,
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
        vacations: table.vacations,
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
pub(super) fn check_client_seed(seed: &str) -> Result<(), MatchError> {
    if seed.chars().count() > MAX_CLIENT_SEED {
        return Err(MatchError::Table(TableError::InvalidClientSeed));
    }
    Ok(())
}

/// Rules from a preset plus overrides, with `seats` as the `players` option.
pub(super) fn resolve_rules(
    spec: serde_json::Value,
    seats: Option<u8>,
) -> Result<Rules, MatchError> {
    let mut spec = match spec {
        serde_json::Value::Null => serde_json::json!({}),
        other => other,
    };
    if let (Some(seats), Some(fields)) = (seats, spec.as_object_mut()) {
        if fields
            .get("players")
            .is_some_and(|players| players != &serde_json::json!(seats))
        {
            return Err(MatchError::Table(TableError::InvalidRules {
                field: "seats".into(),
                error: RulesError {
                    option: "seats".into(),
                    message: "does not match rules.players".into(),
                },
            }));
        }
        fields.insert("players".into(), seats.into());
    }
    Rules::resolve(&spec).map_err(|error| {
        MatchError::Table(TableError::InvalidRules {
            field: if error.option == "players" && seats.is_some() {
                "seats".to_owned()
            } else {
                error.option.clone()
            },
            error,
        })
    })
}
