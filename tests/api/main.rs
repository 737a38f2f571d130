//! Black-box tests over real HTTP against the server on a random port, on SQLite or, with
//! `DATABASE_URL=postgres://…`, on a fresh PostgreSQL database per test.

mod accounts;
mod alerts;
mod auth;
mod backups;
mod bots;
mod browsers;
mod clocks;
mod copies;
mod cutting_proxy;
mod email;
mod hardening;
mod hardening_ii;
mod hardening_iii;
mod helpers;
mod kc;
mod kc_audit;
mod kc_tui;
mod matches;
mod metrics;
mod notifications;
mod nudge;
mod operations;
mod ratings;
mod receiver;
mod rematches;
mod rules;
mod scale;
mod seeks;
mod smtp_sink;
mod snapshots;
mod takeover;
mod talk;
mod tokens;
mod vacations;
mod web_client;
