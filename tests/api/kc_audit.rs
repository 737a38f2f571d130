//! The audit of `kc`'s requests (issue 41): every request kc sent in a test (noted by kc in
//! its `KC_TRACE` file: method, path, and the names of its query parameters and headers) must
//! be an operation of openapi/openapi.json, each query parameter and header one the operation
//! declares, and every required query parameter present. kc has no other way to the server.

use serde_json::Value;

/// The description's operations: `(method, path template, operation)`.
fn operations() -> Vec<(String, String, Value)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"))
            .unwrap();
    let description: Value = serde_json::from_str(&text).unwrap();
    let mut operations = Vec::new();
    for (path, item) in description["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            operations.push((method.to_uppercase(), path.clone(), operation.clone()));
        }
    }
    operations
}

/// Whether `path` fills `template` (`/v1/matches/{id}/view`): each `{…}` one segment.
fn fills(template: &str, path: &str) -> bool {
    let (template, path): (Vec<&str>, Vec<&str>) =
        (template.split('/').collect(), path.split('/').collect());
    template.len() == path.len()
        && template.iter().zip(&path).all(|(want, got)| {
            (want.starts_with('{') && want.ends_with('}') && !got.is_empty()) || want == got
        })
}

/// Audits the requests in the trace file at `trace` (absent: no request was sent); panics
/// naming the first that is not an operation of the description. How many were audited.
pub fn audit(trace: &std::path::Path) -> usize {
    let Ok(text) = std::fs::read_to_string(trace) else {
        return 0;
    };
    let operations = operations();
    let mut audited = 0;
    for line in text.lines() {
        let request: Value = serde_json::from_str(line).unwrap();
        let method = request["method"].as_str().unwrap();
        let path = request["path"].as_str().unwrap();
        let Some((_, _, operation)) = operations
            .iter()
            .find(|(verb, template, _)| verb == method && fills(template, path))
        else {
            panic!("kc sent {method} {path}, which is no operation of the description");
        };
        let declared = |place: &str| -> Vec<(String, bool)> {
            operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|parameter| parameter["in"] == place)
                .map(|parameter| {
                    (
                        parameter["name"].as_str().unwrap().to_lowercase(),
                        parameter["required"] == true,
                    )
                })
                .collect()
        };
        let sent = |field: &str| -> Vec<String> {
            request[field]
                .as_array()
                .unwrap()
                .iter()
                .map(|name| name.as_str().unwrap().to_lowercase())
                .collect()
        };
        let (query, headers) = (declared("query"), declared("header"));
        for name in sent("query") {
            assert!(
                query.iter().any(|(declared, _)| *declared == name),
                "kc sent {method} {path} with query parameter `{name}`, which it does not declare"
            );
        }
        for (name, required) in &query {
            assert!(
                !required || sent("query").contains(name),
                "kc sent {method} {path} without its required `{name}`"
            );
        }
        // `accept` is HTTP's own (the description's content types say what it may ask for).
        for name in sent("headers").into_iter().filter(|name| name != "accept") {
            assert!(
                headers.iter().any(|(declared, _)| *declared == name),
                "kc sent {method} {path} with header `{name}`, which it does not declare"
            );
        }
        audited += 1;
    }
    audited
}

#[test]
fn a_request_outside_the_description_fails_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace");
    let line = |method: &str, path: &str, query: &str| {
        format!(r#"{{"method":"{method}","path":"{path}","query":[{query}],"headers":["accept"]}}"#)
    };
    std::fs::write(
        &trace,
        line("GET", "/v1/matches/abc/view", "") + "\n" + &line("GET", "/v1/matches", "\"limit\""),
    )
    .unwrap();
    assert_eq!(audit(&trace), 2);
    for bad in [
        line("GET", "/v1/matches/abc/secrets", ""),
        line("DELETE", "/v1/matches/abc", ""),
        line("GET", "/v1/matches", "\"colour\""),
        line("GET", "/v1/matches/abc/replay", ""),
    ] {
        std::fs::write(&trace, bad.clone()).unwrap();
        let refused = std::panic::catch_unwind(|| audit(&trace));
        assert!(refused.is_err(), "{bad} passed the audit");
    }
}
