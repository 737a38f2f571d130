//! kings-corner: an HTTP REST API server hosting Kings in the Corner as persistent,
//! asynchronous matches (see `README.md`).
//!
//! # Layout
//! Each layer imports only from the layers below it.
//! - [`rules`]: the pure rules engine (cards, options and presets, the shuffle, decide/apply,
//!   legal actions, views, replay). It imports nothing from the rest of the crate.
//! - [`store`]: the database (SQLite or PostgreSQL through one sqlx pool): typed rows, seat
//!   changes under a lock, and the append of a move's writes (grouped into one statement per
//!   batch on PostgreSQL).
//! - [`auth`]: credentials: argon2id passwords, access and refresh tokens, rate limiting.
//! - [`random`]: unguessable secrets, tokens and invite codes; [`clock`]: the time matches go
//!   by (injectable), and RFC 3339.
//! - [`matches`]: the match service: who may see and do what, the current state behind a
//!   cache, moves (load → decide → append) with idempotent retries, the feed, replays and the
//!   verifiable export. Answers in domain terms with named errors ([`matches::MatchError`]).
//! - [`accounts`]: the account service: registration, login and token rotation.
//! - [`http`]: thin actix-web handlers over the two services, extractors, `ApiError`
//!   (problem+json, the one place domain errors become statuses), the OpenAPI description.
//! - [`config`], [`startup`], [`telemetry`], [`process`]: settings, building and running the
//!   app, logs, and what the process asks of the system (open files, a word before SIGBUS).

#![warn(missing_docs)]

pub mod accounts;
pub mod auth;
pub mod clock;
pub mod config;
pub mod http;
pub mod live;
pub mod matches;
pub mod notifications;
pub mod process;
pub mod random;
pub mod rules;
pub mod startup;
pub mod store;
pub mod telemetry;
