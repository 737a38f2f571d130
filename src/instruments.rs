//! The server's metrics, in one place: every family's name, help and unit, the buckets of its
//! histograms, and one small function per thing the code records, so that a call site is one
//! line and a family is spelled once. Recorded through the `metrics` facade into one
//! process-wide Prometheus recorder (`metrics-exporter-prometheus`), which `GET /metrics`
//! renders (`http/metrics.rs`).
//!
//! Label values are always from a fixed set (a route's pattern, a status, a refusal's code, a
//! bot level, an outcome): never an id, a username or anything a client chooses freely, so the
//! number of series stays bounded however the server is used.
//!
//! Figures that are a state rather than an event (the pool, the cache, the queues' depth and
//! age) are gauges set when a scrape asks for them ([`Snapshot`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use metrics::{
    Counter, Histogram, counter, describe_counter, describe_gauge, describe_histogram, gauge,
    histogram,
};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Seconds, from a millisecond to a minute: requests, commits, waits for a connection, bots.
const SECONDS: &[f64] = &[
    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0,
];
/// Moves written by one commit.
const BATCH_SIZES: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// How often the recorder folds histogram samples into their buckets when nobody scrapes, so
/// an unscraped process does not gather samples without bound.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

const REQUEST_SECONDS: &str = "kings_corner_http_request_duration_seconds";
const MOVES_ACCEPTED: &str = "kings_corner_moves_accepted_total";
const MOVES_REFUSED: &str = "kings_corner_moves_refused_total";
const BATCH_SIZE: &str = "kings_corner_append_batch_moves";
const COMMIT_SECONDS: &str = "kings_corner_append_commit_duration_seconds";
const POOL_CONNECTIONS: &str = "kings_corner_db_pool_connections";
const POOL_MAX: &str = "kings_corner_db_pool_max_connections";
const POOL_WAITING: &str = "kings_corner_db_pool_waiting";
const POOL_ACQUIRE_SECONDS: &str = "kings_corner_db_pool_acquire_duration_seconds";
const CACHE_LOOKUPS: &str = "kings_corner_state_cache_lookups_total";
const CACHE_MATCHES: &str = "kings_corner_state_cache_matches";
const SNAPSHOTS: &str = "kings_corner_state_snapshots_total";
const CACHE_CAPACITY: &str = "kings_corner_state_cache_capacity";
const HELD: &str = "kings_corner_held_connections";
const HELD_LIMIT: &str = "kings_corner_held_connections_limit";
const HELD_REFUSED: &str = "kings_corner_held_connections_refused_total";
const IN_FLIGHT_REFUSED: &str = "kings_corner_requests_in_flight_refused_total";
const READS_RETRIED: &str = "kings_corner_database_reads_retried_total";
const UNRELAYED: &str = "kings_corner_notifications_unrelayed";
const RELAY_LAG: &str = "kings_corner_notification_relay_lag_seconds";
const OUTBOX_PENDING: &str = "kings_corner_webhook_outbox_pending";
const OUTBOX_OLDEST: &str = "kings_corner_webhook_outbox_oldest_pending_seconds";
const DELIVERIES: &str = "kings_corner_webhook_deliveries_total";
const MAIL_WAITING: &str = "kings_corner_mail_outbox_pending";
const MAIL_OLDEST: &str = "kings_corner_mail_outbox_oldest_pending_seconds";
const MAIL_SENT: &str = "kings_corner_mail_attempts_total";
const ALERTS_WAITING: &str = "kings_corner_alerts_pending";
const PUSHES: &str = "kings_corner_push_attempts_total";
const BOT_TURNS_WAITING: &str = "kings_corner_bot_turns_waiting";
const BOT_LAG: &str = "kings_corner_bot_queue_lag_seconds";
const BOT_DECISION_SECONDS: &str = "kings_corner_bot_decision_duration_seconds";
const CLOCKS_DUE: &str = "kings_corner_clock_work_due";
const CLOCK_LAG: &str = "kings_corner_clock_sweep_lag_seconds";
const VACATIONS_DUE: &str = "kings_corner_vacation_work_due";
const START_TIME: &str = "process_start_time_seconds";
const BUILD_INFO: &str = "kings_corner_build_info";

