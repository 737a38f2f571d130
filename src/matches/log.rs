//! A match's log: its entries (the engine's game events, and the notes the server writes beside
//! them: reminders, stand-ins, talk, nudges, vacations), their canonical bytes and the hash
//! chain (the first entry's previous hash is empty). `kings-corner verify` checks the same chain
//! offline. Entries are encoded for the store here and decoded from it here, nowhere else.
//!
//! - Format 1: `hash = SHA-256(previous hash ‖ canonical event bytes)`.
//! - Format 2 (matches created since clocks exist): `hash = SHA-256(previous hash ‖ canonical
//!   event bytes ‖ "@" ‖ the time it was written, decimal Unix seconds)`, so that the times a
//!   timeout is judged by cannot be changed either.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use utoipa::openapi::{RefOr, Schema};

use super::MatchError;
use crate::rules::{Event, GameState, RuleError, Seat, Status};
use crate::store::StoredEvent;

/// The canonical bytes of an entry: its compact JSON (fields in declaration order).
pub fn canonical(entry: &Entry) -> String {
    serde_json::to_string(entry).expect("entries serialise")
}

/// The log format of new matches.
pub const LOG_FORMAT: u8 = 2;

/// The hash of an event given the previous event's hash (hex; `""` for the first event), in
/// log format `format`, for an event written at `at` (Unix seconds).
pub fn chain(format: u8, previous: &str, canonical_event: &str, at: i64) -> String {
    let mut hasher = Sha256::new();
    hasher.update(hex::decode(previous).unwrap_or_default());
    hasher.update(canonical_event.as_bytes());
    if format >= 2 {
        hasher.update(format!("@{at}").as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// One event of a match's log, read back.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// 1-based position; the match's version after it.
    pub seq: i64,
    /// Its link in the hash chain.
    pub hash: String,
    /// When it was written (Unix seconds).
    pub at: i64,
    /// The entry, unredacted.
    pub event: Entry,
}

/// Numbers and chains new events, written at `at`, after the one at `version` whose hash is
/// `last_hash`, which moves on to the last new event's hash.
pub fn encode(
    format: u8,
    version: i64,
    last_hash: &mut String,
    events: &[Entry],
    at: i64,
) -> Vec<StoredEvent> {
    (version + 1..)
        .zip(events)
        .map(|(seq, event)| {
            let event = canonical(event);
            let hash = chain(format, last_hash, &event, at);
            last_hash.clone_from(&hash);
            StoredEvent {
                seq,
                event,
                hash,
                at,
            }
        })
        .collect()
}

/// Reads a stored entry back. Game events, nearly all of a log, are read straight as such; a
/// note only once it is no game event.
pub fn decode(stored: StoredEvent) -> Result<Recorded, MatchError> {
    let event = match serde_json::from_str::<Event>(&stored.event) {
        Ok(event) => Entry::Game(event),
        Err(error) => serde_json::from_str::<Note>(&stored.event)
            .map(Entry::Note)
            .map_err(|_| MatchError::Corrupt(format!("event {}: {error}", stored.seq)))?,
    };
    Ok(Recorded {
        seq: stored.seq,
        hash: stored.hash,
        at: stored.at,
        event,
    })
}

/// One entry of a match's log: a game event, or a note the server writes beside the play.
///
/// Stored and served with the same bytes as before the two were told apart: an entry is its
/// event's or its note's own JSON, tagged by `type`, so every stored log reads unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Entry {
    /// What the rules say happened.
    Game(Event),
    /// What the server wrote: reminders, stand-ins, talk, nudges, vacations.
    Note(Note),
}

/// What the server writes into a match's log that is not the game's business: it changes
/// nothing at the table, so the engine never sees it. Checked against the table when written,
/// and again by `kings-corner verify` ([`Note::check`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Note {
    /// The seat to move has a tenth of its time left (a reminder written by the server; it
    /// changes nothing).
    DeadlineNear {
        /// The seat to move.
        seat: Seat,
        /// Its deadline (RFC 3339).
        #[schema(format = DateTime)]
        deadline: String,
    },
    /// A seated player said something to the table (`POST /v1/matches/{id}/messages`). Part of
    /// the log so that every reader gets it in order with the play; it changes nothing at the
    /// table. Plain text, never markup: clients must show it as text.
    TableTalk {
        /// Who said it.
        seat: Seat,
        /// What they said (1–500 characters, no control characters but line breaks).
        text: String,
    },
    /// The seat to move ran out of time at a table whose late turns a bot plays (the server's
    /// setting `on_timeout: bot`): the actions that follow, to the end of this turn, are the
    /// `basic` bot's. The seat stays in the game. Written by the server; it changes nothing.
    BotStoodIn {
        /// The late seat.
        seat: Seat,
        /// The deadline it missed (RFC 3339).
        #[schema(format = DateTime)]
        deadline: String,
    },
    /// Another seat reminded the seat to move that the table waits for it
    /// (`POST /v1/matches/{id}/nudge`). It changes nothing at the table.
    Nudged {
        /// The seat to move.
        seat: Seat,
        /// The seat that nudged it.
        by: Seat,
    },
    /// The seat's player went on vacation (`POST /v1/me/vacation`) at a table whose
    /// correspondence clock allows vacations: the seat's clock stops until `until`, so a turn of
    /// its that runs meanwhile has its deadline moved by the time away. Written by the server;
    /// it changes nothing at the table.
    VacationStarted {
        /// The seat away.
        seat: Seat,
        /// When the vacation ends unless the player comes back before (RFC 3339).
        #[schema(format = DateTime)]
        until: String,
    },
    /// Another seat gave the seat to move more time (`POST /v1/matches/{id}/give-time`): its
    /// bank grows by `seconds` (the table's time for a turn), so this turn's deadline moves by
    /// as much. Once a turn, before the deadline; the table is as it was.
    TimeGiven {
        /// The seat to move.
        seat: Seat,
        /// The seat that gave it.
        by: Seat,
        /// Seconds given.
        seconds: u32,
    },
    /// The seat's player came back before its vacation's end (`DELETE /v1/me/vacation`): the
    /// seat's clock runs again from here. Written by the server; it changes nothing at the
    /// table.
    VacationEnded {
        /// The seat back.
        seat: Seat,
    },
}

