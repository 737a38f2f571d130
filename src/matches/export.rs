//! The verifiable export of a finished match, and `verify`: re-deal and re-play it offline,
//! check the commitment, every event hash and, with a clock, every timeout against the times
//! the log records; and say exactly where a tampered file goes wrong.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::log;
use super::log::{Entry, Note};
use super::match_clock::MatchClock;
use crate::model::{ClockSettings, OnTimeout};
use crate::rules::{Event, GameState, OutReason, ReplayError, Rules, Seat, Setup, Status, shuffle};
use crate::time_source::{parse_rfc3339, rfc3339};

/// One seat in an export.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ExportSeat {
    /// Seats are numbered from 0 in clockwise order.
    pub seat: Seat,
    /// Who sat there.
    pub username: String,
    /// Their client seed (`""` for none).
    pub client_seed: String,
}

/// One event in an export.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ExportEvent {
    /// Position, from 1.
    pub seq: i64,
    /// Hex SHA-256 chaining it to the event before (see `log_format`).
    pub hash: String,
    /// When the server wrote it (RFC 3339); chained into the hash under `log_format` 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub at: Option<String>,
    /// The entry, unredacted.
    pub event: Entry,
}

/// The clock a match was played with.
#[derive(Clone, Copy, Serialize, Deserialize, ToSchema)]
pub struct ExportClock {
    /// Seconds a turn, and bank seconds per seat.
    #[serde(flatten)]
    pub settings: ClockSettings,
    /// What a passed deadline meant.
    pub on_timeout: OnTimeout,
    /// Whether a player's vacation stopped their seat's clock (absent: no).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub vacations: bool,
}

/// Everything needed to re-deal and re-play a finished match offline (`kings-corner verify FILE`).
#[derive(Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "format": 1, "match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "rules": {"players": 2, "game_end": {"single_hand": true}},
    "seats": [{"seat": 0, "username": "maya", "client_seed": "maya says hi"}, {"seat": 1, "username": "leo", "client_seed": "leo too"}],
    "commitment": "f9abbe969b2a4a61ac33cfb6c684907aed641b17a5b423ed72f782028cb73ab9",
    "secret": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "shuffle_version": 1, "event_format": 1,
    "events": [{"seq": 1, "hash": "6e3f…", "event": {"type": "turn_started", "seat": 0}}]
}))]
pub struct MatchExport {
    /// Export format version (1).
    pub format: u32,
    /// The match's id (a UUID).
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Every option, as the match was played.
    pub rules: Rules,
    /// Seats, players and client seeds.
    pub seats: Vec<ExportSeat>,
    /// Hex SHA-256 of the secret, as published at creation.
    pub commitment: String,
    /// The revealed secret (hex).
    pub secret: String,
    /// The shuffle algorithm (docs/rules.md §9) the hands were dealt with.
    pub shuffle_version: u32,
    /// The version of the events' JSON format.
    pub event_format: u32,
    /// How the hashes chain: 1, `SHA-256(previous hash ‖ canonical event JSON)`; 2, the same
    /// followed by `"@"` and the event's time in decimal Unix seconds.
    #[serde(default = "first_log_format")]
    pub log_format: u8,
    /// The clock, if the match had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ExportClock>,
    /// The first hand's dealer, for a rematch (the deal moves on from the match before);
    /// absent: drawn from the secret and the client seeds (docs/rules.md §9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_dealer: Option<Seat>,
    /// The whole log, unredacted, in order.
    pub events: Vec<ExportEvent>,
}

fn first_log_format() -> u8 {
    1
}

/// The export format this server writes and `verify` reads.
pub const EXPORT_FORMAT: u32 = 1;

/// No timed log (`log_format` 2) was written before 2026-01-01T00:00:00Z: the format came
/// later, so an earlier time is a forgery.
const EARLIEST_TIME: i64 = 1_767_225_600;

/// How far two servers' clocks may disagree, in seconds: a log written by several processes
/// may step back by this much, and `verify` allows an event this far ahead of its own clock.
const CLOCK_SKEW_SECONDS: i64 = 300;

