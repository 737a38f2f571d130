//! How a match's log lies in `match_events`: one row per append, so a move writes one row and
//! one index entry however many events it has.
//!
//! A row's `seq`, `event` and `hash` are its append's last event's: `seq` is the match's
//! version after the append (the key, and what a snapshot at that version joins on), and
//! `hash` the chain's link there. `earlier` holds the events before the last, in order, as a
//! JSON array of `[hash, event]` pairs, each event's canonical JSON embedded as it is (so a
//! `LIKE` on an event's opening reads both columns alike); it is NULL for an append of one
//! event, which is every row written before migration 0022. Readers get the events one by one
//! ([`StoredEvent`]), whichever layout a row has; the hash chain and every export are the
//! events', unchanged.

use serde_json::value::RawValue;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::StoreError;
use super::rows::StoredEvent;

/// The columns [`events_of`] reads (`records.rs` names them with its alias).
pub(super) const LOG_ROW_COLUMNS: &str = "seq, event, hash, earlier, created_at";

/// One append's events as a row of `match_events` (its match and time aside).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct LogRow<'a> {
    /// The last event's position: the match's version after the append.
    pub seq: i64,
    /// The last event's canonical JSON.
    pub event: &'a str,
    /// The last event's hash.
    pub hash: &'a str,
    /// The events before the last, or `None` when there are none.
    pub earlier: Option<String>,
}

impl<'a> LogRow<'a> {
    /// The row of an append's events, numbered in order; `None` for no events.
    pub fn of(events: &'a [StoredEvent]) -> Option<LogRow<'a>> {
        let (last, before) = events.split_last()?;
        let earlier = (!before.is_empty()).then(|| {
            let length: usize = before
                .iter()
                .map(|event| event.hash.len() + event.event.len() + 6)
                .sum();
            let mut earlier = String::with_capacity(length + 2);
            earlier.push('[');
            for (index, event) in before.iter().enumerate() {
                if index > 0 {
                    earlier.push(',');
                }
                // A hash is hex and an event canonical JSON: neither needs escaping.
                earlier.push_str("[\"");
                earlier.push_str(&event.hash);
                earlier.push_str("\",");
                earlier.push_str(&event.event);
                earlier.push(']');
            }
            earlier.push(']');
            earlier
        });
        Some(LogRow {
            seq: last.seq,
            event: &last.event,
            hash: &last.hash,
            earlier,
        })
    }
}

/// Appends the events of a row of `match_events` (read with [`LOG_ROW_COLUMNS`]) to `events`,
/// in order, whichever layout the row has.
pub(super) fn events_of(row: &AnyRow, events: &mut Vec<StoredEvent>) -> Result<(), StoreError> {
    let seq: i64 = row.try_get("seq")?;
    let at: i64 = row.try_get("created_at")?;
    if let Some(earlier) = row.try_get::<Option<String>, _>("earlier")? {
        unfold(&earlier, seq, at, events)?;
    }
    events.push(StoredEvent {
        seq,
        event: row.try_get("event")?,
        hash: row.try_get("hash")?,
        at,
    });
    Ok(())
}

/// The earlier events of the row whose last event is at `last_seq`.
fn unfold(
    earlier: &str,
    last_seq: i64,
    at: i64,
    events: &mut Vec<StoredEvent>,
) -> Result<(), StoreError> {
    let pairs: Vec<(&str, &RawValue)> = serde_json::from_str(earlier).map_err(|error| {
        StoreError::Corrupt(format!(
            "the log row at {last_seq}'s earlier events: {error}"
        ))
    })?;
    let first = last_seq - pairs.len() as i64;
    events.extend(
        (first..)
            .zip(pairs)
            .map(|(seq, (hash, event))| StoredEvent {
                seq,
                event: event.get().to_owned(),
                hash: hash.to_owned(),
                at,
            }),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(seq: i64, event: &str) -> StoredEvent {
        StoredEvent {
            seq,
            event: event.to_owned(),
            hash: format!("{seq:064x}"),
            at: 1_700_000_000,
        }
    }

    fn unfolded(row: &LogRow<'_>) -> Vec<StoredEvent> {
        let mut events = Vec::new();
        if let Some(earlier) = &row.earlier {
            unfold(earlier, row.seq, 1_700_000_000, &mut events).unwrap();
        }
        events.push(StoredEvent {
            seq: row.seq,
            event: row.event.to_owned(),
            hash: row.hash.to_owned(),
            at: 1_700_000_000,
        });
        events
    }

    fn same(left: &[StoredEvent], right: &[StoredEvent]) -> bool {
        left.len() == right.len()
            && left.iter().zip(right).all(|(left, right)| {
                (left.seq, &left.event, &left.hash, left.at)
                    == (right.seq, &right.event, &right.hash, right.at)
            })
    }

    #[test]
    fn an_append_of_one_event_is_a_row_as_before() {
        let events = [event(7, r#"{"type":"drew","seat":1}"#)];
        let row = LogRow::of(&events).unwrap();
        assert_eq!(row.seq, 7);
        assert_eq!(row.event, events[0].event);
        assert_eq!(row.earlier, None);
        assert!(same(&unfolded(&row), &events));
    }

    #[test]
    fn a_moves_events_come_back_byte_for_byte_in_order() {
        // Bytes a re-serialisation would change: spaces and escapes inside strings, a
        // number's spelling, a key order that is not sorted.
        let events = [
            event(
                12,
                r#"{"type":"talk","seat":0,"text":"a \"b\", [c] \u00e9\n"}"#,
            ),
            event(13, r#"{"type":"played","z":1.50,"a":[]}"#),
            event(14, r#"{"type":"turn_ended","seat":0,"next":1}"#),
        ];
        let row = LogRow::of(&events).unwrap();
        assert_eq!(
            (row.seq, row.event, row.hash),
            (14, &*events[2].event, &*events[2].hash)
        );
        let earlier = row.earlier.as_deref().unwrap();
        // An event's opening reads in the column as in the event's own (the LIKE readers).
        assert!(earlier.contains(r#"",{"type":"played","#), "{earlier}");
        assert!(same(&unfolded(&row), &events));
    }

    #[test]
    fn no_events_no_row() {
        assert_eq!(LogRow::of(&[]), None);
    }

    #[test]
    fn a_damaged_row_is_corrupt() {
        let mut events = Vec::new();
        let error = unfold(r#"[["ab",{"type":"#, 3, 0, &mut events).unwrap_err();
        assert!(matches!(error, StoreError::Corrupt(_)), "{error:?}");
    }
}
