//! Server-Sent Events as `kc` reads them: a stream opened with a single-use stream ticket
//! (`POST /v1/me/stream-tickets`), resumed after the last id seen, read event by event. Used by
//! `kc wait` (the account stream) and by the full-screen table (a match's stream too).

use std::time::Duration;

use crate::api::{Api, Call};
use crate::failure::Failure;

/// How long a stream's answer may take to begin.
const OPEN_WITHIN: Duration = Duration::from_secs(10);

/// `path` (`/v1/me/stream`, `/v1/matches/{id}/stream`), opened with a new ticket and resumed
/// after event `after`.
pub async fn open(api: &mut Api, path: &str, after: &str) -> Result<Events, Failure> {
    let ticket = api.post("/v1/me/stream-tickets", Call::default()).await?;
    let ticket = ticket["ticket"]
        .as_str()
        .ok_or_else(|| Failure::Local("the server's stream ticket has no `ticket`".into()))?
        .to_owned();
    let query = vec![("ticket", ticket), ("after", after.to_owned())];
    // The stream's own timeout is its whole life: its answer's head gets a bound of its own,
    // so that a server that takes the request and never answers is tried again.
    let Ok(response) = tokio::time::timeout(OPEN_WITHIN, api.stream(path, query)).await else {
        return Err(Failure::Unreachable {
            server: api.base.clone(),
            cause: format!("its stream did not open in {} s", OPEN_WITHIN.as_secs()),
        });
    };
    let response = response?;
    Ok(Events {
        response,
        buffer: String::new(),
    })
}

/// The kind given to a comment of the stream (its keep-alive, every 15 s).
pub const KEEP_ALIVE: &str = "";

/// One Server-Sent Event.
pub struct Event {
    /// Its `id` (a notification's or an event's number).
    pub id: Option<String>,
    /// Its `event` (the notification's or the log entry's type).
    pub kind: String,
    /// Its `data` (JSON).
    pub data: String,
}

/// The events of an open stream, read as they come.
pub struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    /// The next event (a keep-alive too); `None` once the connection is gone. Safe to drop
    /// while it waits: a chunk is taken from the connection only when it is returned.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse(&block) {
                    return Some(event);
                }
                continue;
            }
            match self.response.chunk().await {
                Ok(Some(bytes)) => {
                    self.buffer
                        .push_str(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"));
                }
                _ => return None,
            }
        }
    }
}

/// One block of the stream as an event; a comment (the keep-alive) as one of kind
/// [`KEEP_ALIVE`]; `None` for a block with nothing in it.
fn parse(block: &str) -> Option<Event> {
    if block.trim_start().starts_with(':') {
        return Some(Event {
            id: None,
            kind: KEEP_ALIVE.to_owned(),
            data: String::new(),
        });
    }
    let mut id = None;
    let mut kind = String::from("message");
    let mut data: Vec<&str> = Vec::new();
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_owned()),
            "event" => kind = value.to_owned(),
            "data" => data.push(value),
            _ => {}
        }
    }
    if data.is_empty() && id.is_none() {
        return None;
    }
    Some(Event {
        id,
        kind,
        data: data.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_and_comments_skipped() {
        let event = parse("id: 7\nevent: your_turn\ndata: {\"match_id\": \"m\"}\n\n").unwrap();
        assert_eq!(event.id.as_deref(), Some("7"));
        assert_eq!(event.kind, "your_turn");
        assert_eq!(event.data, "{\"match_id\": \"m\"}");
        assert_eq!(parse(": keep-alive\n\n").unwrap().kind, KEEP_ALIVE);
        assert!(parse("\n\n").is_none());
    }
}
