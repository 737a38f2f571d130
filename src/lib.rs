//! kings-corner: an HTTP REST API server hosting Kings in the Corner as persistent,
//! asynchronous matches (see `README.md`).
//!
//! # Layout
//! Each layer imports only from the layers below it.
//! - [`rules`]: the pure rules engine (cards, options and presets, the shuffle, decide/apply,
//!   legal actions, views, replay). It imports nothing from the rest of the crate.
//! - [`model`]: the match vocabulary every layer above the rules shares (status, visibility,
//!   clock settings and presets, `on_timeout`, outcome, bot levels), each with one name
//!   ([`model::Named`]) for the API, the database and the command line.
//! - [`store`]: the database (SQLite or PostgreSQL through one sqlx pool): typed rows, seat
//!   changes under a lock, and the append of a move's writes (grouped into one statement per
//!   batch on PostgreSQL).
//! - [`auth`]: credentials: argon2id passwords, access, refresh and personal tokens, scopes,
//!   rate limiting.
//! - [`ratings`]: the rating model of rated tables (pure): Weng-Lin with Plackett-Luce, as
//!   OpenSkill rates, and the rating players see.
//! - [`bots`]: built-in bots (pure): a seat's next action decided from that seat's
//!   [`rules::Knowledge`] alone, and [`bots::tournament`]: bots against bots on the engine.
//! - [`random`]: unguessable secrets, tokens and invite codes; [`time_source`]: the one time the
//!   server goes by (injectable: tests move it), and RFC 3339. (A match's clock, folded from its
//!   log, is [`matches::match_clock`]; the worker that acts on it, [`matches::clock_worker`].)
//! - [`background`]: the one runner of work nobody asked for (rounds on a schedule, woken
//!   early by this process's writes); the work itself is claimed with leases by its service.
//! - [`live`]: announcements of what changed (a match's version, an account's newest
//!   notification) to the waiting readers of this process and, on PostgreSQL, of the others;
//!   [`follow`]: reading a numbered log (a match's, an account's notifications) by page,
//!   long-poll or stream, once for both.
//! - [`mail`]: letters (verification, reset, alerts) and the outbox every process sends them
//!   from over SMTP, with leases.
//! - [`notifications`]: the notification service: each account's stream of what concerns it
//!   (written by the other services with their changes), its relay, and signed webhooks.
//! - [`matches`]: the match service: who may see and do what, and every feature of a match
//!   (moves with idempotent retries, clocks, invitations, table talk, rematches, seeks, the
//!   feed, replays and the verifiable export), each reading and writing a match through one
//!   door, [`matches::ledger`] (load → decide → append; the state cache behind it). Answers in
//!   domain terms with named errors ([`matches::MatchError`]).
//! - [`accounts`]: the account service: registration, login, token rotation, and personal
//!   access tokens with scopes.
//! - [`http`]: thin actix-web handlers over the services, authentication and extractors (a
//!   handler names the scope it needs by type), `ApiError` (problem+json, the one place domain
//!   errors become statuses), the OpenAPI description (reshaped for client generators), and
//!   `/play`.
//! - [`web_client`]: the web client's files (JavaScript modules, a style sheet, a page), built
//!   into the binary and served at `/play`; the client reaches the server only through the
//!   public API.
//!   The terminal client, `kc`, is a binary of its own (`src/bin/kc/`) that uses nothing of
//!   this library: the public API only.
//! - [`config`], [`startup`], [`telemetry`], [`process`]: settings, building and running the
//!   app, logs, and what the process asks of the system (open files, a word before SIGBUS).
//! - [`instruments`]: the metrics every layer records (one function per event, label values
//!   from fixed sets), rendered at `GET /metrics`.
//! - [`backup`]: `kings-corner backup FILE`, an online copy of the SQLite database, made by the
//!   running server on its request over a Unix socket; [`copy`]: `kings-corner copy`, the move
//!   of a SQLite database into PostgreSQL, resumable and checked; [`admin`]: `kings-corner
//!   admin`, the operators' commands (the report queue, the audit log).

#![warn(missing_docs)]

pub mod accounts;
pub mod admin;
pub mod auth;
pub mod background;
pub mod backup;
pub mod bots;
pub mod config;
pub mod copy;
pub mod follow;
pub mod http;
pub mod instruments;
pub mod live;
pub mod mail;
pub mod matches;
pub mod model;
pub mod notifications;
pub mod process;
pub mod random;
pub mod ratings;
pub mod rules;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod time_source;
pub mod web_client;
