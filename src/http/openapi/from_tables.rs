//! Schemas whose values come from the code's own tables rather than from a type, so that the
//! description names every value a request may use and cannot drift from what is accepted:
//! - `RulesRequest`, the `rules` of a new match: a preset's name plus any options of `Rules`
//!   (checked by the server with `deny_unknown_fields`, hence no other keys);
//! - `ClockPreset`, the clocks a new match may name (also the `name` of the catalog's
//!   `NamedClock`);
//! - `Scope` and `NotificationType`, the names a personal token's `scopes` and a webhook's
//!   `types` take;
//! - the `rules` of a new match may be `null`, which the server reads as left out.

use serde_json::{Value, json};

use crate::auth::Scope;
use crate::notifications::notice::KINDS;
use crate::rules::catalog;

/// Adds them to a description that has the `Rules`, `CreateMatch`, `ClockChoice`, `NewToken`
/// and `NewWebhook` schemas.
pub fn add(api: &mut Value) {
    let schemas = &mut api["components"]["schemas"];
    let mut request = schemas["Rules"].clone();
    let options = request.as_object_mut().expect("Rules is an object schema");
    options.remove("required");
    options.remove("example");
    options.insert(
        "description".to_owned(),
        json!("The rules of a new match: a preset (default `standard`) and any options that \
               differ from it (an option left out takes the preset's value). Every option is described at `GET /v1/rules` and in \
               docs/rules.md."),
    );
    options.insert("additionalProperties".to_owned(), json!(false));
    // An option left out takes the preset's value, not `standard`'s: a generator that filled
    // in `Rules`' defaults would override the preset.
    for option in options["properties"]
        .as_object_mut()
        .expect("Rules has properties")
        .values_mut()
    {
        if let Some(option) = option.as_object_mut() {
            option.remove("default");
        }
    }
    let presets: Vec<String> = catalog::presets()
        .into_iter()
        .map(|preset| preset.name.to_owned())
        .collect();
    request["properties"]["preset"] = json!({
        "type": "string",
        "enum": presets,
        "description": "The preset the other options start from.",
        "default": "standard",
    });
    request["example"] = json!({"preset": "night-one", "king_hold_penalty": 3});
    schemas["RulesRequest"] = request;
    let said = schemas["CreateMatch"]["properties"]["rules"]["description"].clone();
    schemas["CreateMatch"]["properties"]["rules"] = json!({
        "oneOf": [{"$ref": "#/components/schemas/RulesRequest"}, {"type": "null"}],
        "description": said,
    });

    let scopes: Vec<&str> = Scope::ALL.into_iter().map(Scope::name).collect();
    schemas["Scope"] = json!({
        "type": "string",
        "enum": scopes,
        "description": "What a personal access token may do.",
    });
    schemas["NewToken"]["properties"]["scopes"]["items"] =
        json!({"$ref": "#/components/schemas/Scope"});
    schemas["NotificationType"] = json!({
        "type": "string",
        "enum": KINDS,
        "description": "A type of notification, as a webhook names the ones it wants.",
    });
    schemas["NewWebhook"]["properties"]["types"]["items"] =
        json!({"$ref": "#/components/schemas/NotificationType"});

    let clock_names: Vec<&str> = crate::model::CLOCK_PRESETS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    for alternative in schemas["ClockChoice"]["oneOf"]
        .as_array_mut()
        .expect("ClockChoice is a union")
    {
        if alternative["type"] == "string" {
            *alternative = json!({"$ref": "#/components/schemas/ClockPreset"});
        }
    }
    let meanings: Vec<String> = crate::model::CLOCK_PRESETS
        .iter()
        .map(|(name, settings)| {
            format!(
                "`{name}`: {} a turn, a bank of {}",
                duration(settings.turn_seconds),
                duration(settings.bank_seconds)
            )
        })
        .collect();
    schemas["NamedClock"]["properties"]["name"] =
        json!({"$ref": "#/components/schemas/ClockPreset"});
    schemas["ClockPreset"] = json!({
        "type": "string",
        "enum": clock_names,
        "description": format!("A named clock. {}.", meanings.join("; ")),
    });
}

/// Seconds as a person says them: `5 minutes`, `2 days`.
fn duration(seconds: u32) -> String {
    const DAY: u32 = 24 * 60 * 60;
    let (count, unit) = match seconds {
        _ if seconds.is_multiple_of(DAY) => (seconds / DAY, "day"),
        _ if seconds.is_multiple_of(60) => (seconds / 60, "minute"),
        _ => (seconds, "second"),
    };
    match count {
        1 => format!("1 {unit}"),
        _ => format!("{count} {unit}s"),
    }
}
