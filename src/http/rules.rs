//! `GET /v1/rules`: every option and preset, so clients can offer the table's choices (each
//! option with the JSON Schema of its values, for a form built from the catalog); and
//! `GET /v1/rules/book`: the rule book itself (`docs/rules.md`, built into the binary).

use std::sync::LazyLock;

use actix_web::http::header::{Accept, Header, Quality};
use actix_web::mime::Mime;
use actix_web::{HttpRequest, HttpResponse, get};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::book_html;
use crate::model::{CLOCK_PRESETS, Level, Named, OnTimeout};
use crate::rules::catalog::{self, OptionInfo, PresetInfo};
use crate::rules::error::RuleError;

/// The rules a match can be created with.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "options": [{"name": "draw", "type": "string", "values": "end, start, when_stuck", "default": "end",
                 "description": "When the turn's draw happens.", "source": "000, 001, 002",
                 "schema": {"type": "string", "enum": ["end", "start", "when_stuck"]}}],
    "presets": [{"name": "night-one", "description": "5 cards each at 5–6 players, … (source 003).",
                 "rules": {"hand_size_5_plus": 5, "empty_side": "from_stock", "ace_starter_takes_two": true,
                           "scoring": "none", "game_end": {"single_hand": true}}}],
    "readings": ["`players` defaults to 4 (\"best with 4\")."],
    "rule_error_codes": ["hand_over", "not_your_turn", "does_not_fit"],
    "clocks": [{"name": "correspondence_1d", "turn_seconds": 86400, "bank_seconds": 172800}],
    "on_timeout": [{"name": "claim", "description": "another player may claim the late seat out"}],
    "bot_levels": [{"name": "expert", "description": "searches the unseen cards, each choice played out"}]
}))]
pub struct RulesCatalog {
    /// Every option, its values, default and meaning.
    pub options: Vec<CatalogOption>,
    /// Every preset with its full option set. A match takes a preset plus overrides.
    pub presets: Vec<PresetInfo>,
    /// How the engine reads the rule book where it leaves room.
    pub readings: Vec<&'static str>,
    /// Every code a refused move can carry.
    pub rule_error_codes: Vec<&'static str>,
    /// The named clocks a new match or a seek may ask for (`"clock": "correspondence_1d"`),
    /// with what each gives.
    pub clocks: Vec<NamedClock>,
    /// What a passed deadline may mean (a new match's `on_timeout`), each with what it does.
    pub on_timeout: Vec<Choice>,
    /// The bots a seat may be filled with (a new match's `bots`, `POST /v1/matches/{id}/bots`),
    /// each with how it plays.
    pub bot_levels: Vec<Choice>,
}

/// A named clock and what it gives.
#[derive(Serialize, ToSchema)]
pub struct NamedClock {
    /// Its name, as a new match or a seek sends it (a `ClockPreset`: the description says so,
    /// `http/openapi/from_tables.rs`).
    pub name: &'static str,
    /// Seconds each turn may take before it draws on the bank.
    pub turn_seconds: u32,
    /// Seconds each seat may spend beyond its turns' seconds, over the whole match.
    pub bank_seconds: u32,
}

/// One choice of a fixed set, with what it means.
#[derive(Serialize, ToSchema)]
pub struct Choice {
    /// Its name, as a request sends it.
    pub name: &'static str,
    /// What it means, in a few words a player reads when choosing.
    pub description: &'static str,
}

/// One option of the catalog, with the JSON Schema of the values it takes.
#[derive(Clone, Serialize, ToSchema)]
pub struct CatalogOption {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub option: OptionInfo,
    /// The JSON Schema (2020-12, self-contained: no `$ref`) of the option's value in a new
    /// match's `rules`: the same as the API description's, so a form built from it offers
    /// exactly what the server may accept. Rules across options (`players` against `decks`,
    /// say) are checked when the match is created.
    pub schema: Value,
}

/// The catalog's options, each with its schema read from the API description.
fn options() -> Vec<CatalogOption> {
    let api = crate::http::openapi();
    let schemas = &api["components"]["schemas"];
    catalog::options()
        .into_iter()
        .map(|option| CatalogOption {
            schema: inlined(&schemas["RulesRequest"]["properties"][option.name], schemas),
            option,
        })
        .collect()
}

/// `schema` with every `$ref` to a component replaced by the component (its own keywords
/// kept beside it, `description` taken from the place that refers).
fn inlined(schema: &Value, components: &Value) -> Value {
    match schema {
        Value::Object(fields) => {
            let mut out = serde_json::Map::new();
            if let Some(Value::String(reference)) = fields.get("$ref") {
                let name = reference.trim_start_matches("#/components/schemas/");
                if let Value::Object(target) = inlined(&components[name], components) {
                    out.extend(target);
                }
            }
            for (key, value) in fields.iter().filter(|(key, _)| *key != "$ref") {
                out.insert(key.clone(), inlined(value, components));
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| inlined(item, components)).collect())
        }
        other => other.clone(),
    }
}

