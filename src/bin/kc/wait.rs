//! `kc wait [MATCH] [--deadline-near]`: blocks until it is my turn (in any match, or in one),
//! or with `--deadline-near` until a turn of mine has a tenth of its time left, then prints
//! that match and exits 0, so that `while kc wait; do …; done` is a bot's loop. It listens to the
//! account stream (`GET /v1/me/stream`) opened with a single-use stream ticket; a dropped
//! connection, a silent one or a server restarting is met by a new ticket and the stream
//! resumed after the last notification seen, so nothing that came meanwhile is missed.

use std::time::Duration;

use serde_json::Value;

use crate::api::{Api, Call};
use crate::commands::{self, Out};
use crate::failure::Failure;
use crate::sse;

/// The stream sends a comment every 15 s: this long without a byte means the connection is
/// gone even if no error says so.
const SILENCE: Duration = Duration::from_secs(45);

/// How often a quiet stream is backed by a look at the inbox.
const LOOK_AGAIN: Duration = Duration::from_secs(5);

/// Longest pause between two tries to reach a server that does not answer.
const LONGEST_PAUSE: Duration = Duration::from_secs(5);

/// What `kc wait` waits for.
#[derive(Clone, Copy, PartialEq)]
pub enum Until {
    /// My turn (`your_turn`).
    MyTurn,
    /// A turn of mine with a tenth of its time left (`deadline_near`).
    DeadlineNear,
}

impl Until {
    /// The notification that says it.
    fn kind(self) -> &'static str {
        match self {
            Until::MyTurn => "your_turn",
            Until::DeadlineNear => "deadline_near",
        }
    }
}

/// Waits for `until` in `target` (or any match); prints the match.
pub async fn wait(
    api: &mut Api,
    out: Out,
    target: Option<&str>,
    until: Until,
) -> Result<(), Failure> {
    // The newest notification first, then the inbox, then the stream from after that
    // notification: a turn that comes at any moment is in the inbox or on the stream.
    let newest = api
        .get(
            "/v1/me/events",
            Call {
                query: vec![("limit", "1".to_owned())],
                ..Call::default()
            },
        )
        .await?["newest"]
        .as_i64()
        .unwrap_or(0);
    if let Some(waiting) = waiting_now(api, target, until).await? {
        return print(out, &waiting);
    }
    let mut last_seen = newest.to_string();
    let mut pause = Duration::from_millis(100);
    loop {
        let mut stream = match sse::open(api, "/v1/me/stream", &last_seen).await {
            Ok(stream) => stream,
            Err(unreachable @ Failure::Unreachable { .. }) => {
                // A server restarting: try again, a little later each time, saying so.
                eprintln!(
                    "kc: {unreachable}; trying again in {} ms",
                    pause.as_millis()
                );
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(LONGEST_PAUSE);
                continue;
            }
            Err(other) => return Err(other),
        };
        if pause > Duration::from_millis(100) {
            eprintln!(
                "kc: listening again on {} after event {last_seen}",
                api.base
            );
        }
        pause = Duration::from_millis(100);
        let mut events = 0;
        let mut quiet = Duration::ZERO;
        loop {
            let Ok(next) = tokio::time::timeout(LOOK_AGAIN, stream.next()).await else {
                // A quiet while: the inbox again, in case a turn came that the stream did not
                // tell; a stream silent past its keep-alives is opened again.
                if let Some(waiting) = waiting_now(api, target, until).await? {
                    return print(out, &waiting);
                }
                quiet += LOOK_AGAIN;
                if quiet >= SILENCE {
                    break;
                }
                continue;
            };
            let Some(event) = next else { break };
            quiet = Duration::ZERO;
            events += 1;
            if let Some(id) = &event.id {
                last_seen.clone_from(id);
            }
            if event.kind != until.kind() {
                continue;
            }
            // The stream's data is the notification: its envelope, the turn in its `data`.
            let Ok(notification) = serde_json::from_str::<Value>(&event.data) else {
                continue;
            };
            let turn = &notification["data"];
            let match_id = turn["match_id"].as_str().unwrap_or_default();
            if target.is_none_or(|target| target == match_id) {
                return print(out, turn);
            }
        }
        eprintln!(
            "kc: the stream from {} ended after {events} events; opening it again",
            api.base
        );
    }
}

/// A match waiting for my move now, if any (the one asked for, or the inbox's first); for
/// `DeadlineNear`, one whose turn has a tenth of its time left or less.
async fn waiting_now(
    api: &mut Api,
    target: Option<&str>,
    until: Until,
) -> Result<Option<Value>, Failure> {
    let inbox = commands::my_matches(api, true).await?;
    let found = inbox["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|summary| until == Until::MyTurn || deadline_near(summary))
        .find(|summary| target.is_none_or(|target| summary["id"].as_str() == Some(target)));
    Ok(found.map(|summary| {
        serde_json::json!({
            "match_id": summary["id"],
            "version": summary["version"],
            "deadline": summary["clock"]["deadline"],
        })
    }))
}

/// Whether the turn of a match (`MatchSummary`) has a tenth of its time left or less: of the
/// turn's time and the seat's bank, as the server reckons its `deadline_near` reminder.
fn deadline_near(summary: &Value) -> bool {
    let clock = &summary["clock"];
    let (Some(deadline), Some(turn)) = (clock["deadline"].as_str(), clock["turn_seconds"].as_i64())
    else {
        return false;
    };
    let bank = summary["turn"]
        .as_u64()
        .and_then(|seat| clock["banks"][seat as usize].as_i64())
        .or_else(|| clock["bank_seconds"].as_i64())
        .unwrap_or(0);
    crate::api::unix_seconds(deadline)
        .is_some_and(|at| at - crate::api::now() <= (turn + bank) / 10)
}

/// Prints the match whose turn came: its id (and deadline), or with `--json` what the
/// stream said of it (`match_id`, `version`, `deadline`).
fn print(out: Out, turn: &Value) -> Result<(), Failure> {
    if out.json {
        println!("{}", serde_json::to_string(turn).expect("JSON serialises"));
    } else {
        let deadline = turn["deadline"]
            .as_str()
            .map(|deadline| format!(" (by {deadline})"))
            .unwrap_or_default();
        println!("{}{deadline}", turn["match_id"].as_str().unwrap_or("?"));
    }
    Ok(())
}
