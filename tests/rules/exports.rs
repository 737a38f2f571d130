//! Logs stay readable for good: exports written by earlier versions of the server
//! (`tests/fixtures/exports/`: a whole match of each preset, one forfeited on time, one with a
//! bot's stand-in and a reminder, one with table talk, one with a vacation) must still read, verify and replay, and
//! write back byte for byte: every event's hash is over its canonical JSON, so an event type
//! that serialised one field differently would break every stored log's chain.

use std::collections::BTreeSet;

use kings_corner::matches::export::{ExportEvent, MatchExport, verify};
use kings_corner::matches::log::{Entry, Note, canonical, chain};
use kings_corner::time_source::parse_rfc3339;
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
        "vacation_started",
        "vacation_ended",
        "game_ended",
    ] {
        assert!(
            event_types.contains(kind),
            "a fixture holds a `{kind}`: {event_types:?}"
        );
    }
}

/// Notes are checked at their place, also by `verify`: talk from a seat the table does not
/// have, and a note among the events of one action, are refused even with every hash chained
/// again to fit.
#[test]
fn verify_refuses_a_forged_note() {
    let text = std::fs::read_to_string(format!("{FIXTURES}/talk.json")).unwrap();
    let export: MatchExport = serde_json::from_str(&text).unwrap();
    verify(&export).expect("the fixture verifies");
    let talk = export
        .events
        .iter()
        .position(|logged| matches!(logged.event, Entry::Note(Note::TableTalk { .. })))
        .expect("the fixture holds talk");

    let mut from_nowhere = clone(&export);
    if let Entry::Note(Note::TableTalk { seat, .. }) = &mut from_nowhere.events[talk].event {
        *seat = 7;
    }
    chain_again(&mut from_nowhere);
    let refused = verify(&from_nowhere).unwrap_err();
    assert!(refused.contains("a note the table refuses"), "{refused}");

    // The first deal is one action's group (the hand dealt, then the first turn begun).
    let mut inside = clone(&export);
    let note = ExportEvent {
        seq: 0,
        hash: String::new(),
        at: inside.events[0].at.clone(),
        event: Entry::Note(Note::TableTalk {
            seat: 0,
            text: "hello".to_owned(),
        }),
    };
    inside.events.insert(1, note);
    chain_again(&mut inside);
    let refused = verify(&inside).unwrap_err();
    assert!(
        refused.contains("event 2: a note among the events of one action"),
        "{refused}"
    );
}

/// A vacation is checked against the clock by `verify` as the server checks it when written,
/// and counts in every deadline: each forgery below is refused with every hash chained again.
/// The fixture: seat 0 goes on vacation during its turn, comes back a day later, and is
/// claimed at its deadline moved by that day.
#[test]
fn verify_refuses_a_forged_vacation() {
    let text = std::fs::read_to_string(format!("{FIXTURES}/vacation.json")).unwrap();
    let export: MatchExport = serde_json::from_str(&text).unwrap();
    verify(&export).expect("the fixture verifies");
    let position = |export: &MatchExport, wanted: fn(&Note) -> bool| {
        export
            .events
            .iter()
            .position(|logged| matches!(&logged.event, Entry::Note(note) if wanted(note)))
            .expect("the fixture holds the note")
    };
    let started = position(&export, |note| matches!(note, Note::VacationStarted { .. }));
    let ended = position(&export, |note| matches!(note, Note::VacationEnded { .. }));
    let refused = |forged: &MatchExport, expected: &str| {
        let refused = verify(forged).unwrap_err();
        assert!(refused.contains(expected), "{expected}: {refused}");
    };

    // At a table whose clock vacations do not stop.
    let mut not_allowed = clone(&export);
    not_allowed.clock.as_mut().unwrap().vacations = false;
    refused(
        &not_allowed,
        "a vacation refused: the table's clock is not one vacations stop",
    );

    // Longer than any vacation.
    let mut too_long = clone(&export);
    let at = parse_rfc3339(too_long.events[started].at.as_deref().unwrap()).unwrap();
    too_long.events[started].event = Entry::Note(Note::VacationStarted {
        seat: 0,
        until: kings_corner::time_source::rfc3339(at + 31 * 86_400),
    });
    chain_again(&mut too_long);
    refused(
        &too_long,
        "a vacation refused: its end is not after its start",
    );

    // A return of a seat that was never away.
    let mut not_away = clone(&export);
    not_away.events[ended].event = Entry::Note(Note::VacationEnded { seat: 1 });
    chain_again(&mut not_away);
    refused(&not_away, "a vacation refused: the seat is not on vacation");

    // Without its early end, the vacation would have run to its own end: the claim came
    // before the deadline that gives.
    let mut whole = clone(&export);
    whole.events.remove(ended);
    chain_again(&mut whole);
    refused(&whole, "a timeout records the deadline");

    // For a seat the table does not have (a note the table refuses).
    let mut unknown = clone(&export);
    unknown.events[started].event = Entry::Note(Note::VacationStarted {
        seat: 5,
        until: kings_corner::time_source::rfc3339(at + 86_400),
    });
    chain_again(&mut unknown);
    refused(&unknown, "a note the table refuses");
}

fn clone(export: &MatchExport) -> MatchExport {
    serde_json::from_value(serde_json::to_value(export).unwrap()).unwrap()
}

/// Numbers the events again and chains every hash from the first, as a forger would.
fn chain_again(export: &mut MatchExport) {
    let mut previous = String::new();
    for (index, logged) in export.events.iter_mut().enumerate() {
        logged.seq = index as i64 + 1;
        let at = logged
            .at
            .as_deref()
            .map_or(0, |at| parse_rfc3339(at).unwrap());
        logged.hash = chain(export.log_format, &previous, &canonical(&logged.event), at);
        previous.clone_from(&logged.hash);
    }
}
