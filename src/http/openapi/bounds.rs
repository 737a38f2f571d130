//! The static bounds the services check, written into the schemas from the same constants, so
//! that a generator or fuzzer that keeps to the description never sends a value the server
//! refuses for its range or length alone: seats, clock seconds, a seek's timings and preset,
//! a client seed's length, how many bots a table takes.
//!
//! What depends on two fields at once (a second deck for more than six seats, a rated table's
//! needs, `bot_level` with `bots_after_seconds`) is not a bound a schema states well; each
//! operation's text says it, and the fuzzer lets exactly those refusals through
//! (`tests/fuzz/hooks.py`).

use serde_json::{Value, json};

use crate::matches::lobby::MAX_CLIENT_SEED;
use crate::matches::seeks::{BOTS_AFTER_SECONDS, EXPIRY_SECONDS};
use crate::model::{MOST_BANK_SECONDS, MOST_TURN_SECONDS};
use crate::notifications::notice::KINDS;
use crate::rules::Preset;
use crate::rules::options::{MAX_PLAYERS, MIN_PLAYERS};

/// The unions of a request whose every variant is an object with no other fields: an action,
/// and a game's end.
const CLOSED_UNIONS: [&str; 2] = ["Action", "GameEnd"];

/// Adds them to a description that has the `ClockSettings`, `CreateMatch` and `NewSeek`
/// schemas (before [`super::as_checked`], which gives only free strings a pattern).
pub fn add(api: &mut Value) {
    let schemas = &mut api["components"]["schemas"];
    bound(
        &mut schemas["ClockSettings"],
        "turn_seconds",
        json!({"minimum": 1, "maximum": MOST_TURN_SECONDS}),
    );
    bound(
        &mut schemas["ClockSettings"],
        "bank_seconds",
        json!({"minimum": 0, "maximum": MOST_BANK_SECONDS}),
    );

    let create = &mut schemas["CreateMatch"];
    bound(
        create,
        "seats",
        json!({"minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS}),
    );
    bound(create, "client_seed", json!({"maxLength": MAX_CLIENT_SEED}));
    bound(create, "bots", json!({"maxItems": MAX_PLAYERS - 1}));

    let presets: Vec<&str> = Preset::ALL.into_iter().map(Preset::name).collect();
    let seek = &mut schemas["NewSeek"];
    bound(seek, "preset", json!({"enum": presets}));
    // A seek plays a preset unchanged, so its seats go as far as the roomiest preset's.
    let most_seek_seats = Preset::ALL
        .into_iter()
        .map(|preset| preset.rules().most_players())
        .max()
        .expect("there are presets");
    bound(
        seek,
        "seats",
        json!({"minimum": MIN_PLAYERS, "maximum": most_seek_seats}),
    );

    bound(
        seek,
        "bots_after_seconds",
        json!({"minimum": BOTS_AFTER_SECONDS.start(), "maximum": BOTS_AFTER_SECONDS.end()}),
    );
    bound(
        seek,
        "expires_in_seconds",
        json!({"minimum": EXPIRY_SECONDS.start(), "maximum": EXPIRY_SECONDS.end()}),
    );

    // The notification types alerts may name.
    for channel in ["email", "push"] {
        bound(
            &mut schemas["AlertSettings"],
            channel,
            json!({"items": {"type": "string", "enum": KINDS}}),
        );
    }
}

/// Closes the variants of [`CLOSED_UNIONS`]: their enums refuse unknown fields (serde's
/// `deny_unknown_fields`), which the variants' schemas do not say by themselves. Applied to the
/// description reshaped for generators, where each variant is a schema of its own.
pub fn close_unions(api: &mut Value) {
    let schemas = &mut api["components"]["schemas"];
    for union in CLOSED_UNIONS {
        let variants: Vec<String> = schemas[union]["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{union} is a union"))
            .iter()
            .filter_map(|variant| variant["$ref"].as_str())
            .map(|reference| {
                reference
                    .trim_start_matches("#/components/schemas/")
                    .to_owned()
            })
            .collect();
        assert!(
            !variants.is_empty(),
            "{union}'s variants are schemas of their own"
        );
        for variant in variants {
            schemas[&variant]["additionalProperties"] = json!(false);
        }
    }
}

/// Merges `bounds` into the schema of `schema`'s property `property`.
fn bound(schema: &mut Value, property: &str, bounds: Value) {
    let target = schema["properties"][property]
        .as_object_mut()
        .unwrap_or_else(|| panic!("the schema has a property `{property}`"));
    for (keyword, value) in bounds.as_object().expect("bounds are an object") {
        target.insert(keyword.clone(), value.clone());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn bounds_join_a_property_s_schema() {
        let mut schema =
            json!({"properties": {"seats": {"type": ["integer", "null"], "minimum": 0}}});
        super::bound(&mut schema, "seats", json!({"minimum": 2, "maximum": 8}));
        assert_eq!(
            schema["properties"]["seats"],
            json!({"type": ["integer", "null"], "minimum": 2, "maximum": 8})
        );
    }
}
