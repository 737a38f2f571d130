//! Load against the running server (issue 4), measured side by side in one run:
//!
//! 1. accepted moves per second and their p50/p99 latency, 64 concurrent matches on PostgreSQL;
//! 2. `pgbench` with a single-row insert transaction at the same concurrency, same database
//!    server, and the cheapest HTTP service that writes one row per request, on the same pool
//!    settings and driven as the moves are (`baselines.rs`);
//! 3. `GET /view` requests per second, and the same load on a trivial actix-web handler;
//! 4. memory of the state cache holding 10,000 active matches;
//! 5. a match 20,000 events long against a fresh one: a move with the state cached, and the
//!    first view from a server process just started;
//! 6. accepted moves on SQLite, the default, against single-row insert transactions on SQLite at
//!    the same concurrency (WAL, the server's `synchronous` and lock wait, a file beside the
//!    server's);
//! 7. (`scale.rs`) moves with 10,000 matches played at once against the 64 of phase 1 (the tables
//!    analyzed after seating, as autovacuum would within a minute), and moves
//!    on a server process of its own while 10,000 event streams are held, with its memory.
//!
//! `BENCH_PHASES=moves,baselines cargo bench --bench server` runs only the phases named (of
//! `cache`, `moves`, always run, `many`, `baselines`, `views`, `long`, `streams` which needs `many`, and
//! `sqlite`), to measure one change quickly; a figure for the docs comes from a whole run.
//!
//! `cargo bench --bench server` (needs PostgreSQL at `DATABASE_URL`, default
//! `postgres://postgres@127.0.0.1:5432/postgres`, and `pgbench` on the PATH). The load runs
//! from this process on loopback; every phase is bounded in time.
//! `tests/scale/through_pgbouncer.sh cargo bench --bench server` runs the server's side through
//! PgBouncer in transaction mode instead (pgbench still goes straight to PostgreSQL).

use std::time::{Duration, Instant};

use kings_corner::live::Checkpoint;
use kings_corner::matches::access::Table as SeatedTable;
use kings_corner::matches::ledger::{MatchState, StateCache};
use kings_corner::rules::{Action, GameState, Rules, Setup};
use serde::Deserialize;
use serde_json::json;
use sqlx::{Connection, PgConnection};

const CONCURRENCY: usize = 64;
const PHASE: Duration = Duration::from_secs(10);

#[path = "../common/mod.rs"]
mod common;
use common::XorShift;
mod baselines;
mod scale;

