//! The rules engine's specification, as tests: the worked examples of RULES.md §7, a scenario per
//! option (and its absence under `standard`), and property tests over random games.

mod bots;
mod examples;
mod helpers;
mod leaving;
mod options;
mod properties;
mod readings;