/// Every family this module records, for the test that scrapes them all and the table of docs/operations.md ("Metrics").
pub const FAMILIES: &[&str] = &[
    REQUEST_SECONDS,
    MOVES_ACCEPTED,
    MOVES_REFUSED,
    BATCH_SIZE,
    COMMIT_SECONDS,
    POOL_CONNECTIONS,
    POOL_MAX,
    POOL_WAITING,
    POOL_ACQUIRE_SECONDS,
    CACHE_LOOKUPS,
    CACHE_MATCHES,
    SNAPSHOTS,
    CACHE_CAPACITY,
    HELD,
    HELD_LIMIT,
    HELD_REFUSED,
    IN_FLIGHT_REFUSED,
    READS_RETRIED,
    UNRELAYED,
    RELAY_LAG,
    OUTBOX_PENDING,
    OUTBOX_OLDEST,
    DELIVERIES,
    BOT_TURNS_WAITING,
    BOT_LAG,
    BOT_DECISION_SECONDS,
    CLOCKS_DUE,
    CLOCK_LAG,
    VACATIONS_DUE,
    START_TIME,
    BUILD_INFO,
];

/// The process's recorder, installed on first use: one per process, however many servers a
/// test starts in it (their figures then add up, as two processes' would on a dashboard).
pub fn recorder() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let builder = PrometheusBuilder::new()
            .set_buckets(SECONDS)
            .and_then(|builder| {
                builder.set_buckets_for_metric(Matcher::Full(BATCH_SIZE.into()), BATCH_SIZES)
            })
            .expect("the buckets are not empty");
        let recorder = builder.build_recorder();
        let handle = recorder.handle();
        // Another recorder already installed (a program embedding the server with its own)
        // keeps receiving; this one then renders only what it was given directly.
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed: /metrics may be empty");
        }
        describe();
        started();
        let upkeep = handle.clone();
        std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            })
            .expect("a thread for the metrics' upkeep");
        handle
    })
}

