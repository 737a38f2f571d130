//! What the server checks that the derived description cannot say by itself:
//! - the body of `POST /v1/matches/{id}/join` may be left out (read by `OptionalJson`);
//! - each event of the two streams (`text/event-stream`) is described: an `id` (the sequence
//!   number), an `event` name (the event's or notification's type) and a JSON `data` of the
//!   documented union. The document is OpenAPI 3.1, whose media type has no `itemSchema` (3.2's
//!   keyword; linters of 3.1 refuse it), so the event is the media type's `schema`, which is how
//!   readers of 3.1 such as Schemathesis check a stream: event by event;
//! - no text a request sends may hold U+0000 (`400 invalid_text`, checked once at the edge): each
//!   free string of a parameter or a request body (one with no pattern, enum or format of its
//!   own) is given the pattern [`NO_NUL`].

use serde_json::{Value, json};

/// The operations whose JSON body may be left out.
const OPTIONAL_BODIES: [(&str, &str); 1] = [("/v1/matches/{id}/join", "post")];

/// The streams, and the schema of each event's `data`.
const STREAMS: [(&str, &str); 2] = [
    ("/v1/matches/{id}/stream", "LoggedEvent"),
    ("/v1/me/stream", "Notification"),
];

/// Any text without U+0000.
pub const NO_NUL: &str = "^[^\\u0000]*$";

/// Applies them all to a derived description.
pub fn add(api: &mut Value) {
    refuse_nul(api);
    for (path, method) in OPTIONAL_BODIES {
        let body = &mut api["paths"][path][method]["requestBody"];
        assert!(body.is_object(), "{method} {path} takes a body");
        body["required"] = json!(false);
    }
    for (path, data) in STREAMS {
        let media =
            &mut api["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"];
        assert!(media.is_object(), "{path} answers an event stream");
        media["schema"] = json!({
            "type": "object",
            "required": ["id", "event", "data"],
            "properties": {
                "id": {"type": "string", "description": "The sequence number: resume after it with `Last-Event-ID`."},
                "event": {"type": "string", "description": "The `type` (or `kind`) of the data."},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": format!("#/components/schemas/{data}")},
                },
            },
        });
    }
}

/// Gives every free string a request may send the pattern [`NO_NUL`].
fn refuse_nul(api: &mut Value) {
    let mut sent = Vec::new();
    for operation in api["paths"]
        .as_object_mut()
        .expect("paths")
        .values_mut()
        .flat_map(|item| item.as_object_mut().expect("a path item").values_mut())
    {
        // `get_mut`, not indexing, which would write a `null` where an operation has none.
        let parameters = operation
            .get_mut("parameters")
            .and_then(Value::as_array_mut);
        for parameter in parameters.into_iter().flatten() {
            if let Some(schema) = parameter.get_mut("schema") {
                without_nul(schema, &mut sent);
            }
        }
        let bodies = operation
            .pointer_mut("/requestBody/content")
            .and_then(Value::as_object_mut);
        for media in bodies.into_iter().flat_map(|content| content.values_mut()) {
            if let Some(schema) = media.get_mut("schema") {
                without_nul(schema, &mut sent);
            }
        }
    }
    // The component schemas requests refer to, and those they refer to in turn.
    let mut done = std::collections::HashSet::new();
    while let Some(name) = sent.pop() {
        if done.insert(name.clone())
            && let Some(schema) = api.pointer_mut(&format!("/components/schemas/{name}"))
        {
            without_nul(schema, &mut sent);
        }
    }
}