impl Note {
    /// Whether `state` admits the note now: a reminder, a stand-in or a nudge is for the seat to
    /// move (and a nudge comes from a seat still in); talk is for a seat of a match being played
    /// (a seat that is out may still talk); a vacation's start or end is for a seat still in.
    /// What the clock says of a vacation is checked with the clock
    /// ([`super::match_clock::MatchClock::admits`]).
    pub fn check(&self, state: &GameState) -> Result<(), RuleError> {
        match self {
            Note::VacationStarted { seat, .. } | Note::VacationEnded { seat } => {
                if state.status() != Status::Playing {
                    Err(RuleError::HandOver)
                } else if *seat >= state.players() {
                    Err(RuleError::UnknownSeat(*seat))
                } else if !state.is_active(*seat) {
                    Err(RuleError::SeatOut(*seat))
                } else {
                    Ok(())
                }
            }
            Note::DeadlineNear { seat, .. } | Note::BotStoodIn { seat, .. } => {
                state.check_to_move(*seat)
            }
            Note::Nudged { seat, by } | Note::TimeGiven { seat, by, .. } => {
                state.check_to_move(*seat)?;
                if *by >= state.players() {
                    Err(RuleError::UnknownSeat(*by))
                } else if !state.is_active(*by) {
                    Err(RuleError::SeatOut(*by))
                } else {
                    Ok(())
                }
            }
            Note::TableTalk { seat, .. } => {
                if state.status() != Status::Playing {
                    Err(RuleError::HandOver)
                } else if *seat >= state.players() {
                    Err(RuleError::UnknownSeat(*seat))
                } else {
                    Ok(())
                }
            }
        }
    }

    /// The note as an entry of the log, if `state` admits it now.
    pub fn checked(self, state: &GameState) -> Result<Entry, RuleError> {
        self.check(state)?;
        Ok(Entry::Note(self))
    }
}

impl Entry {
    /// Game events as entries of the log.
    pub fn games(events: Vec<Event>) -> Vec<Entry> {
        events.into_iter().map(Entry::Game).collect()
    }

    /// The game event, if the entry is one.
    pub fn game(&self) -> Option<&Event> {
        match self {
            Entry::Game(event) => Some(event),
            Entry::Note(_) => None,
        }
    }

    /// Whether the entry changes the table: talk, reminders, nudges, time given and vacations do not, so a
    /// move chosen before them is still a move chosen from the table as it is. A stand-in does: from it on,
    /// the bot plays the turn.
    pub fn changes_table(&self) -> bool {
        !matches!(
            self,
            Entry::Note(
                Note::TableTalk { .. }
                    | Note::DeadlineNear { .. }
                    | Note::Nudged { .. }
                    | Note::TimeGiven { .. }
                    | Note::VacationStarted { .. }
                    | Note::VacationEnded { .. }
            )
        )
    }

    /// The entry as `viewer` may see it (`None`: a spectator); see [`Event::redacted_for`].
    /// Notes hide nothing.
    pub fn redacted_for(&self, viewer: Option<Seat>) -> Entry {
        match self {
            Entry::Game(event) => Entry::Game(event.redacted_for(viewer)),
            Entry::Note(note) => Entry::Note(note.clone()),
        }
    }

    /// Reads an entry from its JSON: a note by its `type`, anything else as a game event (whose
    /// error, should it be neither, names what is wrong).
    fn from_value(value: serde_json::Value) -> Result<Entry, serde_json::Error> {
        let note = matches!(
            value.get("type").and_then(serde_json::Value::as_str),
            Some(
                "deadline_near"
                    | "table_talk"
                    | "bot_stood_in"
                    | "nudged"
                    | "time_given"
                    | "vacation_started"
                    | "vacation_ended"
            )
        );
        if note {
            serde_json::from_value(value).map(Entry::Note)
        } else {
            serde_json::from_value(value).map(Entry::Game)
        }
    }
}

impl From<Event> for Entry {
    fn from(event: Event) -> Entry {
        Entry::Game(event)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Entry::from_value(value).map_err(serde::de::Error::custom)
    }
}

/// In the API an entry is one union tagged by `type`, named `Event` as it always was: the game
/// events' variants and the notes' side by side.
impl utoipa::PartialSchema for Entry {
    fn schema() -> RefOr<Schema> {
        let mut union = match Event::schema() {
            RefOr::T(Schema::OneOf(union)) => union,
            other => return other,
        };
        if let RefOr::T(Schema::OneOf(notes)) = Note::schema() {
            union.items.extend(notes.items);
        }
        union.description =
            Some("One entry of the match's log (a game event, or a note the server wrote), tagged by `type`.".into());
        RefOr::T(Schema::OneOf(union))
    }
}

impl ToSchema for Entry {
    fn name() -> std::borrow::Cow<'static, str> {
        "Event".into()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        Event::schemas(schemas);
        Note::schemas(schemas);
    }
}