fn describe() {
    use metrics::Unit::{Count, Seconds};
    describe_histogram!(
        REQUEST_SECONDS,
        Seconds,
        "Requests answered, by route pattern, method and status"
    );
    describe_counter!(
        MOVES_ACCEPTED,
        Count,
        "Moves written to a match's log, by who made them (player, bot)"
    );
    describe_counter!(MOVES_REFUSED, Count, "Moves refused, by the problem's code");
    describe_histogram!(
        BATCH_SIZE,
        Count,
        "Moves written by one commit (group commit: one statement on PostgreSQL, one transaction on SQLite)"
    );
    describe_histogram!(
        COMMIT_SECONDS,
        Seconds,
        "Time to write and commit one batch of moves"
    );
    describe_gauge!(
        POOL_CONNECTIONS,
        Count,
        "Database connections open, by state (idle, in_use)"
    );
    describe_gauge!(
        POOL_MAX,
        Count,
        "The most database connections the pool opens"
    );
    describe_gauge!(
        POOL_WAITING,
        Count,
        "Callers waiting for a database connection"
    );
    describe_histogram!(
        POOL_ACQUIRE_SECONDS,
        Seconds,
        "Time to get a database connection from the pool (for a transaction, with its BEGIN)"
    );
    describe_counter!(
        CACHE_LOOKUPS,
        Count,
        "Match state lookups, by outcome: hit (no database read), confirmed (the row agreed), behind (brought forward from the log), miss (replayed)"
    );
    describe_counter!(
        SNAPSHOTS,
        Count,
        "Snapshots of a match's state, by outcome: taken (kept beside the log), resumed (a read began at one instead of the log's first event), refused (one did not agree with its log or its table, and the log was folded instead)"
    );
    describe_gauge!(CACHE_MATCHES, Count, "Matches held in the state cache");
    describe_gauge!(
        CACHE_CAPACITY,
        Count,
        "The most matches the state cache holds"
    );
    describe_gauge!(HELD, Count, "Long-polls and event streams held open");
    describe_gauge!(
        HELD_LIMIT,
        Count,
        "The most long-polls and streams this process holds"
    );
    describe_counter!(
        HELD_REFUSED,
        Count,
        "Long-polls and streams refused because the cap was reached"
    );
    describe_counter!(
        IN_FLIGHT_REFUSED,
        Count,
        "Requests refused because their account had as many in flight as it may"
    );
    describe_counter!(
        READS_RETRIED,
        Count,
        "Reads run once more on another connection after their own was cut"
    );
    describe_gauge!(
        UNRELAYED,
        Count,
        "Notifications written but not yet numbered into their account's stream"
    );
    describe_gauge!(
        RELAY_LAG,
        Seconds,
        "Age of the oldest notification not yet relayed (0: none waiting)"
    );
    describe_gauge!(
        OUTBOX_PENDING,
        Count,
        "Webhook deliveries pending on enabled webhooks"
    );
    describe_gauge!(
        OUTBOX_OLDEST,
        Seconds,
        "Age of the oldest pending webhook delivery (0: none pending)"
    );
    describe_counter!(
        DELIVERIES,
        Count,
        "Webhook delivery attempts, by outcome (delivered, failed, given_up)"
    );
    describe_gauge!(
        MAIL_WAITING,
        Count,
        "Letters in the mail outbox not yet sent nor given up"
    );
    describe_gauge!(
        MAIL_OLDEST,
        Seconds,
        "Age of the oldest letter waiting in the mail outbox (0: none waiting)"
    );
    describe_counter!(
        MAIL_SENT,
        Count,
        "Attempts to send a letter, by outcome (sent, retried, failed)"
    );
    describe_gauge!(
        ALERTS_WAITING,
        Count,
        "Notifications waiting for a player's digest or the end of their quiet hours, by channel"
    );
    describe_counter!(
        PUSHES,
        Count,
        "Web Push messages attempted, by outcome (sent, retried, failed, gone)"
    );
    describe_gauge!(
        BOT_TURNS_WAITING,
        Count,
        "Matches waiting for a bot to move"
    );
    describe_gauge!(
        BOT_LAG,
        Seconds,
        "How long the longest-waiting bot turn has waited (0: none waiting)"
    );
    describe_histogram!(
        BOT_DECISION_SECONDS,
        Seconds,
        "Time a bot takes to choose an action, by level"
    );
    describe_gauge!(
        CLOCKS_DUE,
        Count,
        "Matches with a forfeit, stand-in or reminder due and not yet done"
    );
    describe_gauge!(
        CLOCK_LAG,
        Seconds,
        "How long the most overdue clock work has been due (0: none due)"
    );
    describe_gauge!(
        VACATIONS_DUE,
        Count,
        "Matches whose logs wait to record a vacation begun or ended (or a start looked at)"
    );
    describe_gauge!(
        START_TIME,
        Seconds,
        "When the process started, Unix seconds"
    );
    describe_gauge!(BUILD_INFO, "The server's version (always 1)");
}

fn started() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |elapsed| elapsed.as_secs_f64());
    gauge!(START_TIME).set(now);
    gauge!(BUILD_INFO, "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    // Series with a known set of labels start at zero, so that a dashboard's rate() sees the
    // first event rather than a series appearing from nothing.
    for by in ["player", "bot"] {
        counter!(MOVES_ACCEPTED, "by" => by).absolute(0);
    }
    for outcome in ["hit", "confirmed", "behind", "miss"] {
        counter!(CACHE_LOOKUPS, "outcome" => outcome).absolute(0);
    }
    for outcome in ["taken", "resumed", "refused"] {
        counter!(SNAPSHOTS, "outcome" => outcome).absolute(0);
    }
    for outcome in ["delivered", "failed", "given_up"] {
        counter!(DELIVERIES, "outcome" => outcome).absolute(0);
    }
    for outcome in ["sent", "retried", "failed"] {
        counter!(MAIL_SENT, "outcome" => outcome).absolute(0);
    }
    for outcome in ["sent", "retried", "failed", "gone"] {
        counter!(PUSHES, "outcome" => outcome).absolute(0);
    }
    counter!(HELD_REFUSED).absolute(0);
    counter!(IN_FLIGHT_REFUSED).absolute(0);
    counter!(READS_RETRIED).absolute(0);
}

