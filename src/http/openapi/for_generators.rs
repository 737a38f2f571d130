//! Reshapes the description utoipa derives into the forms client generators read without loss
//! (openapi-python-client and openapi-typescript are run on it in CI: `tests/clients`). Every
//! step keeps what a response looks like on the wire; only how the schemas are spelled changes:
//! - integer aliases (`Seat = u8` becomes a schema named `u8`) are written in place;
//! - an `allOf` of a tagged union and an object becomes a union of the merged variants (and
//!   the union, when nothing else names it, goes);
//! - every object variant of a union gets its own named schema (`PlayAction`,
//!   `HandEndedEvent`, `TargetGameEnd`), and a union tagged by one property (`type`, `kind`)
//!   declares it as its `discriminator` with the mapping;
//! - a `oneOf` wrapping a single `$ref` (how utoipa attaches a description or default to a
//!   referenced field) becomes the `$ref` itself; an object default moves into the description,
//!   since generators cannot give a model field a default object.

use serde_json::{Map, Value, json};

const SCHEMAS: &str = "#/components/schemas/";

/// Applies every step above to a whole description.
pub fn reshape(api: &mut Value) {
    inline_integer_aliases(api);
    let schemas = api["components"]["schemas"]
        .as_object_mut()
        .expect("the description has component schemas");
    spread_all_of_over_unions(schemas);
    name_union_variants(schemas);
    unwrap_single_references(api);
}

