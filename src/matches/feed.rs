//! The event feed: a match's log as the caller may see it (others' draws without their cards),
//! a page at a time with an optional long-poll, or followed as a stream.
//!
//! A reader who blocks an account is not shown what it said at the table (talk, nudges) while
//! the block was in force ([`super::blocks`]), nor the other seats' talk of a match whose talk
//! it muted ([`super::mutes`]); the log keeps it, and the feed's numbering skips it.

use std::borrow::Borrow;
use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::access::Viewer;
use super::log::{Entry, Note, Recorded};
use super::{MatchError, Matches};
use crate::follow::{self, Followed, NumberedLog, Page};
use crate::rules::Seat;
use crate::store::blocks::BlockSpan;

/// Most events in one page of the feed.
const PAGE: i64 = 500;

/// Longest long-poll, in seconds.
const MAX_WAIT_SECONDS: u64 = 60;

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
    pub event: Entry,
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
        let (read, role) = self.ledger.read_row(match_id, viewer).await?;
        let log = MatchLog {
            matches: self,
            match_id: read.row.id,
            seat: role.seat(),
            reader: viewer.account().map(str::to_owned),
        };
        let wait = Duration::from_secs(wait);
        let (events, version) = follow::poll(&log, read.row.version, after, wait).await?;
        Ok(EventsPage { events, version })
    }

    /// The caller's redacted feed after `after`, event by event as they are written, with a
    /// keep-alive after every quiet while. Ends if the database fails.
    pub async fn follow(
        self: Arc<Self>,
        match_id: &str,
        viewer: Viewer<'_>,
        after: i64,
    ) -> Result<impl Stream<Item = Followed<LoggedEvent>> + use<>, MatchError> {
        let (read, role) = self.ledger.read_row(match_id, viewer).await?;
        let log = MatchLog {
            matches: self,
            match_id: read.row.id,
            seat: role.seat(),
            reader: viewer.account().map(str::to_owned),
        };
        Ok(follow::follow(log, after))
    }
}

/// A match's log as one reader may see it: redacted for their seat (`None`: a spectator),
/// without the words the reader does not hear (`reader`: the account, if signed in).
struct MatchLog<M> {
    matches: M,
    match_id: String,
    seat: Option<Seat>,
    reader: Option<String>,
}

/// What a reader does not hear at a table: the other seats' talk if it muted the table, and
/// the words of the seats it blocked, while it blocked them.
#[derive(Default)]
struct Unheard {
    muted: bool,
    blocks: Vec<BlockSpan>,
}

impl Unheard {
    /// Whether `recorded` is words the reader does not hear (never its own seat's).
    fn hides(&self, recorded: &Recorded, reader_seat: Option<Seat>) -> bool {
        let Some(by) = spoken_by(&recorded.event).filter(|by| Some(*by) != reader_seat) else {
            return false;
        };
        (self.muted && matches!(recorded.event, Entry::Note(Note::TableTalk { .. })))
            || self
                .blocks
                .iter()
                .any(|block| block.seat == by && block.covers(recorded.at))
    }
}

impl<M: Borrow<Matches>> MatchLog<M> {
    /// What the reader does not hear at this table, read only when `page` holds words of
    /// another seat (most pages hold none: no query for them).
    async fn unheard(&self, page: &[Recorded]) -> Result<Unheard, MatchError> {
        let Some(reader) = &self.reader else {
            return Ok(Unheard::default());
        };
        let others_speak = page
            .iter()
            .any(|recorded| spoken_by(&recorded.event).is_some_and(|by| Some(by) != self.seat));
        if !others_speak {
            return Ok(Unheard::default());
        }
        let matches: &Matches = self.matches.borrow();
        Ok(Unheard {
            muted: matches
                .db
                .talk_muted(&self.match_id, reader)
                .await?
                .is_some(),
            blocks: matches.db.block_spans(reader, &self.match_id).await?,
        })
    }
}

/// The seat whose words an entry is: talk's speaker, a nudge's sender.
fn spoken_by(entry: &Entry) -> Option<Seat> {
    match entry {
        Entry::Note(Note::TableTalk { seat, .. }) => Some(*seat),
        Entry::Note(Note::Nudged { by, .. }) => Some(*by),
        _ => None,
    }
}

impl<M: Borrow<Matches>> NumberedLog for MatchLog<M> {
    type Item = LoggedEvent;
    type Error = MatchError;

    async fn after(&self, after: i64) -> Result<Page<LoggedEvent>, MatchError> {
        let matches: &Matches = self.matches.borrow();
        let recorded = matches.ledger.recorded(&self.match_id, after, PAGE).await?;
        let through = recorded.last().map_or(after, |recorded| recorded.seq);
        let unheard = self.unheard(&recorded).await?;
        let items = recorded
            .into_iter()
            .filter(|recorded| !unheard.hides(recorded, self.seat))
            .map(|recorded| LoggedEvent {
                seq: recorded.seq,
                event: recorded.event.redacted_for(self.seat),
            })
            .collect();
        Ok(Page { items, through })
    }

    async fn newest(&self) -> Result<i64, MatchError> {
        let matches: &Matches = self.matches.borrow();
        matches
            .db
            .match_version(&self.match_id)
            .await?
            .ok_or(MatchError::NotFound)
    }

    async fn wait_past(&self, after: i64, wait: Duration) -> bool {
        let matches: &Matches = self.matches.borrow();
        matches
            .notifier
            .wait_past(&self.match_id, after, wait, || async {
                matches
                    .db
                    .match_version(&self.match_id)
                    .await
                    .ok()
                    .flatten()
            })
            .await
    }

    async fn wait_more(&self, after: i64, wait: Duration) -> bool {
        let matches: &Matches = self.matches.borrow();
        matches
            .notifier
            .wait_more(&self.match_id, after, wait)
            .await
    }
}
