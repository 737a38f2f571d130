//! Logs stay readable for good: exports written by earlier versions of the server
//! (`tests/fixtures/exports/`: a whole match of each preset, one forfeited on time, one with a
//! bot's stand-in and a reminder, one with table talk) must still read, verify and replay, and
//! write back byte for byte: every event's hash is over its canonical JSON, so an event type
//! that serialised one field differently would break every stored log's chain.

use std::collections::BTreeSet;

use kings_corner::matches::export::{MatchExport, verify};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/exports");

#[test]
fn exports_of_earlier_versions_verify_and_write_back_byte_for_byte() {
    let mut files: Vec<_> = std::fs::read_dir(FIXTURES)
        .expect("the fixtures are there")
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    files.sort();
    let mut presets = BTreeSet::new();
    let mut event_types = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let stored: Value = serde_json::from_str(&text).unwrap();
        let export: MatchExport = serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{} reads: {error}", file.display()));
        let verified = verify(&export)
            .unwrap_or_else(|problem| panic!("{} verifies: {problem}", file.display()));
        assert_eq!(verified.events, export.events.len(), "{}", file.display());
        assert_eq!(
            serde_json::to_value(&export).unwrap(),
            stored,
            "{} writes back unchanged",
            file.display()
        );
        let name = file.file_stem().unwrap().to_str().unwrap();
        if let Some(preset) = name.strip_prefix("preset-") {
            presets.insert(preset.to_owned());
        }
        for logged in &stored["events"].as_array().unwrap()[..] {
            event_types.insert(logged["event"]["type"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(
        presets,
        ["draw-first", "foundations", "night-one", "standard"]
            .map(String::from)
            .into(),
        "one whole match of each preset"
    );
    for kind in [
        "seat_out",
        "deadline_near",
        "bot_stood_in",
        "table_talk",
        "game_ended",
    ] {
        assert!(
            event_types.contains(kind),
            "a fixture holds a `{kind}`: {event_types:?}"
        );
    }
}