// The test suite's database and server helpers: a database of its own, dropped at the end.
#[path = "../../tests/api/helpers.rs"]
#[allow(dead_code)]
mod helpers;
use helpers::{TestDatabase, json_of};

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|pages| pages.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Memory of 10,000 cached mid-hand matches (4 players, standard), by resident set growth.
fn cache_memory() -> (usize, f64) {
    let cache = StateCache::new(10_000);
    let before = rss_bytes();
    for game in 0..10_000u64 {
        let mut secret = [3u8; 32];
        secret[..8].copy_from_slice(&game.to_le_bytes());
        let setup = Setup {
            rules: Rules::default(),
            secret,
            client_seeds: vec![String::new(); 4],
            first_dealer: None,
        };
        let mut state = GameState::new(setup).unwrap();
        for event in state.start().unwrap() {
            state.apply(&event);
        }
        let mut rng = XorShift(game + 1);
        for _ in 0..20 {
            let Some(seat) = state.turn() else { break };
            let actions = state.legal_actions(seat);
            let action = actions[rng.below(actions.len())];
            for event in state.decide(seat, action).unwrap() {
                state.apply(&event);
            }
        }
        let table = SeatedTable::seated(
            true,
            true,
            (0..4).map(|seat| (uuid::Uuid::new_v4().to_string(), seat)),
        );
        cache.put(
            &uuid::Uuid::new_v4().to_string(),
            std::sync::Arc::new(MatchState {
                table: std::sync::Arc::new(table),
                state,
                version: 40,
                table_version: 40,
                last_hash: "ab".repeat(32),
                log_format: 2,
                clock: None,
                views: Default::default(),
            }),
            Checkpoint::never(),
        );
    }
    let grown = rss_bytes().saturating_sub(before);
    (cache.len(), grown as f64 / 1_048_576.0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[derive(Clone)]
struct Table {
    id: String,
    tokens: [String; 2],
}

async fn login(client: &reqwest::Client, base: &str, name: &str) -> String {
    let account = json!({"username": name, "password": "correct horse"});
    client
        .post(format!("{base}/v1/accounts"))
        .json(&account)
        .send()
        .await
        .unwrap();
    let tokens = json_of(client.post(format!("{base}/v1/auth/login")).json(&account)).await;
    tokens["access_token"].as_str().unwrap().to_owned()
}

/// What a bot reads from a view: the rest of it is parsed by no one.
#[derive(Deserialize)]
struct Seen {
    version: i64,
    turn: Option<usize>,
    your_seat: Option<usize>,
    #[serde(default)]
    legal_actions: Vec<Action>,
}

async fn view(client: &reqwest::Client, base: &str, table: &Table, seat: usize) -> Seen {
    client
        .get(format!("{base}/v1/matches/{}/view", table.id))
        .bearer_auth(&table.tokens[seat])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// One match as the bench plays it: its table, the view last seen, and its choices' seed.
struct Game {
    table: Table,
    base: String,
    moves: String,
    current: Seen,
    rng: XorShift,
}

/// What one request of a [`Game`] did.
enum Step {
    /// A move was accepted, in this long.
    Moved(Duration),
    /// The turn had passed to the other seat (or a move was refused): its view was read.
    Looked,
    /// Nobody can move any more.
    Over,
}

impl Game {
    async fn new(client: &reqwest::Client, base: &str, table: Table, seed: u64) -> Game {
        let current = view(client, base, &table, 0).await;
        Game {
            moves: format!("{base}/v1/matches/{}/moves", table.id),
            base: base.to_owned(),
            table,
            current,
            rng: XorShift(seed),
        }
    }

    /// One request: a random legal move by the seat to move, or the view of the seat whose
    /// turn it is now.
    async fn step(&mut self, client: &reqwest::Client) -> Step {
        let Some(turn) = self.current.turn else {
            return Step::Over;
        };
        if self.current.your_seat != Some(turn) {
            self.current = view(client, &self.base, &self.table, turn).await;
            return Step::Looked;
        }
        let legal = std::mem::take(&mut self.current.legal_actions);
        if legal.is_empty() {
            return Step::Over;
        }
        let action = legal[self.rng.below(legal.len())];
        let body = json!({"expected_version": self.current.version, "action": action});
        let started = Instant::now();
        let response = client
            .post(&self.moves)
            .bearer_auth(&self.table.tokens[turn])
            .json(&body)
            .send()
            .await
            .unwrap();
        if response.status() == 200 {
            self.current = response.json().await.unwrap();
            Step::Moved(started.elapsed())
        } else {
            response.bytes().await.unwrap();
            self.current = view(client, &self.base, &self.table, turn).await;
            Step::Looked
        }
    }
}

/// Plays random legal moves on one match until `until` (or its log holds `events` entries);
/// returns accepted-move latencies.
async fn play(
    client: reqwest::Client,
    base: String,
    table: Table,
    seed: u64,
    until: Instant,
    events: i64,
) -> Vec<Duration> {
    let mut game = Game::new(&client, &base, table, seed).await;
    let mut latencies = Vec::new();
    while Instant::now() < until && game.current.version < events {
        match game.step(&client).await {
            Step::Moved(took) => latencies.push(took),
            Step::Looked => {}
            Step::Over => break,
        }
    }
    latencies
}

/// Plays `games` in turn, one move each, until `until`; returns accepted-move latencies.
async fn play_in_turn(
    client: reqwest::Client,
    mut games: Vec<Game>,
    until: Instant,
) -> Vec<Duration> {
    let mut latencies = Vec::new();
    let mut next = 0;
    while Instant::now() < until && !games.is_empty() {
        next %= games.len();
        match games[next].step(&client).await {
            Step::Moved(took) => {
                latencies.push(took);
                next += 1;
            }
            Step::Looked => {}
            Step::Over => {
                games.swap_remove(next);
            }
        }
    }
    latencies
}

/// Runs `clients` tasks for one phase ([`PHASE`]), each repeating `once(client, done)` (its
/// index, and how many it has done) until the phase ends; returns how many were done per
/// second across them.
async fn per_second<Once, Done>(clients: usize, once: Once) -> f64
where
    Once: Fn(usize, u64) -> Done + Clone + Send + 'static,
    Done: Future<Output = ()> + Send,
{
    let until = Instant::now() + PHASE;
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|client| {
            let once = once.clone();
            tokio::spawn(async move {
                let mut done = 0;
                while Instant::now() < until {
                    once(client, done).await;
                    done += 1;
                }
                done
            })
        })
        .collect();
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    total as f64 / started.elapsed().as_secs_f64()
}

/// GET requests per second, one client per `(url, bearer token)`, each waiting for its answer.
async fn requests_per_second(client: &reqwest::Client, urls: Vec<(String, Option<String>)>) -> f64 {
    let urls = std::sync::Arc::new(urls);
    let (client, count) = (client.clone(), urls.len());
    per_second(count, move |index, _| {
        let (client, urls) = (client.clone(), urls.clone());
        async move {
            let (url, token) = &urls[index];
            let mut request = client.get(url);
            if let Some(token) = token {
                request = request.bearer_auth(token);
            }
            let response = request.send().await.unwrap();
            assert!(response.status().is_success());
            response.bytes().await.unwrap();
        }
    })
    .await
}

/// `count` two-seat matches, seated and started, their players named after `prefix`.
async fn seat_tables(
    client: &reqwest::Client,
    base: &str,
    count: usize,
    prefix: &str,
) -> Vec<Table> {
    let mut tables = Vec::new();
    for index in 0..count {
        let host = login(client, base, &format!("{prefix}host{index}")).await;
        let guest = login(client, base, &format!("{prefix}guest{index}")).await;
        tables.push(open_table(client, base, host, guest).await);
    }
    tables
}

/// A public two-seat `standard` match that runs for a thousand hands, opened by `host` and
/// joined by `guest`.
async fn open_table(client: &reqwest::Client, base: &str, host: String, guest: String) -> Table {
    let created = json_of(
        client
            .post(format!("{base}/v1/matches"))
            .bearer_auth(&host)
            .json(
                &json!({"rules": {"preset": "standard", "game_end": {"hands": 1000}}, "seats": 2}),
            ),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let joined = client
        .post(format!("{base}/v1/matches/{id}/join"))
        .bearer_auth(&guest)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    Table {
        id,
        tokens: [host, guest],
    }
}

/// What a phase of moves measured.
struct Moves {
    accepted: usize,
    per_second: f64,
    p99_ms: f64,
}

/// Plays the tables for one phase, `CONCURRENCY` players at once, each with its share of the
/// tables in turn (one table each: a match per player; more: the player moves from match to
/// match); prints and returns the accepted moves per second and their p99. `db`, the server's
/// own store when it runs in this process, gives the moves per transaction.
async fn moves_phase(
    client: &reqwest::Client,
    base: &str,
    db: Option<&kings_corner::store::Db>,
    tables: Vec<Table>,
    label: &str,
) -> Moves {
    let count = tables.len();
    let mut shares: Vec<Vec<Table>> = (0..CONCURRENCY).map(|_| Vec::new()).collect();
    for (index, table) in tables.into_iter().enumerate() {
        shares[index % CONCURRENCY].push(table);
    }
    // Each player first reads its tables' views, untimed.
    let seating: Vec<_> = shares
        .into_iter()
        .enumerate()
        .map(|(player, share)| {
            let (client, base) = (client.clone(), base.to_owned());
            tokio::spawn(async move {
                let mut games = Vec::new();
                for (index, table) in share.into_iter().enumerate() {
                    let seed = (player + index * CONCURRENCY) as u64 + 1;
                    games.push(Game::new(&client, &base, table, seed).await);
                }
                games
            })
        })
        .collect();
    let mut players = Vec::new();
    for games in seating {
        players.push(games.await.unwrap());
    }
    let writes_before = db.and_then(kings_corner::store::Db::append_statistics);
    // Each phase says when it starts: benches/profile.py records exactly the phase it profiles.
    println!(
        "{label}: {count} matches seated; playing for {} s",
        PHASE.as_secs()
    );
    let until = Instant::now() + PHASE;
    let started = Instant::now();
    let tasks: Vec<_> = players
        .into_iter()
        .map(|games| tokio::spawn(play_in_turn(client.clone(), games, until)))
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    let per_second = latencies.len() as f64 / elapsed;
    let p99_ms = percentile(&latencies, 0.99).as_secs_f64() * 1000.0;
    println!(
        "{label}: {} accepted in {elapsed:.1} s = {per_second:.0}/s over {count} matches; p50 {:.1} ms, p99 {p99_ms:.1} ms",
        latencies.len(),
        percentile(&latencies, 0.50).as_secs_f64() * 1000.0,
    );
    // benches/cpu_split.py reads every thread's counters when that line comes: the server's
    // database connections must still be there to be counted, however soon the bench ends.
    tokio::time::sleep(Duration::from_millis(500)).await;
    if let (Some(before), Some(after)) = (
        writes_before,
        db.and_then(kings_corner::store::Db::append_statistics),
    ) {
        println!(
            "{label}: {:.1} appends per transaction on average ({} retried alone)",
            (after.appends - before.appends) as f64
                / (after.batches - before.batches).max(1) as f64,
            after.retried - before.retried
        );
    }
    Moves {
        accepted: latencies.len(),
        per_second,
        p99_ms,
    }
}

/// PostgreSQL's write-ahead log so far (the whole cluster's): bytes, and full-page images.
async fn wal(db: &mut PgConnection) -> (f64, f64) {
    sqlx::query_as("SELECT wal_bytes::float8, wal_fpi::float8 FROM pg_stat_wal")
        .fetch_one(db)
        .await
        .unwrap()
}

/// What a phase's moves cost PostgreSQL's log, per move.
fn print_wal(label: &str, before: (f64, f64), after: (f64, f64), moves: usize) {
    let moves = moves.max(1) as f64;
    println!(
        "{label}: {:.2} KB of WAL and {:.2} full-page images per move",
        (after.0 - before.0) / moves / 1024.0,
        (after.1 - before.1) / moves
    );
}

/// How long the long match's log is.
const LONG_EVENTS: i64 = 20_000;

/// The median and p99 of `latencies`, in milliseconds.
fn spread(mut latencies: Vec<Duration>) -> (f64, f64) {
    latencies.sort();
    (
        percentile(&latencies, 0.50).as_secs_f64() * 1000.0,
        percentile(&latencies, 0.99).as_secs_f64() * 1000.0,
    )
}

/// The server's `/metrics` text.
async fn metrics(client: &reqwest::Client, base: &str) -> String {
    client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// How long a view takes, in milliseconds.
async fn timed_view(client: &reqwest::Client, base: &str, table: &Table) -> f64 {
    let started = Instant::now();
    view(client, base, table, 0).await;
    started.elapsed().as_secs_f64() * 1000.0
}

/// A match `LONG_EVENTS` long against a fresh one: their moves with the state cached, and their
/// first view from a server process that has just started (its cache empty: a restart, or a
/// cache miss), three such processes in turn.
async fn long_match(
    client: &reqwest::Client,
    base: &str,
    settings: &kings_corner::config::Settings,
) {
    let mut tables = seat_tables(client, base, 2, "long").await;
    let fresh = tables.pop().unwrap();
    let long = tables.pop().unwrap();
    let far = Instant::now() + Duration::from_secs(3600);
    let started = Instant::now();
    play(
        client.clone(),
        base.to_owned(),
        long.clone(),
        7,
        far,
        LONG_EVENTS,
    )
    .await;
    let long_at = view(client, base, &long, 0).await.version;
    println!(
        "long match: {long_at} events written in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let fresh_at = view(client, base, &fresh, 0).await.version;
    let on_long = play(
        client.clone(),
        base.to_owned(),
        long.clone(),
        8,
        far,
        long_at + 600,
    )
    .await;
    let on_fresh = play(
        client.clone(),
        base.to_owned(),
        fresh.clone(),
        8,
        far,
        fresh_at + 600,
    )
    .await;
    let ((long_p50, long_p99), (fresh_p50, fresh_p99)) = (spread(on_long), spread(on_fresh));
    println!(
        "long match: a move, cached: p50 {long_p50:.2} ms, p99 {long_p99:.2} ms at {LONG_EVENTS}+ events; \
         p50 {fresh_p50:.2} ms, p99 {fresh_p99:.2} ms on a fresh match"
    );
    let mut tables = seat_tables(client, base, 1, "warm").await;
    let warm = tables.pop().unwrap();
    for round in 1..=3 {
        let (_db, restarted) = helpers::start(settings.clone()).await;
        // The process's first request opens its pool's connection: not what is measured.
        timed_view(client, &restarted, &warm).await;
        let long_view = timed_view(client, &restarted, &long).await;
        let fresh_view = timed_view(client, &restarted, &fresh).await;
        let long_again = timed_view(client, &restarted, &long).await;
        println!(
            "long match: first view after a restart ({round}): {long_view:.1} ms at {LONG_EVENTS}+ events, \
             {fresh_view:.1} ms on a fresh match; the next view of the long one {long_again:.2} ms"
        );
    }
    // The recorder is one per process: these count every server the bench started.
    let metrics = metrics(client, base).await;
    let snapshots: Vec<&str> = metrics
        .lines()
        .filter(|line| line.starts_with("kings_corner_state_snapshots_total{"))
        .collect();
    println!("long match: {}", snapshots.join(", "));
}

/// Whether `BENCH_PHASES` (a comma-separated list; unset: all) names `phase`.
fn wanted(phase: &str) -> bool {
    std::env::var("BENCH_PHASES").map_or(true, |phases| {
        phases.split(',').any(|named| named.trim() == phase)
    })
}

#[tokio::main]
async fn main() {
    if wanted("cache") {
        let (cached, megabytes) = cache_memory();
        println!("cache: {cached} active matches held in {megabytes:.1} MB (resident set growth)");
    }

    let admin_url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    let (database, url) = TestDatabase::postgres(&admin_url).await;
    let mut settings = helpers::default_settings();
    settings.database.url = url.clone();
    settings.log_level = "error".to_owned();
    settings.database.max_connections = 32;
    settings.database.timeout_seconds = 5;
    settings.login_attempts_per_minute = 10_000;
    // The bench's few accounts each play many of its matches at once: the bound on one
    // account's requests in flight (MAX_REQUESTS_PER_ACCOUNT, 8 by default) would refuse the
    // load, which measures the server, not one person.
    settings.max_requests_per_account = 10_000;
    // With POOLER_URL (tests/scale/through_pgbouncer.sh), the server goes through PgBouncer.
    if database.behind_pooler(&mut settings).await {
        println!("through the pooler at {}", settings.database.url);
    }
    let (db, base) = helpers::start(settings.clone()).await;
    // Idle connections are dropped before the server's keep-alive (5 s) ends them: a request
    // on a connection the server is closing fails with IncompleteMessage.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CONCURRENCY * 2)
        .pool_idle_timeout(Duration::from_secs(2))
        .build()
        .unwrap();

    let tables = seat_tables(&client, &base, CONCURRENCY, "").await;
    let view_urls: Vec<(String, Option<String>)> = tables
        .iter()
        .map(|table| {
            (
                format!("{base}/v1/matches/{}/view", table.id),
                Some(table.tokens[0].clone()),
            )
        })
        .collect();
    let moving = tables.clone();
    let mut bench_db = PgConnection::connect(&url).await.unwrap();
    let wal_before = wal(&mut bench_db).await;
    let moves = moves_phase(&client, &base, Some(&db), tables, "moves").await;
    print_wal(
        "moves",
        wal_before,
        wal(&mut bench_db).await,
        moves.accepted,
    );
    let moves_per_second = moves.per_second;

    let mut many = Vec::new();
    let mut at_once = None;
    if wanted("many") {
        let started = Instant::now();
        many = scale::seat_many(&client, &base, scale::MANY).await;
        println!(
            "many matches: {} seated in {:.1} s",
            many.len(),
            started.elapsed().as_secs_f64()
        );
        // What autovacuum does within its naptime (a minute) after the tables grew a
        // hundredfold. Without it the server's connections keep the generic plans they made
        // with 64 matches, and the append batch hashes a scan of every match: batches of 9 ms
        // instead of 2.6 on those connections (docs/benchmarks.md, 2026-12-07, third part).
        sqlx::query("ANALYZE").execute(&mut bench_db).await.unwrap();
        let wal_before = wal(&mut bench_db).await;
        let played = moves_phase(&client, &base, Some(&db), many.clone(), "many matches").await;
        print_wal(
            "many matches",
            wal_before,
            wal(&mut bench_db).await,
            played.accepted,
        );
        println!(
            "many matches: {:.0} moves/s with {} matches played at once, {moves_per_second:.0}/s with {CONCURRENCY}: {:.0}%",
            played.per_second,
            many.len(),
            played.per_second / moves_per_second * 100.0
        );
        at_once = Some(played.per_second);
    }

    let (mut pgbench, mut http_writes) = (None, None);
    if wanted("baselines") {
        baselines::create_insert_table(&mut bench_db).await;
        pgbench = baselines::pgbench(&url);
        match pgbench {
            Some(tps) => println!(
                "pgbench: {tps:.0} single-row insert transactions/s at {CONCURRENCY} clients; moves reach {:.0}% of it",
                moves_per_second / tps * 100.0
            ),
            None => {
                println!("pgbench: not available (install postgresql-contrib / the pgbench client)")
            }
        }
        let writes =
            baselines::http_writes(&client, &url, &settings.database, moves_per_second).await;
        http_writes = Some(writes);
    }

    let (mut views, mut trivial) = (None, None);
    if wanted("views") {
        println!("views: GET /view for {} s", PHASE.as_secs());
        let read = requests_per_second(&client, view_urls).await;
        println!("views: {read:.0} requests/s; now a trivial actix-web handler");
        let address = baselines::trivial_reader();
        let urls = (0..CONCURRENCY)
            .map(|_| (format!("http://{address}/"), None))
            .collect();
        let baseline = requests_per_second(&client, urls).await;
        println!(
            "GET /view: {read:.0} requests/s; a trivial actix-web handler: {baseline:.0}/s; ratio {:.0}%",
            read / baseline * 100.0
        );
        (views, trivial) = (Some(read), Some(baseline));
    }
    if wanted("long") {
        long_match(&client, &base, &settings).await;
    }
    if wanted("streams") && !many.is_empty() {
        scale::held_streams(&client, &url, &moving, &many).await;
    }
    drop(bench_db);
    drop(database);

    let (mut sqlite_moves, mut inserts) = (None, None);
    if wanted("sqlite") {
        let (moved, inserted) = sqlite(&client, settings).await;
        (sqlite_moves, inserts) = (Some(moved), Some(inserted));
    }
    let percent = |part: Option<f64>, whole: Option<f64>| match (part, whole) {
        (Some(part), Some(whole)) => format!("{:.0}%", part / whole * 100.0),
        _ => "not run".to_owned(),
    };
    println!(
        "ratios: moves / http writes {}, moves / pgbench {}, 10,000 matches / 64 {}, \
         views / trivial handler {}, sqlite moves / sqlite inserts {}; move p99 {:.1} ms",
        percent(Some(moves_per_second), http_writes),
        percent(Some(moves_per_second), pgbench),
        percent(at_once, Some(moves_per_second)),
        percent(views, trivial),
        percent(sqlite_moves, inserts),
        moves.p99_ms,
    );
}

/// SQLite, the default: the same moves on a server whose database is a file (with the
/// server's default pool), against single-row insert transactions on a file beside it; both
/// rates.
async fn sqlite(
    client: &reqwest::Client,
    mut settings: kings_corner::config::Settings,
) -> (f64, f64) {
    let directory = tempfile::tempdir().unwrap();
    settings.database = helpers::default_settings().database;
    settings.database.url = format!("sqlite://{}", directory.path().join("kings.db").display());
    let connections = settings.database.max_connections;
    let (db, base) = helpers::start(settings).await;
    let tables = seat_tables(client, &base, CONCURRENCY, "").await;
    let sqlite_moves = moves_phase(client, &base, Some(&db), tables, "sqlite moves")
        .await
        .per_second;
    let inserts = baselines::sqlite_inserts(directory.path(), connections).await;
    println!(
        "sqlite inserts: {inserts:.0} single-row insert transactions/s at {CONCURRENCY} tasks over {connections} connections; moves reach {:.0}% of it",
        sqlite_moves / inserts * 100.0
    );
    (sqlite_moves, inserts)
}
