//! kings-corner: an HTTP REST API server hosting Kings in the Corner as persistent,
//! asynchronous matches (see `README.md`).
//!
//! # Layout
//! - [`rules`]: the pure rules engine (cards, options and presets, the shuffle, decide/apply,
//!   legal actions, views, replay). It imports nothing from the rest of the crate.
//!
//! The HTTP service (accounts, matches, the event store) is built on top of `rules` in later
//! modules.

#![warn(missing_docs)]

pub mod rules;