/// The handles of a family's series whose labels come from a fixed set, registered on first
/// use and kept for the process: naming a series (its labels built, hashed and looked up in
/// the recorder's shared map) costs more than recording to it, and these are recorded to on
/// every view or move. The recorder is installed first, so no handle is the no-op recorder's.
fn registered_once<T>(series: &'static OnceLock<T>, register: impl FnOnce() -> T) -> &'static T {
    series.get_or_init(|| {
        recorder();
        register()
    })
}

/// A request answered: `route` is the pattern it matched (`/v1/matches/{id}/moves`), or
/// `unmatched`.
///
/// Each worker thread keeps the handle of every series it has recorded to, for the reason
/// `registered_once` gives; the labels are not a fixed set here, but there are only as many
/// series as routes, methods and statuses the server answers with, so the map stays small.
pub fn request_answered(route: String, method: &'static str, status: u16, took: Duration) {
    type Series = HashMap<(String, &'static str, u16), Histogram>;
    thread_local! {
        static SERIES: RefCell<Series> = RefCell::default();
    }
    SERIES.with_borrow_mut(|series| {
        let key = (route, method, status);
        let seconds = took.as_secs_f64();
        match series.get(&key) {
            Some(histogram) => histogram.record(seconds),
            None => {
                recorder();
                let route = key.0.clone();
                let status = status.to_string();
                let histogram = histogram!(REQUEST_SECONDS, "route" => route, "method" => method, "status" => status);
                histogram.record(seconds);
                series.insert(key, histogram);
            }
        }
    });
}

/// Who made a move.
#[derive(Clone, Copy, Debug)]
pub enum Mover {
    /// A person (or their program) through the API.
    Player,
    /// A server-side bot.
    Bot,
}

/// A move written to its match's log.
pub fn move_accepted(by: Mover) {
    static SERIES: OnceLock<[Counter; 2]> = OnceLock::new();
    let [player, bot] = registered_once(&SERIES, || {
        ["player", "bot"].map(|by| counter!(MOVES_ACCEPTED, "by" => by))
    });
    match by {
        Mover::Player => player.increment(1),
        Mover::Bot => bot.increment(1),
    }
}

/// A move refused with the problem `code`.
pub fn move_refused(code: &'static str) {
    counter!(MOVES_REFUSED, "code" => code).increment(1);
}

/// One commit that wrote `moves` appends in `took`.
pub fn batch_committed(moves: usize, took: Duration) {
    histogram!(BATCH_SIZE).record(moves as f64);
    histogram!(COMMIT_SECONDS).record(took.as_secs_f64());
}

/// A caller starts waiting for a database connection; the wait ends (recorded) when the
/// returned guard is dropped.
pub fn waiting_for_connection() -> ConnectionWait {
    gauge!(POOL_WAITING).increment(1.0);
    ConnectionWait {
        since: std::time::Instant::now(),
    }
}

/// A wait for a database connection, measured until dropped (got one, or gave up).
pub struct ConnectionWait {
    since: std::time::Instant,
}

impl Drop for ConnectionWait {
    fn drop(&mut self) {
        gauge!(POOL_WAITING).decrement(1.0);
        histogram!(POOL_ACQUIRE_SECONDS).record(self.since.elapsed().as_secs_f64());
    }
}

/// How a lookup of a match's state was answered.
#[derive(Clone, Copy, Debug)]
pub enum CacheLookup {
    /// From the cache, with no database read.
    Hit,
    /// From the cache, once the match's row said it is the newest.
    Confirmed,
    /// From the cache, brought forward by the log's newer events.
    Behind,
    /// Not cached: the state was replayed from the log.
    Miss,
}

/// A lookup of a match's state.
pub fn cache_lookup(outcome: CacheLookup) {
    static SERIES: OnceLock<[Counter; 4]> = OnceLock::new();
    let [hit, confirmed, behind, miss] = registered_once(&SERIES, || {
        ["hit", "confirmed", "behind", "miss"]
            .map(|outcome| counter!(CACHE_LOOKUPS, "outcome" => outcome))
    });
    match outcome {
        CacheLookup::Hit => hit.increment(1),
        CacheLookup::Confirmed => confirmed.increment(1),
        CacheLookup::Behind => behind.increment(1),
        CacheLookup::Miss => miss.increment(1),
    }
}

/// What became of a snapshot of a match's state.
#[derive(Clone, Copy, Debug)]
pub enum SnapshotUse {
    /// Kept beside the log.
    Taken,
    /// A read of the match began at it.
    Resumed,
    /// It disagreed with its log or its table; the log was folded instead.
    Refused,
}

/// A snapshot taken, resumed from or refused.
pub fn snapshot(outcome: SnapshotUse) {
    let outcome = match outcome {
        SnapshotUse::Taken => "taken",
        SnapshotUse::Resumed => "resumed",
        SnapshotUse::Refused => "refused",
    };
    counter!(SNAPSHOTS, "outcome" => outcome).increment(1);
}

/// A long-poll or stream refused at the cap.
pub fn held_refused() {
    counter!(HELD_REFUSED).increment(1);
}

/// A request refused because its account had as many in flight as it may.
pub fn in_flight_refused() {
    counter!(IN_FLIGHT_REFUSED).increment(1);
}

/// A read run once more after its connection was cut (`Db::read`).
pub fn read_retried() {
    counter!(READS_RETRIED).increment(1);
}

/// A webhook delivery attempt's outcome.
#[derive(Clone, Copy, Debug)]
pub enum Delivery {
    /// The receiver answered 2xx.
    Delivered,
    /// It did not; the delivery will be tried again.
    Failed,
    /// It did not, and its retry window is over.
    GivenUp,
}

/// A webhook delivery attempted.
pub fn delivery_attempted(outcome: Delivery) {
    let outcome = match outcome {
        Delivery::Delivered => "delivered",
        Delivery::Failed => "failed",
        Delivery::GivenUp => "given_up",
    };
    counter!(DELIVERIES, "outcome" => outcome).increment(1);
}

/// What became of an attempt to send a letter.
#[derive(Clone, Copy, Debug)]
pub enum MailOutcome {
    /// The SMTP server took it.
    Sent,
    /// It refused for now, or could not be reached: tried again later.
    Retried,
    /// It refused for good, or for too long: given up.
    Failed,
}

/// A letter's attempt.
pub fn mail_sent(outcome: MailOutcome) {
    let outcome = match outcome {
        MailOutcome::Sent => "sent",
        MailOutcome::Retried => "retried",
        MailOutcome::Failed => "failed",
    };
    counter!(MAIL_SENT, "outcome" => outcome).increment(1);
}

/// What became of a Web Push message.
#[derive(Clone, Copy, Debug)]
pub enum PushOutcome {
    /// The push service took it.
    Sent,
    /// It failed for now: tried again later.
    Retried,
    /// It failed for good.
    Failed,
    /// The push service says the subscription is gone (404, 410): it was removed.
    Gone,
}

/// A push message's attempt.
pub fn push_sent(outcome: PushOutcome) {
    let outcome = match outcome {
        PushOutcome::Sent => "sent",
        PushOutcome::Retried => "retried",
        PushOutcome::Failed => "failed",
        PushOutcome::Gone => "gone",
    };
    counter!(PUSHES, "outcome" => outcome).increment(1);
}

/// A bot of `level` chose an action in `took`.
pub fn bot_decided(level: &'static str, took: Duration) {
    histogram!(BOT_DECISION_SECONDS, "level" => level).record(took.as_secs_f64());
}

/// What a scrape reads of the process and the database at that moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    /// Database connections open.
    pub pool_open: u32,
    /// Of those, idle.
    pub pool_idle: u32,
    /// The most the pool opens.
    pub pool_max: u32,
    /// Matches in the state cache.
    pub cache_matches: usize,
    /// The most it holds.
    pub cache_capacity: usize,
    /// Long-polls and streams held open.
    pub held: usize,
    /// The most this process holds.
    pub held_limit: usize,
    /// The work waiting in the database.
    pub backlog: Backlog,
}

/// The background work waiting in the database, and how long its oldest piece has waited
/// (seconds; 0 when none waits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Notifications not yet numbered into their account's stream.
    pub unrelayed: i64,
    /// How long the oldest of them has waited.
    pub relay_lag: i64,
    /// Webhook deliveries pending on enabled webhooks.
    pub outbox_pending: i64,
    /// How long the oldest of them has waited.
    pub outbox_oldest: i64,
    /// Matches waiting for a bot's move.
    pub bot_turns: i64,
    /// How long the longest-waiting of them has waited.
    pub bot_lag: i64,
    /// Matches with clock work (a forfeit, a stand-in, a reminder) due.
    pub clocks_due: i64,
    /// How long the most overdue of it has been due.
    pub clock_lag: i64,
    /// Matches marked for the vacation round (`matches/vacations.rs`), not yet looked at.
    pub vacations_due: i64,
    /// Letters waiting in the mail outbox.
    pub mail_waiting: i64,
    /// How long the oldest of them has waited.
    pub mail_oldest: i64,
    /// Notifications waiting for a digest or quiet hours to end: by email.
    pub email_alerts: i64,
    /// The same, by push.
    pub push_alerts: i64,
}

