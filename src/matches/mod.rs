//! The match service: everything a client may ask of a match, answered in domain terms, with
//! the rules of access decided here and nowhere else.
//!
//! Every feature reads a match's state and appends to its log through one door, the
//! [`ledger`]: load → decide → append, the append atomic and only at the version the change was
//! decided at (the database's version check decides every race, so several server processes on
//! one PostgreSQL stay correct). Features never reach into the ledger's cache, snapshots or log
//! encoding, nor into each other's helpers. Reads never write to a log.
//!
//! # Layout
//! - [`ledger`]: the door to a match's state and log (the state cache, snapshots, kept views,
//!   the notices and ratings written with a change);
//! - [`lobby`]: opening a table; [`listing`]: the lobby, one's matches and inbox, by page
//!   (`cursor`: the opaque page cursors, taken back only as the server wrote them);
//!   [`seating`]: join and leave (seat changes lock their match; `seat_notices` tells the
//!   others); [`invitations`] to private matches; [`summary`]: a match's public face;
//! - [`view`]: the private view, with its serialisation; [`moves`]: checked moves with
//!   idempotent retries ([`idempotency`]) and resigning;
//! - [`feed`]: the redacted event feed, long-polled or followed as a stream;
//! - [`rematch`]: the next match for the players of an ended one;
//! - [`seeks`]: quick pairing, seeks seated together in a new match (`pairing` chooses the
//!   tables, pure);
//! - [`talk`]: table talk, written into the log without making moves stale;
//! - [`blocks`]: an account keeping another away (invitations, joins, pairing; its words left
//!   out of the blocker's feed and notifications); [`follows`]: players an account follows (their
//!   public matches are a listing); [`mutes`]: a reader's mute of a table's
//!   talk; [`notes`]: a player's private notes on a match; [`reports`]: what players tell the
//!   operators about an account, a match or a message; [`moderation`]: the operators' queue
//!   of reports and their audit log (`kings-corner admin`);
//! - [`players`]: player pages (what an account played, won and left, and its ratings);
//!   [`leaderboard`]: a rating pool's players, best first;
//! - [`rated`]: rated tables: which tables may be rated (`unrateable`: why not), and what
//!   `verify --rate` prints (docs/ratings.md); [`rebuild`]: every rating recomputed from the
//!   logs;
//! - [`archive`]: replays and the verifiable [`export`];
//! - [`access`]: who may see a match and who may act in it;
//! - [`match_clock`]: a match's clock folded from its log (deadlines, banks, reminders);
//!   [`clock_worker`]: what a clock makes due (forfeits, stand-ins, reminders), written by the
//!   worker or as a write's explicit first step, and claims and nudges; the time itself is
//!   [`crate::time_source`];
//! - [`vacations`]: an account's vacation days, its vacations, and their record in the logs of
//!   its matches (by a leased round, like the clock's worker);
//! - [`bots`]: bot seats, the bots' turns played by whichever process claims them, hints
//!   (remembered and paced by [`hints`]; `bot_counts` for the metrics);
//! - [`deletions`]: the open seats of deleted accounts given up, resumed by any process;
//! - `leased`: background work on matches claimed under a lease, one helper for the clock's
//!   worker, the bots and vacations (run by [`crate::background`]);
//! - [`log`]: the log's entries (the engine's events and the server's notes: reminders,
//!   stand-ins, talk, nudges, vacations), the hash chain, and the one place entries are encoded
//!   and decoded;
//! - `figures`: what a metrics scrape reads of the work waiting;
//! - [`error`] holds [`MatchError`], each refusal with its stable code; `refusals` each
//!   feature's own (`SeekError`, `TalkError`, …), which it wraps.

