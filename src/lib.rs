//! kings-corner: an HTTP REST API server hosting Kings in the Corner as persistent,
//! asynchronous matches (see `README.md`).
//!
//! # Layout
//! - [`rules`]: the pure rules engine (cards, options and presets, the shuffle, decide/apply,
//!   legal actions, views, replay). It imports nothing from the rest of the crate.
//! - [`config`]: settings from flags and environment variables.
//! - [`startup`]: builds the actix-web app on a `TcpListener` and runs it.
//! - [`store`]: the database (SQLite or PostgreSQL through one sqlx pool), its tables, and
//!   the PostgreSQL writer that gathers concurrent moves into one statement.
//! - [`matches`]: the match service (load → fold → decide → append), its state cache, live
//!   notifications, and the verifiable export.
//! - [`auth`]: passwords, access and refresh tokens, the `AuthUser` extractor, rate limiting.
//! - [`http`]: handlers, `ApiError` (problem+json), the OpenAPI description.
//! - [`telemetry`]: structured logs.

#![warn(missing_docs)]

pub mod auth;
pub mod config;
pub mod http;
pub mod matches;
pub mod rules;
pub mod startup;
pub mod store;
pub mod telemetry;
