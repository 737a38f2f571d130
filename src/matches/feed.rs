//! The event feed: a match's log as the caller may see it (others' draws without their cards),
//! a page at a time with an optional long-poll, or followed as a stream.

use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::access::Viewer;
use super::{MatchError, Matches};
use crate::rules::{Event, Seat};

/// Most events in one page of the feed.
const PAGE: i64 = 500;

/// Longest long-poll, in seconds.
const MAX_WAIT_SECONDS: u64 = 60;

/// How long a stream waits for an event before it sends a keep-alive.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Where the feed starts and how long to wait.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedQuery {
    /// Return events after this sequence number (default 0).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Seconds to wait for a new event when there is none yet (0–60, default 0).
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<u64>,
}

/// One event of the log, as the caller may see it.
#[derive(Serialize, ToSchema)]
pub struct LoggedEvent {
    /// Its position; the match's version after it.
    pub seq: i64,
    /// The event, redacted for the caller (others' draws without the cards).
    pub event: Event,
}

/// A page of the event feed.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"events": [
    {"seq": 3, "event": {"type": "card_played", "seat": 0, "card": "10D", "to": "N"}},
    {"seq": 4, "event": {"type": "cards_drawn", "seat": 0, "reason": "turn_end", "count": 1}},
    {"seq": 5, "event": {"type": "turn_ended", "seat": 0, "passed": false}},
    {"seq": 6, "event": {"type": "turn_started", "seat": 1}}
], "version": 6}))]
pub struct EventsPage {
    /// Events after `after`, oldest first (at most 500).
    pub events: Vec<LoggedEvent>,
    /// The match's version now.
    pub version: i64,
}

/// What a followed feed yields.
pub enum FeedItem {
    /// The next event.
    Event(LoggedEvent),
    /// Nothing new for a while; the connection is still alive.
    KeepAlive,
}

impl Matches {
    /// The caller's redacted feed after `after`, waiting up to `wait` seconds for a first new
    /// event when there is none yet.
    pub async fn events(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
        query: FeedQuery,
    ) -> Result<EventsPage, MatchError> {
        let after = query.after.unwrap_or(0);
        let wait = query.wait.unwrap_or(0);
        if after < 0 {
            return Err(MatchError::invalid_query("after", "after is 0 or more"));
        }
        if wait > MAX_WAIT_SECONDS {
            return Err(MatchError::invalid_query("wait", "wait is 0 to 60 seconds"));
        }
        let (read, seat) = self.read_row(match_id, viewer).await?;
        let mut version = read.row.version;
        if version <= after && wait > 0 {
            self.wait_past(match_id, after, Duration::from_secs(wait))
                .await;
            version = self
                .db
                .match_version(match_id)
                .await?
                .ok_or(MatchError::NotFound)?;
        }
        let events = self.redacted(match_id, seat, after).await?;
        Ok(EventsPage { events, version })
    }

    /// The caller's redacted feed after `after`, event by event as they are written, with a
    /// keep-alive after every quiet 15 seconds. Ends if the database fails.
    pub async fn follow(
        self: Arc<Self>,
        match_id: &str,
        viewer: Viewer<'_>,
        after: i64,
    ) -> Result<impl Stream<Item = FeedItem> + use<>, MatchError> {
        let (read, seat) = self.read_row(match_id, viewer).await?;
        let start = Following {
            matches: self,
            match_id: read.row.id,
            seat,
            after,
            pending: Vec::new(),
        };
        Ok(futures_util::stream::unfold(
            start,
            |mut following| async move {
                let item = following.next().await?;
                Some((item, following))
            },
        ))
    }

    /// Events after `after` (a page), redacted for `seat`.
    async fn redacted(
        &self,
        match_id: &str,
        seat: Option<Seat>,
        after: i64,
    ) -> Result<Vec<LoggedEvent>, MatchError> {
        Ok(self
            .recorded(match_id, after, PAGE)
            .await?
            .into_iter()
            .map(|recorded| LoggedEvent {
                seq: recorded.seq,
                event: recorded.event.redacted_for(seat),
            })
            .collect())
    }

    /// Waits until the match passes `version` or `wait` runs out (or the match is gone).
    async fn wait_past(&self, match_id: &str, version: i64, wait: Duration) {
        self.notifier
            .wait_past(match_id, version, wait, || async {
                self.db.match_version(match_id).await.ok().flatten()
            })
            .await;
    }
}

/// A followed feed between two items.
struct Following {
    matches: Arc<Matches>,
    match_id: String,
    seat: Option<Seat>,
    after: i64,
    /// Read but not yet yielded, newest first.
    pending: Vec<LoggedEvent>,
}

impl Following {
    async fn next(&mut self) -> Option<FeedItem> {
        loop {
            if let Some(logged) = self.pending.pop() {
                return Some(FeedItem::Event(logged));
            }
            let mut events = self
                .matches
                .redacted(&self.match_id, self.seat, self.after)
                .await
                .ok()?;
            if let Some(last) = events.last() {
                self.after = last.seq;
                events.reverse();
                self.pending = events;
                continue;
            }
            let before = self.after;
            self.matches
                .wait_past(&self.match_id, before, KEEP_ALIVE)
                .await;
            let moved = self.matches.db.match_version(&self.match_id).await.ok()?? > before;
            if !moved {
                return Some(FeedItem::KeepAlive);
            }
        }
    }
}