/// Every option with its type, default, description and JSON Schema; every preset with its
/// full option set.
///
/// What a client needs to offer a table its choices when creating a match: the `rules` of
/// `POST /v1/matches` take a preset and any of these options; a form can be generated from
/// each option's `schema`. The rule book (`GET /v1/rules/book`) explains them for players.
#[utoipa::path(
    tag = "rules",
    responses((status = 200, description = "The catalog", body = RulesCatalog)),
    security(())
)]
#[get("/v1/rules")]
pub async fn rules_catalog() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .content_type("application/json")
        .body(CATALOG.as_str())
}

/// The catalog as the answer's bytes: it never changes while the server runs.
static CATALOG: LazyLock<String> = LazyLock::new(|| {
    serde_json::to_string(&RulesCatalog {
        options: options(),
        presets: catalog::presets(),
        readings: catalog::READINGS.to_vec(),
        rule_error_codes: RuleError::CODES.to_vec(),
        clocks: CLOCK_PRESETS
            .iter()
            .map(|(name, settings)| NamedClock {
                name,
                turn_seconds: settings.turn_seconds,
                bank_seconds: settings.bank_seconds,
            })
            .collect(),
        on_timeout: OnTimeout::ALL
            .iter()
            .map(|choice| Choice {
                name: choice.name(),
                description: choice.description(),
            })
            .collect(),
        bot_levels: Level::ALL
            .iter()
            .map(|level| Choice {
                name: level.name(),
                description: level.description(),
            })
            .collect(),
    })
    .expect("the catalog serialises")
});

/// The rule book this server plays, for players and client authors: notation, piles, actions,
/// every option and preset, the precise readings, leaving a game, the shuffle, and how a client
/// plays a turn.
///
/// Markdown (the repository's `docs/rules.md`, as this server was built with it); or, asked
/// with `Accept: text/html`, the same book as an HTML fragment to show as it is: every heading
/// with the id GitHub gives it (the book's `#…` links name them), raw HTML in the Markdown shown
/// as text, no `style` attribute, no link but to the book's sections and to `http(s)` pages.
#[utoipa::path(
    tag = "rules",
    responses((status = 200, description = "The rule book (`Vary: Accept`)", content(
        (String = "text/markdown"),
        (String = "text/html"),
    ))),
    security(())
)]
#[get("/v1/rules/book")]
pub async fn rule_book(request: HttpRequest) -> HttpResponse {
    let (content_type, body) = match BookFormat::asked(&request) {
        BookFormat::Markdown => ("text/markdown; charset=utf-8", RULE_BOOK),
        BookFormat::Html => ("text/html; charset=utf-8", RULE_BOOK_HTML.as_str()),
    };
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=3600"))
        .insert_header(("Vary", "Accept"))
        .content_type(content_type)
        .body(body)
}

/// The forms the rule book is served in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BookFormat {
    Markdown,
    Html,
}

impl BookFormat {
    /// The form the request's `Accept` prefers: HTML only when it ranks `text/html` above
    /// Markdown (by `q`, then the more specific range); the book's own form otherwise (also
    /// for no `Accept`, `*/*` or one naming neither: the answer before HTML was offered).
    fn asked(request: &HttpRequest) -> BookFormat {
        let Ok(accept) = Accept::parse(request) else {
            return BookFormat::Markdown;
        };
        let specificity = |range: &Mime| match (range.type_().as_str(), range.subtype().as_str()) {
            ("*", _) => 0,
            (_, "*") => 1,
            _ => 2,
        };
        let mut ranges: Vec<_> = accept
            .iter()
            .filter(|range| range.quality > Quality::ZERO)
            .collect();
        ranges.sort_by(|a, b| {
            (b.quality.cmp(&a.quality)).then(specificity(&b.item).cmp(&specificity(&a.item)))
        });
        for range in ranges {
            match (range.item.type_().as_str(), range.item.subtype().as_str()) {
                ("text", "html") => return BookFormat::Html,
                ("text", "markdown") | ("text", "*") | ("*", "*") => return BookFormat::Markdown,
                _ => {}
            }
        }
        BookFormat::Markdown
    }
}

/// The book as HTML, made once.
static RULE_BOOK_HTML: LazyLock<String> = LazyLock::new(|| book_html::render(RULE_BOOK));

/// `docs/rules.md`.
const RULE_BOOK: &str = include_str!("../../docs/rules.md");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_carries_its_schema_with_no_reference_left() {
        let options = options();
        for option in &options {
            let text = option.schema.to_string();
            assert!(!text.contains("$ref"), "{}: {text}", option.option.name);
            assert!(option.schema.is_object(), "{}", option.option.name);
        }
        let schema_of = |name: &str| {
            &options
                .iter()
                .find(|option| option.option.name == name)
                .unwrap()
                .schema
        };
        assert_eq!(
            schema_of("game_end")["oneOf"][0]["properties"]["target"]["maximum"],
            100_000
        );
        assert_eq!(
            schema_of("draw")["enum"],
            serde_json::json!(["end", "start", "when_stuck"])
        );
    }
}