/// Sets the gauges of a scrape.
pub fn observe(snapshot: &Snapshot) {
    let Snapshot {
        pool_open,
        pool_idle,
        pool_max,
        cache_matches,
        cache_capacity,
        held,
        held_limit,
        backlog,
    } = *snapshot;
    gauge!(POOL_CONNECTIONS, "state" => "idle").set(pool_idle);
    gauge!(POOL_CONNECTIONS, "state" => "in_use").set(pool_open.saturating_sub(pool_idle));
    gauge!(POOL_MAX).set(pool_max);
    gauge!(CACHE_MATCHES).set(cache_matches as f64);
    gauge!(CACHE_CAPACITY).set(cache_capacity as f64);
    gauge!(HELD).set(held as f64);
    gauge!(HELD_LIMIT).set(held_limit as f64);
    gauge!(UNRELAYED).set(backlog.unrelayed as f64);
    gauge!(RELAY_LAG).set(backlog.relay_lag as f64);
    gauge!(OUTBOX_PENDING).set(backlog.outbox_pending as f64);
    gauge!(OUTBOX_OLDEST).set(backlog.outbox_oldest as f64);
    gauge!(BOT_TURNS_WAITING).set(backlog.bot_turns as f64);
    gauge!(BOT_LAG).set(backlog.bot_lag as f64);
    gauge!(CLOCKS_DUE).set(backlog.clocks_due as f64);
    gauge!(CLOCK_LAG).set(backlog.clock_lag as f64);
    gauge!(VACATIONS_DUE).set(backlog.vacations_due as f64);
    gauge!(MAIL_WAITING).set(backlog.mail_waiting as f64);
    gauge!(MAIL_OLDEST).set(backlog.mail_oldest as f64);
    gauge!(ALERTS_WAITING, "channel" => "email").set(backlog.email_alerts as f64);
    gauge!(ALERTS_WAITING, "channel" => "push").set(backlog.push_alerts as f64);
}
