//! What the server checks that the derived description cannot say by itself:
//! - the body of `POST /v1/matches/{id}/join` may be left out (read by `OptionalJson`);
//! - each event of the two streams (`text/event-stream`) is described as OpenAPI 3.2 writes it,
//!   an item schema of Server-Sent Events: an `id` (the sequence number), an `event` name (the
//!   event's or notification's type) and a JSON `data` of the documented union. The document
//!   is OpenAPI 3.1, whose media type has no `itemSchema` (linters refuse the keyword), so it is
//!   given as the extension `x-itemSchema`; readers still find the whole body as a string.

use serde_json::{Value, json};

/// The operations whose JSON body may be left out.
const OPTIONAL_BODIES: [(&str, &str); 1] = [("/v1/matches/{id}/join", "post")];

/// The streams, and the schema of each event's `data`.
const STREAMS: [(&str, &str); 2] = [
    ("/v1/matches/{id}/stream", "LoggedEvent"),
    ("/v1/me/stream", "Notification"),
];

/// Where a stream's event schema is written: OpenAPI 3.2's `itemSchema`, as an extension of 3.1.
pub const ITEM_SCHEMA: &str = "x-itemSchema";

/// Applies both to a derived description.
pub fn add(api: &mut Value) {
    for (path, method) in OPTIONAL_BODIES {
        let body = &mut api["paths"][path][method]["requestBody"];
        assert!(body.is_object(), "{method} {path} takes a body");
        body["required"] = json!(false);
    }
    for (path, data) in STREAMS {
        let media =
            &mut api["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"];
        assert!(media.is_object(), "{path} answers an event stream");
        media[ITEM_SCHEMA] = json!({
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_join_body_is_optional_and_stream_events_are_described() {
        let api = super::super::openapi();
        let join = &api["paths"]["/v1/matches/{id}/join"]["post"]["requestBody"];
        assert_eq!(join["required"], false);
        for (path, data) in super::STREAMS {
            let item = &api["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
                [super::ITEM_SCHEMA];
            let reference = format!("#/components/schemas/{data}");
            assert_eq!(
                item["properties"]["data"]["contentSchema"]["$ref"],
                reference
            );
            let name = reference.rsplit('/').next().unwrap();
            assert!(api["components"]["schemas"][name].is_object(), "{name}");
        }
    }
}