pub mod access;
pub mod archive;
pub mod blocks;
mod bot_counts;
pub mod bots;
pub mod clock_worker;
mod cursor;
pub mod deletions;
pub mod error;
pub mod export;
pub mod feed;
mod figures;
pub mod follows;
pub mod hints;
pub mod idempotency;
pub mod invitations;
pub mod leaderboard;
mod leased;
pub mod ledger;
pub mod listing;
pub mod lobby;
pub mod log;
pub mod match_clock;
pub mod moderation;
pub mod moves;
pub mod mutes;
pub mod notes;
mod pairing;
pub mod players;
pub mod rated;
pub mod rebuild;
mod refusals;
pub mod rematch;
pub mod reports;
mod seat_notices;
pub mod seating;
pub mod seeks;
pub mod summary;
pub mod talk;
mod unrateable;
pub mod vacations;
pub mod view;

pub use archive::ReplayQuery;
pub use bot_counts::BotStatistics;
pub use error::{
    BlockError, ClockError, HintError, InvitationError, MatchError, RematchError, SeatingError,
    SeekError, TableError, TalkError, VacationError,
};
pub use feed::{EventsPage, FeedQuery, LoggedEvent};
pub use idempotency::{IdempotencyKey, MoveAnswer};
pub use invitations::{Invitation, InvitationView};
pub use listing::{ListQuery, MatchPage};
pub use lobby::CreateMatch;
pub use moves::MoveRequest;
pub use seating::JoinMatch;
pub use summary::{MatchSummary, SeatInfo};
pub use talk::NewMessage;
pub use view::{MatchView, ViewAnswer};

use std::sync::Arc;

use crate::instruments::Snapshot;
use crate::live::Notifier;
use crate::live::Wake;
use crate::store::Db;
use crate::time_source::Clock;
use bot_counts::BotCounts;
use figures::LastBacklog;
use hints::HintDesk;
use ledger::Ledger;

/// The match service over a database, with its ledger, live notifications and the time it
/// goes by.
#[derive(Debug)]
pub struct Matches {
    /// The one door to a match's state and log.
    ledger: Ledger,
    /// For what is not a match's state: seats, seeks, listings, player pages.
    db: Db,
    notifier: Notifier,
    clock: Arc<dyn Clock>,
    /// Wakes the relay of notifications after a write that tells the players something.
    relay: Wake,
    /// Wakes this process's bots after a write that gives a bot the turn.
    bot_turns: Wake,
    /// Wakes this process's clock worker when a read finds a match's time run out.
    clock_due: Wake,
    /// What this process's bots have done.
    bot_counts: BotCounts,
    /// Hints given, and the limits on computing new ones.
    hints: HintDesk,
    /// The background work waiting, as the metrics last read it.
    last_backlog: LastBacklog,
}

impl Matches {
    /// The service, caching at most `cache_capacity` started matches, waking `relay` after
    /// writing notifications.
    pub fn new(
        db: Db,
        cache_capacity: usize,
        notifier: Notifier,
        clock: Arc<dyn Clock>,
        relay: Wake,
    ) -> Matches {
        let bot_turns = Wake::default();
        Matches {
            ledger: Ledger::new(
                db.clone(),
                cache_capacity,
                notifier.clone(),
                clock.clone(),
                relay.clone(),
                bot_turns.clone(),
            ),
            db,
            notifier,
            clock,
            relay,
            bot_turns,
            clock_due: Wake::default(),
            bot_counts: BotCounts::default(),
            hints: HintDesk::default(),
            last_backlog: LastBacklog::default(),
        }
    }

    /// Whether the service can serve now: its database answers.
    pub async fn ready(&self) -> Result<(), MatchError> {
        Ok(self.db.ready().await?)
    }

    /// The figures of a metrics scrape, with the HTTP layer's own count of `held` connections
    /// and their cap.
    pub async fn figures(&self, (held, held_limit): (usize, usize)) -> Snapshot {
        let (pool_open, pool_idle, pool_max) = self.db.pool_figures();
        let (cache_matches, cache_capacity) = self.ledger.cache_figures();
        Snapshot {
            pool_open,
            pool_idle,
            pool_max,
            cache_matches,
            cache_capacity,
            held,
            held_limit,
            backlog: self.last_backlog.read(&self.db, self.clock.now()).await,
        }
    }
}
