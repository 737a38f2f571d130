//! The rules engine's specification, as tests: the worked examples of the rule pages
//! docs/rules.md was distilled from, a scenario per option (and its absence under `standard`),
//! property tests over random games, and the exports of earlier versions, which must still
//! verify.

mod bots;
mod examples;
mod exports;
mod helpers;
mod leaving;
mod options;
mod properties;
mod readings;
