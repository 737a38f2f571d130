//! `GET /v1/rules`: every option and preset, so clients can offer the table's choices; and
//! `GET /v1/rules/book`: the rule book itself (`docs/rules.md`, built into the binary).

use actix_web::{HttpResponse, get};
use serde::Serialize;
use utoipa::ToSchema;

use crate::rules::catalog::{self, OptionInfo, PresetInfo};
use crate::rules::error::RuleError;

/// The rules a match can be created with.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "options": [{"name": "draw", "type": "string", "values": "end, start, when_stuck", "default": "end",
                 "description": "When the turn's draw happens.", "source": "000, 001, 002"}],
    "presets": [{"name": "night-one", "description": "5 cards each at 5–6 players, … (source 003).",
                 "rules": {"hand_size_5_plus": 5, "empty_side": "from_stock", "ace_starter_takes_two": true,
                           "scoring": "none", "game_end": {"single_hand": true}}}],
    "readings": ["`players` defaults to 4 (\"best with 4\")."],
    "rule_error_codes": ["hand_over", "not_your_turn", "does_not_fit"]
}))]
pub struct RulesCatalog {
    /// Every option, its values, default and meaning.
    pub options: Vec<OptionInfo>,
    /// Every preset with its full option set. A match takes a preset plus overrides.
    pub presets: Vec<PresetInfo>,
    /// How the engine reads the rule book where it leaves room.
    pub readings: Vec<&'static str>,
    /// Every code a refused move can carry.
    pub rule_error_codes: Vec<&'static str>,
}

/// Every option with its type, default and description; every preset with its full option set.
///
/// What a client needs to offer a table its choices when creating a match: the `rules` of
/// `POST /v1/matches` take a preset and any of these options. The rule book
/// (`GET /v1/rules/book`) explains them for players.
#[utoipa::path(
    tag = "rules",
    responses((status = 200, description = "The catalog", body = RulesCatalog)),
    security(())
)]
#[get("/v1/rules")]
pub async fn rules_catalog() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .json(RulesCatalog {
            options: catalog::options(),
            presets: catalog::presets(),
            readings: catalog::READINGS.to_vec(),
            rule_error_codes: RuleError::CODES.to_vec(),
        })
}

/// The rule book this server plays, for players and client authors: notation, piles, actions,
/// every option and preset, the precise readings, leaving a game, the shuffle, and how a client
/// plays a turn.
///
/// Markdown (the repository's `docs/rules.md`, as this server was built with it).
#[utoipa::path(
    tag = "rules",
    responses((status = 200, description = "The rule book", content_type = "text/markdown", body = String)),
    security(())
)]
#[get("/v1/rules/book")]
pub async fn rule_book() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .content_type("text/markdown; charset=utf-8")
        .body(RULE_BOOK)
}

/// `docs/rules.md`.
const RULE_BOOK: &str = include_str!("../../docs/rules.md");