/// How long after a deadline the server may still write the late seat's own move, in seconds:
/// the move was checked against the clock a moment before it was stamped.
const STAMP_GRACE_SECONDS: i64 = 60;

/// What `verify` found in a valid export.
#[derive(Debug)]
pub struct Verified {
    /// How many events were re-played and chained.
    pub events: usize,
    /// How many hands the log deals.
    pub hands: u32,
    /// The winners the re-play arrived at.
    pub winners: Vec<Seat>,
    /// Each seat's place the re-play arrived at, 1 the best (docs/rules.md §7.5; empty for an
    /// aborted match).
    pub standings: Vec<u8>,
    /// Why the end would not be rated at a rated table (a seat left before it took a turn of
    /// its own, docs/ratings.md); `None` when it would be.
    pub unrated_because: Option<String>,
}

/// Checks an export: the commitment, the hash chain, the checked replay of every event from
/// the revealed secret and client seeds, and the clock: no clock event without a clock, every
/// vacation one the clock admits, and every timeout enforcing the deadline the recorded times
/// give (vacations counted in), after it had passed. The error names the first thing that is
/// wrong. Times are not checked against the present: see [`verify_at`].
pub fn verify(export: &MatchExport) -> Result<Verified, String> {
    verify_at(export, None)
}

/// [`verify`], and with `now` (Unix seconds) also that no event is dated in the future.
pub fn verify_at(export: &MatchExport, now: Option<i64>) -> Result<Verified, String> {
    check_versions(export)?;
    if export.shuffle_version != shuffle::SHUFFLE_VERSION {
        return Err(format!(
            "shuffle_version {} is not known to this verifier",
            export.shuffle_version
        ));
    }
    let secret: [u8; 32] = hex::decode(&export.secret)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or("the secret is not 32 bytes of hex")?;
    if shuffle::commitment(&secret) != export.commitment {
        return Err("the secret does not match the commitment published at creation".to_owned());
    }
    let times = times_of(export)?;
    if export.log_format >= 2 {
        check_times(export, &times, now)?;
    }
    let mut previous = String::new();
    for ((index, logged), at) in export.events.iter().enumerate().zip(&times) {
        if logged.seq != index as i64 + 1 {
            return Err(format!(
                "event {}: sequence number {} is out of order",
                index + 1,
                logged.seq
            ));
        }
        let expected = log::chain(
            export.log_format,
            &previous,
            &log::canonical(&logged.event),
            *at,
        );
        if expected != logged.hash {
            return Err(format!(
                "event {}: its hash does not match its content and the previous hash",
                logged.seq
            ));
        }
        previous = expected;
    }
    let mut client_seeds = vec![String::new(); usize::from(export.rules.players)];
    for seat in &export.seats {
        let slot = client_seeds
            .get_mut(usize::from(seat.seat))
            .ok_or(format!("seat {} does not exist", seat.seat))?;
        slot.clone_from(&seat.client_seed);
    }
    let setup = Setup {
        rules: export.rules.clone(),
        secret,
        client_seeds,
        first_dealer: export.first_dealer,
    };
    let state = replay_entries(setup, &export.events)?;
    if !matches!(state.status(), Status::Finished | Status::Aborted) {
        return Err(format!(
            "the log stops after event {} before the match ends",
            export.events.len()
        ));
    }
    check_clock(export, &times)?;
    Ok(Verified {
        events: export.events.len(),
        hands: state.hand_number(),
        winners: state.winners().unwrap_or_default().to_vec(),
        standings: state.standings().unwrap_or_default(),
        unrated_because: super::ledger::unrated_because(&state),
    })
}