/// Adds [`NO_NUL`] to each free string in `schema`, noting the components it refers to.
fn without_nul(schema: &mut Value, refers_to: &mut Vec<String>) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(name) = object
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
    {
        refers_to.push(name.to_owned());
    }
    let is_string = match object.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "string"),
        _ => false,
    };
    let constrained = ["pattern", "enum", "const", "format"]
        .iter()
        .any(|keyword| object.contains_key(*keyword));
    if is_string && !constrained {
        object.insert("pattern".into(), json!(NO_NUL));
    }
    for (keyword, value) in object.iter_mut() {
        match keyword.as_str() {
            "properties" => {
                for property in value
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|map| map.values_mut())
                {
                    without_nul(property, refers_to);
                }
            }
            "items" | "additionalProperties" | "not" => without_nul(value, refers_to),
            "oneOf" | "anyOf" | "allOf" | "prefixItems" => {
                for branch in value.as_array_mut().into_iter().flatten() {
                    without_nul(branch, refers_to);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_join_body_is_optional_and_stream_events_are_described() {
        let api = super::super::openapi();
        let join = &api["paths"]["/v1/matches/{id}/join"]["post"]["requestBody"];
        assert_eq!(join["required"], false);
        for (path, data) in super::STREAMS {
            let item = &api["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
                ["schema"];
            let reference = format!("#/components/schemas/{data}");
            assert_eq!(
                item["properties"]["data"]["contentSchema"]["$ref"],
                reference
            );
            let name = reference.rsplit('/').next().unwrap();
            assert!(api["components"]["schemas"][name].is_object(), "{name}");
        }
    }

    /// Every string a request may send says that it holds no U+0000: by a pattern that refuses
    /// it, or by being a closed set (an enum) or a format (a UUID) that cannot hold it.
    #[test]
    fn no_string_a_request_sends_admits_a_nul() {
        let mut api = super::super::openapi();
        let before = api.clone();
        super::refuse_nul(&mut api);
        assert_eq!(api, before, "the served description has them all already");

        let mut unchecked = Vec::new();
        let mut strings = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (path, item) in api["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let place = format!("{method} {path}");
                for parameter in operation["parameters"].as_array().into_iter().flatten() {
                    let name = parameter["name"].as_str().unwrap();
                    collect(
                        &api,
                        &parameter["schema"],
                        format!("{place} {name}"),
                        &mut seen,
                        &mut strings,
                    );
                }
                if let Some(content) = operation.pointer("/requestBody/content") {
                    for media in content.as_object().unwrap().values() {
                        collect(
                            &api,
                            &media["schema"],
                            format!("{place} body"),
                            &mut seen,
                            &mut strings,
                        );
                    }
                }
            }
        }
        assert!(
            strings.len() > 40,
            "found the strings requests send: {}",
            strings.len()
        );
        for (place, schema) in strings {
            let closed = ["enum", "const", "format"]
                .iter()
                .any(|keyword| schema.get(*keyword).is_some());
            let refuses_nul = schema
                .get("pattern")
                .and_then(|pattern| pattern.as_str())
                .is_some_and(|pattern| {
                    let pattern =
                        regex::Regex::new(pattern).expect("a pattern the regex crate reads");
                    ["\0", "a\0", "\0a", "K\0S", "ab\0cd ef"]
                        .iter()
                        .all(|text| !pattern.is_match(text))
                });
            if !closed && !refuses_nul {
                unchecked.push(place);
            }
        }
        assert!(
            unchecked.is_empty(),
            "patterns that admit a NUL: {unchecked:?}"
        );
    }

    /// Every string schema a request may send under `value`, with where it is, following
    /// references to components (each once).
    fn collect<'a>(
        api: &'a serde_json::Value,
        value: &'a serde_json::Value,
        place: String,
        seen: &mut std::collections::HashSet<String>,
        found: &mut Vec<(String, &'a serde_json::Value)>,
    ) {
        match value {
            serde_json::Value::Object(object) => {
                if let Some(reference) = object.get("$ref").and_then(|reference| reference.as_str())
                    && seen.insert(reference.to_owned())
                {
                    let target = api.pointer(reference.trim_start_matches('#')).unwrap();
                    collect(api, target, reference.to_owned(), seen, found);
                }
                let kind = object.get("type");
                if kind.is_some_and(|kind| {
                    kind == "string"
                        || kind
                            .as_array()
                            .is_some_and(|kinds| kinds.contains(&"string".into()))
                }) {
                    found.push((place.clone(), value));
                }
                for (key, inner) in object {
                    if !matches!(key.as_str(), "example" | "examples" | "default") {
                        collect(api, inner, format!("{place}/{key}"), seen, found);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    collect(api, inner, format!("{place}/{index}"), seen, found);
                }
            }
            _ => {}
        }
    }
}