fn inline_integer_aliases(api: &mut Value) {
    let schemas = api["components"]["schemas"]
        .as_object_mut()
        .expect("the description has component schemas");
    let aliases: Vec<(String, Value)> = schemas
        .iter()
        .filter(|(name, schema)| {
            name.starts_with(|first: char| first.is_ascii_lowercase())
                && schema["type"] == "integer"
        })
        .map(|(name, schema)| (format!("{SCHEMAS}{name}"), schema.clone()))
        .collect();
    for (reference, _) in &aliases {
        schemas.remove(&reference[SCHEMAS.len()..]);
    }
    for_each_object(api, &mut |object| {
        let Some(Value::String(reference)) = object.get("$ref") else {
            return;
        };
        if let Some((_, alias)) = aliases.iter().find(|(name, _)| name == reference) {
            object.remove("$ref");
            for (key, value) in alias.as_object().into_iter().flatten() {
                object.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    });
}

fn spread_all_of_over_unions(schemas: &mut Map<String, Value>) {
    let names: Vec<String> = schemas.keys().cloned().collect();
    let mut spread = Vec::new();
    for name in names {
        let Some(parts) = schemas[&name]["allOf"].as_array().cloned() else {
            continue;
        };
        let union_name = parts.iter().find_map(|part| {
            let referenced = part["$ref"].as_str()?.strip_prefix(SCHEMAS)?;
            schemas
                .get(referenced)?
                .get("oneOf")
                .map(|_| referenced.to_owned())
        });
        let (unions, rest): (Vec<Value>, Vec<Value>) = parts
            .into_iter()
            .map(|part| resolve(schemas, &part))
            .partition(|part| part.get("oneOf").is_some());
        let [union] = unions.as_slice() else {
            continue;
        };
        let variants: Vec<Value> = union["oneOf"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|variant| {
                let mut parts = vec![resolve(schemas, variant)];
                parts.extend(rest.iter().cloned());
                merge(&parts, variant.get("description"))
            })
            .collect();
        let schema = schemas[&name]
            .as_object_mut()
            .expect("a schema is an object");
        schema.remove("allOf");
        schema.insert("oneOf".to_owned(), Value::Array(variants));
        spread.extend(union_name);
    }
    for name in spread {
        let reference = Value::String(format!("{SCHEMAS}{name}"));
        let mut named = false;
        for_each_object(&mut Value::Object(schemas.clone()), &mut |object| {
            named |= object.get("$ref") == Some(&reference);
        });
        if !named {
            schemas.remove(&name);
        }
    }
}

fn name_union_variants(schemas: &mut Map<String, Value>) {
    let names: Vec<String> = schemas.keys().cloned().collect();
    for name in names {
        let Some(variants) = schemas[&name]["oneOf"].as_array().cloned() else {
            continue;
        };
        let variants: Vec<Value> = variants
            .iter()
            .map(
                |variant| match variant.get("allOf").and_then(Value::as_array) {
                    Some(parts) => {
                        let parts: Vec<Value> =
                            parts.iter().map(|part| resolve(schemas, part)).collect();
                        merge(&parts, variant.get("description"))
                    }
                    None => variant.clone(),
                },
            )
            .collect();
        let tags: Vec<Option<(String, String)>> = variants.iter().map(tag_of).collect();
        let tag_property = tags
            .iter()
            .map(|tag| tag.as_ref().map(|(property, _)| property))
            .collect::<Option<Vec<_>>>()
            .filter(|properties| properties.windows(2).all(|pair| pair[0] == pair[1]))
            .and_then(|properties| properties.first().map(|property| (*property).clone()));
        let mut mapping = Map::new();
        let mut named = Vec::new();
        for (variant, tag) in variants.into_iter().zip(tags) {
            let label = match (&tag, sole_required_key(&variant)) {
                _ if variant["type"] != "object" => None,
                (Some((_, value)), _) => Some(value.clone()),
                (None, Some(key)) => Some(key),
                (None, None) => None,
            };
            let Some(label) = label else {
                named.push(variant);
                continue;
            };
            let variant_name = format!("{}{name}", pascal_case(&label));
            let reference = format!("{SCHEMAS}{variant_name}");
            if let Some((_, value)) = tag {
                mapping.insert(value, Value::String(reference.clone()));
            }
            schemas.insert(variant_name, variant);
            named.push(json!({ "$ref": reference }));
        }
        let schema = schemas[&name]
            .as_object_mut()
            .expect("a schema is an object");
        schema.insert("oneOf".to_owned(), Value::Array(named));
        if let Some(property) = tag_property {
            schema.insert(
                "discriminator".to_owned(),
                json!({ "propertyName": property, "mapping": mapping }),
            );
        }
    }
}

fn unwrap_single_references(api: &mut Value) {
    for_each_object(api, &mut |object| {
        let Some(Value::Array(alternatives)) = object.get("oneOf") else {
            return;
        };
        let [only] = alternatives.as_slice() else {
            return;
        };
        let Some(reference) = only.get("$ref").cloned() else {
            return;
        };
        let inner_description = only.get("description").cloned();
        object.remove("oneOf");
        object.insert("$ref".to_owned(), reference);
        if let Some(description) = inner_description {
            object.entry("description").or_insert(description);
        }
        if object
            .get("default")
            .is_some_and(|default| default.is_object() || default.is_array())
        {
            let default = object.remove("default").expect("just seen");
            let said = object
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            object.insert(
                "description".to_owned(),
                Value::String(
                    format!("{said} Default: `{default}`.")
                        .trim_start()
                        .to_owned(),
                ),
            );
        }
    });
}

/// The variant's tag: a required property whose only value is one string.
fn tag_of(variant: &Value) -> Option<(String, String)> {
    let required = variant["required"].as_array()?;
    variant["properties"]
        .as_object()?
        .iter()
        .find_map(
            |(property, schema)| match schema["enum"].as_array()?.as_slice() {
                [Value::String(value)] if required.iter().any(|name| name == property) => {
                    Some((property.clone(), value.clone()))
                }
                _ => None,
            },
        )
}

/// The one key of an externally tagged variant (`{"target": 50}`).
fn sole_required_key(variant: &Value) -> Option<String> {
    match variant["required"].as_array()?.as_slice() {
        [Value::String(key)] if variant["properties"].as_object()?.len() == 1 => Some(key.clone()),
        _ => None,
    }
}

/// One object schema with the properties and required names of every part.
fn merge(parts: &[Value], description: Option<&Value>) -> Value {
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let mut first_description = None;
    for part in parts {
        properties.extend(part["properties"].as_object().cloned().unwrap_or_default());
        for name in part["required"].as_array().into_iter().flatten() {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
        first_description = first_description.or_else(|| part.get("description").cloned());
    }
    let mut merged = json!({ "type": "object", "required": required, "properties": properties });
    if let Some(description) = description.cloned().or(first_description) {
        merged["description"] = description;
    }
    merged
}

/// The schema a `$ref` names, or the schema itself.
fn resolve(schemas: &Map<String, Value>, schema: &Value) -> Value {
    schema["$ref"]
        .as_str()
        .and_then(|reference| reference.strip_prefix(SCHEMAS))
        .and_then(|name| schemas.get(name))
        .cloned()
        .unwrap_or_else(|| schema.clone())
}

fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut letters = word.chars();
            letters
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + letters.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Calls `visit` on every object in `value`, outermost first.
fn for_each_object(value: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    match value {
        Value::Object(object) => {
            visit(object);
            for child in object.values_mut() {
                for_each_object(child, visit);
            }
        }
        Value::Array(items) => {
            for item in items {
                for_each_object(item, visit);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_union_gets_named_variants_and_a_discriminator() {
        let mut api = json!({"components": {"schemas": {
            "Action": {"oneOf": [
                {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["draw"]}}},
                {"type": "object", "required": ["type", "to"], "properties": {"type": {"type": "string", "enum": ["end_turn"]}, "to": {"type": "string"}}}
            ]}
        }}});
        reshape(&mut api);
        let schemas = &api["components"]["schemas"];
        assert_eq!(
            schemas["Action"]["oneOf"][1]["$ref"],
            "#/components/schemas/EndTurnAction"
        );
        assert_eq!(schemas["Action"]["discriminator"]["propertyName"], "type");
        assert_eq!(
            schemas["Action"]["discriminator"]["mapping"]["draw"],
            "#/components/schemas/DrawAction"
        );
        assert_eq!(schemas["EndTurnAction"]["required"], json!(["type", "to"]));
    }

    #[test]
    fn an_all_of_over_a_union_spreads_into_each_variant() {
        let mut api = json!({"components": {"schemas": {
            "Notice": {"oneOf": [
                {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["your_turn"]}}}
            ]},
            "Notification": {"allOf": [
                {"$ref": "#/components/schemas/Notice"},
                {"type": "object", "required": ["seq"], "properties": {"seq": {"type": "integer"}}}
            ]}
        }}});
        reshape(&mut api);
        let variant = &api["components"]["schemas"]["YourTurnNotification"];
        assert_eq!(variant["required"], json!(["type", "seq"]));
        assert_eq!(variant["properties"]["seq"]["type"], "integer");
    }

    #[test]
    fn a_single_reference_loses_its_wrapper_and_an_object_default_moves_to_words() {
        let mut api = json!({"components": {"schemas": {
            "u8": {"type": "integer", "minimum": 0},
            "Rules": {"type": "object", "properties": {
                "game_end": {"oneOf": [{"$ref": "#/components/schemas/GameEnd", "description": "When."}], "default": {"target": 50}},
                "dealer": {"$ref": "#/components/schemas/u8", "description": "Who deals."}
            }}
        }}});
        reshape(&mut api);
        let rules = &api["components"]["schemas"]["Rules"]["properties"];
        assert_eq!(rules["game_end"]["$ref"], "#/components/schemas/GameEnd");
        assert_eq!(
            rules["game_end"]["description"],
            "When. Default: `{\"target\":50}`."
        );
        assert!(rules["game_end"].get("default").is_none());
        assert_eq!(
            rules["dealer"],
            json!({"type": "integer", "minimum": 0, "description": "Who deals."})
        );
        assert!(api["components"]["schemas"].get("u8").is_none());
    }
}