/// The checked replay of a log: its game events through the engine's checked replay, one
/// action's group at a time, and each note checked against the table at its place (never inside
/// a group: nothing the server writes comes between the events of one action).
fn replay_entries(setup: Setup, entries: &[ExportEvent]) -> Result<GameState, String> {
    let (seqs, games): (Vec<i64>, Vec<Event>) = entries
        .iter()
        .filter_map(|logged| Some((logged.seq, logged.event.game()?.clone())))
        .unzip();
    let seq_of = |index: usize| seqs.get(index).map_or(entries.len() as i64 + 1, |seq| *seq);
    let mut state = GameState::new(setup).map_err(|error| error.to_string())?;
    let mut replayed = 0;
    let mut group_end = 0;
    for logged in entries {
        match &logged.event {
            Entry::Game(_) => {
                if replayed == group_end {
                    group_end += state.replay_step(&games, replayed).map_err(
                        |error| match error {
                            ReplayError::Setup(error) => error.to_string(),
                            ReplayError::NotAnAction { index, found } => format!(
                                "event {}: {found} does not follow from any action at that point",
                                seq_of(index)
                            ),
                            ReplayError::Refused { index, error } => format!(
                                "event {}: it records an action the rules refuse: {error}",
                                seq_of(index)
                            ),
                            ReplayError::Mismatch {
                                index,
                                expected,
                                found,
                            } => format!(
                                "event {}: it should be {expected} but the log has {found}",
                                seq_of(index)
                            ),
                        },
                    )?;
                }
                replayed += 1;
            }
            Entry::Note(note) => {
                if replayed < group_end {
                    return Err(format!(
                        "event {}: a note among the events of one action",
                        logged.seq
                    ));
                }
                note.check(&state).map_err(|error| {
                    format!("event {}: a note the table refuses: {error}", logged.seq)
                })?;
            }
        }
    }
    Ok(state)
}

/// The format versions an export names, each one this verifier reads.
fn check_versions(export: &MatchExport) -> Result<(), String> {
    if export.format != EXPORT_FORMAT {
        return Err(format!(
            "format {} is not known to this verifier (it reads {EXPORT_FORMAT})",
            export.format
        ));
    }
    if export.event_format != crate::rules::EVENT_FORMAT_VERSION {
        return Err(format!(
            "event_format {} is not known to this verifier (it reads {})",
            export.event_format,
            crate::rules::EVENT_FORMAT_VERSION
        ));
    }
    if !(1..=log::LOG_FORMAT).contains(&export.log_format) {
        return Err(format!(
            "log_format {} is not known to this verifier (it reads 1 to {})",
            export.log_format,
            log::LOG_FORMAT
        ));
    }
    Ok(())
}

/// The times of a timed log: none before timed logs existed, none in the future of `now`, and
/// none earlier than one before it by more than two servers' clocks may differ.
fn check_times(export: &MatchExport, times: &[i64], now: Option<i64>) -> Result<(), String> {
    // No event is earlier than EARLIEST_TIME (checked first), so it is where the latest starts.
    let mut latest = EARLIEST_TIME;
    for (logged, &at) in export.events.iter().zip(times) {
        if at < EARLIEST_TIME {
            return Err(format!(
                "event {}: dated {}, before any timed log was written ({})",
                logged.seq,
                rfc3339(at),
                rfc3339(EARLIEST_TIME)
            ));
        }
        if let Some(now) = now
            && at > now + CLOCK_SKEW_SECONDS
        {
            return Err(format!(
                "event {}: dated {}, in the future (it is now {})",
                logged.seq,
                rfc3339(at),
                rfc3339(now)
            ));
        }
        if at < latest - CLOCK_SKEW_SECONDS {
            return Err(format!(
                "event {}: dated {}, before an earlier event's {}: its times go backwards",
                logged.seq,
                rfc3339(at),
                rfc3339(latest)
            ));
        }
        latest = latest.max(at);
    }
    Ok(())
}

/// Each event's time (Unix seconds; 0 where an old export records none).
fn times_of(export: &MatchExport) -> Result<Vec<i64>, String> {
    export
        .events
        .iter()
        .map(|logged| match &logged.at {
            None if export.log_format < 2 => Ok(0),
            None => Err(format!("event {}: its time is missing", logged.seq)),
            Some(at) => parse_rfc3339(at)
                .ok_or_else(|| format!("event {}: `{at}` is not an RFC 3339 time", logged.seq)),
        })
        .collect()
}

