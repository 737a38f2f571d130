//! The rules engine: Kings in the Corner exactly as `docs/rules.md` says, for every option and preset.
//!
//! Pure and deterministic: no I/O, no time, no randomness but the seeded shuffle of docs/rules.md §9.
//! Nothing here imports from the rest of the crate.
//!
//! The engine follows the event-sourcing model: [`GameState::decide`] judges a player's
//! [`Action`] and returns the [`Event`]s it causes (automatic steps included: the start-of-turn
//! draw, refills, the end of a `when_stuck` turn, the end of the hand, the next deal, the end of
//! the match); [`GameState::apply`] folds an event into the state; [`replay`] re-checks a stored
//! log. [`GameState::legal_actions`] lists what the seat to move may do, and
//! [`GameState::view`] gives what a seat may see.
//!
//! # Example
//!
//! A two-player table of the `standard` preset, dealt, one action of the seat to move, and the
//! log replayed by anyone who holds the setup (the shuffle's secret is revealed when a match
//! ends, so every player can):
//!
//! ```
//! use kings_corner::rules::{GameState, Preset, Rules, Setup, Status, replay};
//!
//! let rules = Rules { players: 2, ..Preset::Standard.rules() };
//! let setup = Setup {
//!     rules,
//!     secret: [7; 32],                         // the server's, committed to before the deal
//!     client_seeds: vec![String::new(); 2],    // each seat's own contribution to the shuffle
//!     first_dealer: None,                      // drawn, as docs/rules.md §9 says
//! };
//! let mut state = GameState::new(setup.clone()).unwrap();
//! let mut log = state.start().unwrap(); // the first deal and the first turn
//! for event in &log {
//!     state.apply(event);
//! }
//! assert_eq!(state.status(), Status::Playing);
//!
//! let seat = state.turn().unwrap();
//! let view = state.view(seat); // its own hand, everything public, its legal actions
//! assert_eq!(view.hand.as_ref().map(Vec::len), Some(7));
//! let action = state.legal_actions(seat)[0].clone();
//! for event in state.decide(seat, action).unwrap() {
//!     state.apply(&event);
//!     log.push(event);
//! }
//!
//! // The log, replayed through the checked path, gives the same table.
//! assert_eq!(replay(setup, &log).unwrap().view(seat), state.view(seat));
//! ```
//!
//! # Layout
//! - [`card`]: cards and notation (`"10H"`, `"JK"`, `"JK7H"`).
//! - [`pile`]: pile names (`N E S W`, `NE SE SW NW`, `FC FD FH FS`).
//! - [`options`]: [`Rules`], every option, the presets, validation.
//! - [`catalog`]: every option and preset described, for the rules endpoint.
//! - [`shuffle`]: the commitment, hand seeds and the ChaCha20 Fisher–Yates shuffle.
//! - `state`: [`GameState`], [`Setup`] and `apply`.
//! - `faces`: `FaceSet`, a set of faces in one word (what fits on a pile).
//! - `layout`: what fits where.
//! - `decide`: actions → events, with the automatic steps and scoring.
//! - `legal`: [`GameState::legal_actions`].
//! - `view`: [`View`], per seat and for spectators.
//! - `knowledge`: [`Knowledge`], what one seat may know (its view and the public history),
//!   and random states that agree with it: all a program playing one seat may decide from.
//! - `replay`: the checked replay of a log.
//! - `snapshot`: [`Snapshot`], the state written out whole, and the checks it is read back
//!   through (a server's start on a long log; never the record).
//! - `standings`: [`GameState::standings`], every seat's place at the end (§7.5).
//! - [`action`], [`event`], [`error`]: the wire types and [`RuleError`].
//!
//! # Readings of the rule book
//! docs/rules.md §6 settles what its sources leave open; the readings that change play (16–18) and
//! the engine's own choices where the rule book is silent are listed in [`catalog::READINGS`],
//! which the rules endpoint also serves.

pub mod action;
pub mod card;
pub mod catalog;
mod decide;
pub mod error;
pub mod event;
mod faces;
mod knowledge;
mod layout;
mod legal;
pub mod options;
pub mod pile;
mod replay;
pub mod shuffle;
mod snapshot;
mod standings;
mod state;
mod view;

pub use action::Action;
pub use card::{Card, Face, PlacedCard, Rank, Suit};
pub use error::{Misfit, RuleError};
pub use event::{
    ChipSettlement, DrawReason, EVENT_FORMAT_VERSION, Event, HandOutcome, HandResult, OutReason,
};
pub use knowledge::Knowledge;
pub use layout::fits;
pub(crate) use layout::fitting;
pub use options::{Build, Preset, Rules, RulesError};
pub use pile::{PileId, PileKind};
pub use replay::{ReplayError, replay};
pub use snapshot::{Snapshot, SnapshotError};
pub use state::{GameState, Setup, Status, TurnProgress};
pub use view::{SeatView, TurnProgressView, View};

/// A seat number, `0 … players − 1`, clockwise.
pub type Seat = u8;

/// docs/rules.md §3: at most this many play, move and draw actions in one turn.
pub const MAX_ACTIONS_PER_TURN: u16 = 200;