/// The clock's events against the clock folded from the log's times.
fn check_clock(export: &MatchExport, times: &[i64]) -> Result<(), String> {
    let mut clock = export.clock.map(|clock| {
        MatchClock::new(
            clock.settings,
            clock.on_timeout,
            clock.vacations,
            export.rules.players,
        )
    });
    for (logged, at) in export.events.iter().zip(times) {
        if let Entry::Note(note @ (Note::VacationStarted { .. } | Note::VacationEnded { .. })) =
            &logged.event
        {
            let Some(clock) = &clock else {
                return Err(format!(
                    "event {}: a vacation in a match without a clock",
                    logged.seq
                ));
            };
            clock.admits(note, *at).map_err(|refusal| {
                format!("event {}: a vacation refused: {refusal}", logged.seq)
            })?;
        }
        let enforced = match &logged.event {
            Entry::Game(Event::SeatOut {
                reason: OutReason::Timeout,
                deadline,
                ..
            }) => Some(("a timeout", deadline.as_deref())),
            Entry::Note(Note::DeadlineNear { deadline, .. }) => {
                Some(("a reminder", Some(deadline.as_str())))
            }
            Entry::Note(Note::BotStoodIn { deadline, .. }) => {
                Some(("a bot's stand-in", Some(deadline.as_str())))
            }
            _ => None,
        };
        if let Some((what, recorded)) = enforced {
            let Some(clock) = &clock else {
                return Err(format!(
                    "event {}: {what} in a match without a clock",
                    logged.seq
                ));
            };
            let Some((_, deadline)) = clock.deadline() else {
                return Err(format!("event {}: {what} while no turn runs", logged.seq));
            };
            if recorded != Some(rfc3339(deadline).as_str()) {
                return Err(format!(
                    "event {}: {what} records the deadline {}, but the log's times give {}",
                    logged.seq,
                    recorded.unwrap_or("none"),
                    rfc3339(deadline)
                ));
            }
            let takes_over = matches!(
                logged.event,
                Entry::Game(Event::SeatOut { .. }) | Entry::Note(Note::BotStoodIn { .. })
            );
            if takes_over && *at < deadline {
                return Err(format!(
                    "event {}: {what} written at {}, before its deadline {}",
                    logged.seq,
                    rfc3339(*at),
                    rfc3339(deadline)
                ));
            }
        }
        if let Some(clock) = &clock
            && let Some((seat, deadline)) = played_on_past_a_deadline(clock, &logged.event, *at)
        {
            return Err(format!(
                "event {}: written at {}, past seat {seat}'s deadline {} at a table whose \
                 timeouts {}, but no timeout was written",
                logged.seq,
                rfc3339(*at),
                rfc3339(deadline),
                match clock.on_timeout() {
                    OnTimeout::Bot => "a bot plays",
                    _ => "forfeit",
                }
            ));
        }
        if let Some(clock) = &mut clock {
            clock.observe(&logged.event, *at);
        }
    }
    Ok(())
}

/// The seat and deadline `event`, written at `at`, went on past, if it goes on with a turn after
/// its deadline at a table whose server acts at a deadline by itself (a forfeit, or a bot
/// standing in), which it does before anything else is played: only the timeout itself, or the
/// bot's moves once it stands in, may follow a deadline by more than the stamp's grace.
fn played_on_past_a_deadline(clock: &MatchClock, event: &Entry, at: i64) -> Option<(Seat, i64)> {
    let Entry::Game(event) = event else {
        return None;
    };
    let acts_by_itself = matches!(clock.on_timeout(), OnTimeout::Forfeit | OnTimeout::Bot);
    let is_the_timeout = matches!(
        event,
        Event::SeatOut {
            reason: OutReason::Timeout,
            ..
        }
    );
    if !acts_by_itself || is_the_timeout || clock.stood_in() {
        return None;
    }
    clock
        .deadline()
        .filter(|(_, deadline)| at >= deadline + STAMP_GRACE_SECONDS)
}
