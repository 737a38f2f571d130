//! `spawn_app`: the real server on a random port, with a fresh database that is dropped after
//! the test. SQLite by default; PostgreSQL when `DATABASE_URL` names a PostgreSQL server (the
//! URL's database is only used to create and drop the test's own database). With
//! `POOLER_URL` as well (a PgBouncer in transaction mode in front of that server, for example
//! `postgres://postgres@127.0.0.1:6432`), the servers under test reach their database through
//! it (`DATABASE_POOLER=transaction`), as the load-balanced deployment does.

use std::net::TcpListener;
use std::sync::Arc;

use clap::Parser;
use kings_corner::config::{Cli, Settings};
use kings_corner::startup::Application;
use kings_corner::time_source::ManualClock;
use serde_json::{Value, json};
use sqlx::{Connection, Executor, PgConnection};

/// Where the test's database lives; dropping it removes the database.
pub enum TestDatabase {
    /// A file in a temporary directory.
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    /// A database created on the server for this test.
    Postgres {
        /// URL of the maintenance database used to create and drop it.
        admin_url: String,
        /// Its name.
        name: String,
    },
}

impl TestDatabase {
    /// A database on PostgreSQL when `DATABASE_URL` names a server, else a SQLite file; and
    /// the URL the server should use.
    pub async fn create() -> (TestDatabase, String) {
        match std::env::var("DATABASE_URL") {
            Ok(admin_url) if admin_url.starts_with("postgres") => {
                TestDatabase::postgres(&admin_url).await
            }
            _ => {
                let dir = tempfile::tempdir().expect("a temporary directory");
                let url = format!("sqlite://{}", dir.path().join("test.db").display());
                (TestDatabase::Sqlite(dir), url)
            }
        }
    }

    /// A new database on the PostgreSQL server of `admin_url`, and its URL.
    pub async fn postgres(admin_url: &str) -> (TestDatabase, String) {
        let name = format!("kc_test_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::connect(admin_url)
            .await
            .expect("PostgreSQL is reachable");
        admin
            .execute(format!(r#"CREATE DATABASE "{name}""#).as_str())
            .await
            .expect("creates the test database");
        let base = admin_url
            .rsplit_once('/')
            .map_or(admin_url, |(base, _)| base);
        let url = format!("{base}/{name}");
        let admin_url = admin_url.to_owned();
        (TestDatabase::Postgres { admin_url, name }, url)
    }

    /// Runs SQL on the maintenance connection (PostgreSQL only).
    pub async fn admin(&self, sql: &str) {
        if let TestDatabase::Postgres { admin_url, .. } = self {
            let mut admin = PgConnection::connect(admin_url)
                .await
                .expect("PostgreSQL is reachable");
            admin.execute(sql).await.expect("admin SQL runs");
        }
    }

    /// With `POOLER_URL` set: `settings` reach this database through the pooler, with the
    /// direct URL for `LISTEN` and migrations, and the statement timeout on the database (a
    /// session setting would not hold behind the pooler).
    pub async fn behind_pooler(&self, settings: &mut Settings) -> bool {
        let (Ok(pooler), TestDatabase::Postgres { name, .. }) = (std::env::var("POOLER_URL"), self)
        else {
            return false;
        };
        let seconds = settings.database.statement_timeout_seconds;
        self.admin(&format!(
            r#"ALTER DATABASE "{name}" SET statement_timeout = '{seconds}s'"#
        ))
        .await;
        settings.database.listen_url = Some(settings.database.url.clone());
        settings.database.url = format!("{}/{name}", pooler.trim_end_matches('/'));
        settings.database.pooler = kings_corner::config::Pooler::Transaction;
        true
    }

    /// The database's name on PostgreSQL.
    pub fn postgres_name(&self) -> Option<&str> {
        match self {
            TestDatabase::Postgres { name, .. } => Some(name),
            TestDatabase::Sqlite(_) => None,
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let TestDatabase::Postgres { admin_url, name } = self {
            let (admin_url, name) = (admin_url.clone(), name.clone());
            // Drop runs outside any runtime guarantee: use a thread with its own runtime.
            let _ = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    if let Ok(mut admin) = PgConnection::connect(&admin_url).await {
                        let _ = admin
                            .execute(
                                format!(r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#)
                                    .as_str(),
                            )
                            .await;
                    }
                });
            })
            .join();
        }
    }
}

/// A running server and a client for it.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// A client without cookies or redirects.
    pub client: reqwest::Client,
    /// The settings it runs with.
    pub settings: Settings,
    /// Its database handle.
    pub db: kings_corner::store::Db,
    /// Its match service.
    pub matches: Arc<kings_corner::matches::Matches>,
    /// The clock its matches go by: tests move it with `advance`.
    pub clock: Arc<ManualClock>,
    /// Its database (dropped last).
    pub database: TestDatabase,
    /// Behind a pooler: a pool straight to the database, for the tests' own SQL.
    direct: Option<sqlx::AnyPool>,
}

/// Settings as the binary would parse them with no flags, but quieter.
pub fn default_settings() -> Settings {
    let mut settings = Cli::try_parse_from(["kings-corner"])
        .expect("defaults parse")
        .settings;
    settings.log_level = "warn".to_owned();
    settings.database.timeout_seconds = 2;
    // Tests register many players from one address.
    settings.registrations_per_minute = 10_000;
    settings
}

/// A server with default settings.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// A server with adjusted settings.
pub async fn spawn_app_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    let (database, url) = TestDatabase::create().await;
    let mut settings = default_settings();
    settings.database.url = url.clone();
    adjust(&mut settings);
    // A test that routes the server elsewhere (through a relay it can freeze) keeps its route.
    let mut direct = None;
    if settings.database.url == url && database.behind_pooler(&mut settings).await {
        sqlx::any::install_default_drivers();
        direct = Some(
            sqlx::AnyPool::connect(&url)
                .await
                .expect("the database answers"),
        );
    }
    let clock = Arc::new(ManualClock::default());
    let (app, address, matches) = start_process(settings.clone(), clock.clone()).await;
    TestApp {
        matches,
        address,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        settings,
        db: app,
        clock,
        database,
        direct,
    }
}

/// Starts one more server process on the given settings (e.g. the same database).
pub async fn start(settings: Settings) -> (kings_corner::store::Db, String) {
    start_with_clock(settings, Arc::new(ManualClock::default())).await
}

/// Starts one more server process whose matches go by `clock`.
pub async fn start_with_clock(
    settings: Settings,
    clock: Arc<ManualClock>,
) -> (kings_corner::store::Db, String) {
    let (db, address, _) = start_process(settings, clock).await;
    (db, address)
}

/// Starts one more server process whose matches go by `clock`, with its match service.
pub async fn start_process(
    settings: Settings,
    clock: Arc<ManualClock>,
) -> (
    kings_corner::store::Db,
    String,
    Arc<kings_corner::matches::Matches>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds a random port");
    let app = Application::build_with_clock(settings, listener, clock)
        .await
        .expect("the app builds");
    let address = format!("http://{}", app.address());
    let db = app.db().clone();
    let matches = app.matches();
    tokio::spawn(app.run());
    (db, address, matches)
}

impl TestApp {
    /// `/readyz`'s status once the database is back after an outage the test made. Directly
    /// it is back at once; behind PgBouncer the pooler first waits out its
    /// `server_login_retry` after the logins PostgreSQL refused.
    pub async fn ready_again(&self) -> reqwest::StatusCode {
        let mut tries = if self.settings.database.behind_transaction_pooler() {
            30
        } else {
            1
        };
        loop {
            let status = self.get("/readyz", None).await.status();
            tries -= 1;
            if status == 200 || tries == 0 {
                return status;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }

    /// A pool for the tests' own SQL, straight to the database (never through a pooler, which
    /// would need every statement in a transaction).
    pub fn sql(&self) -> &sqlx::AnyPool {
        self.direct.as_ref().unwrap_or(self.db.pool())
    }

    /// POST a JSON body.
    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.address))
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    /// GET with an optional bearer token.
    pub async fn get(&self, path: &str, token: Option<&str>) -> reqwest::Response {
        let mut request = self.client.get(format!("{}{path}", self.address));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.expect("request sent")
    }

    /// Registers an account and asserts success.
    pub async fn register(&self, username: &str, password: &str) -> Value {
        let response = self
            .post(
                "/v1/accounts",
                &json!({"username": username, "password": password}),
            )
            .await;
        assert_eq!(response.status(), 201, "registering {username}");
        response.json().await.unwrap()
    }

    /// Logs in and returns the token pair.
    pub async fn login(&self, username: &str, password: &str) -> Value {
        let response = self
            .post(
                "/v1/auth/login",
                &json!({"username": username, "password": password}),
            )
            .await;
        assert_eq!(response.status(), 200, "logging in {username}");
        response.json().await.unwrap()
    }
}

/// Sends a request that must succeed and reads its JSON body.
pub async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request
        .send()
        .await
        .expect("request sent")
        .json()
        .await
        .expect("a JSON body")
}

/// The id in a `201 Created` answer.
pub async fn created_id(response: reqwest::Response) -> String {
    assert_eq!(response.status(), 201);
    response.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A header of an answer, as text.
pub fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().unwrap())
}

/// Asserts a problem+json answer with this status and code, and returns its body.
pub async fn assert_problem(response: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status(), status, "status");
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(content_type.as_deref(), Some("application/problem+json"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status);
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|detail| !detail.is_empty())
    );
    body
}

/// A logged-in player.
pub struct Player {
    /// Its access token.
    pub token: String,
}

/// A registered, logged-in player of this name.
pub async fn player(app: &TestApp, name: &str) -> Player {
    app.register(name, "correct horse").await;
    let tokens = app.login(name, "correct horse").await;
    Player {
        token: tokens["access_token"].as_str().unwrap().to_owned(),
    }
}

/// A private two-seat match `players[0]` created and `players[1]` joined with its invite code:
/// its summary at creation (with the codes its players see).
pub async fn private_match(app: &TestApp, players: &[Player]) -> Value {
    let created = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let joined = app
        .post_as(
            &players[1],
            &format!("/v1/matches/{id}/join"),
            &json!({"invite_code": created["invite_code"]}),
        )
        .await;
    assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    created
}

pub async fn players(app: &TestApp, count: usize) -> Vec<Player> {
    let mut players = Vec::new();
    for index in 0..count {
        let name = format!("player{index}");
        app.register(&name, "correct horse").await;
        let tokens = app.login(&name, "correct horse").await;
        players.push(Player {
            token: tokens["access_token"].as_str().unwrap().to_owned(),
        });
    }
    players
}

impl TestApp {
    pub async fn post_as(&self, player: &Player, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.address))
            .bearer_auth(&player.token)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    pub async fn get_as(&self, player: &Player, path: &str) -> reqwest::Response {
        self.get(path, Some(&player.token)).await
    }

    pub async fn json_as(&self, player: &Player, path: &str) -> Value {
        let response = self.get_as(player, path).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.json().await.unwrap()
    }
}

/// Creates a match for `players` (the first creates, the rest join) and returns its id.
pub async fn full_match(app: &TestApp, players: &[Player], rules: Value) -> String {
    let created = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"rules": rules, "seats": players.len(), "client_seed": "seed-0"}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["commitment"].as_str().unwrap().len(), 64);
    for (index, player) in players.iter().enumerate().skip(1) {
        let joined = app
            .post_as(
                player,
                &format!("/v1/matches/{id}/join"),
                &json!({"client_seed": format!("seed-{index}")}),
            )
            .await;
        assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    }
    id
}

/// A match created by the first player with `body` and joined by the others (players, or
/// references to some).
pub async fn seated_match<P: std::borrow::Borrow<Player>>(
    app: &TestApp,
    players: &[P],
    body: Value,
) -> String {
    let created = app.post_as(players[0].borrow(), "/v1/matches", &body).await;
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for player in &players[1..] {
        let joined = app
            .post_as(
                player.borrow(),
                &format!("/v1/matches/{id}/join"),
                &json!({}),
            )
            .await;
        assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    }
    id
}

/// Two players and a started `standard` match between them.
pub async fn standard_match(app: &TestApp) -> (Vec<Player>, String) {
    let players = players(app, 2).await;
    let id = full_match(app, &players, json!({"preset": "standard"})).await;
    (players, id)
}

/// The seat to move and its view.
pub async fn view_of_turn(app: &TestApp, players: &[Player], id: &str) -> (usize, Value) {
    let view = app
        .json_as(&players[0], &format!("/v1/matches/{id}/view"))
        .await;
    let turn = view["turn"].as_u64().unwrap() as usize;
    let view = app
        .json_as(&players[turn], &format!("/v1/matches/{id}/view"))
        .await;
    (turn, view)
}

/// `count` started `standard` matches between two players, and the version of each.
pub async fn started_matches(app: &TestApp, count: usize) -> (Vec<String>, Vec<i64>) {
    let players = players(app, 2).await;
    let mut ids = Vec::new();
    let mut versions = Vec::new();
    for _ in 0..count {
        let id = full_match(app, &players, json!({"preset": "standard"})).await;
        versions.push(app.db.match_by_id(&id).await.unwrap().unwrap().version);
        ids.push(id);
    }
    (ids, versions)
}

/// Moves the times of an export's events from index `from` on by `seconds` and chains every
/// hash again from there: a forger's edit that only `verify`'s clock check can catch.
pub fn shift_times_from(
    export: &mut kings_corner::matches::export::MatchExport,
    from: usize,
    seconds: i64,
) {
    use kings_corner::matches::log::{canonical, chain};
    use kings_corner::time_source::{parse_rfc3339, rfc3339};
    let mut previous = match from {
        0 => String::new(),
        _ => export.events[from - 1].hash.clone(),
    };
    for logged in &mut export.events[from..] {
        let at = parse_rfc3339(logged.at.as_deref().unwrap()).unwrap() + seconds;
        logged.at = Some(rfc3339(at));
        logged.hash = chain(export.log_format, &previous, &canonical(&logged.event), at);
        previous = logged.hash.clone();
    }
}

/// Keeps `export` as a fixture of the logs this version writes
/// (`tests/fixtures/exports/{name}.json`) when `KC_WRITE_EXPORT_FIXTURES` is set: before a
/// change to the log's types, run the tests that call this once with it, so that
/// `tests/rules/exports.rs` proves the new code still reads what the old one wrote.
pub fn keep_as_fixture(name: &str, export: &Value) {
    if std::env::var_os("KC_WRITE_EXPORT_FIXTURES").is_none() {
        return;
    }
    let path = format!(
        "{}/tests/fixtures/exports/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = serde_json::to_string_pretty(export).expect("an export serialises");
    std::fs::write(&path, text + "\n").expect("the fixture is written");
}

/// Plays the first legal action of `view` for `player`, preferring to draw or end the turn
/// (the shortest way through a turn); asserts it was accepted.
pub async fn play_first_action(app: &TestApp, player: &Player, id: &str, view: &Value) {
    let actions = view["legal_actions"].as_array().unwrap();
    let action = actions
        .iter()
        .find(|action| action["type"] == "end_turn" || action["type"] == "draw")
        .unwrap_or(&actions[0]);
    let moved = app
        .post_as(
            player,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": action}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
}

/// The match's version as `player` sees it.
pub async fn version_seen_by(app: &TestApp, player: &Player, id: &str) -> i64 {
    app.json_as(player, &format!("/v1/matches/{id}/view")).await["version"]
        .as_i64()
        .unwrap()
}

/// The server's binary, as cargo built it for the tests.
pub const BINARY: &str = env!("CARGO_BIN_EXE_kings-corner");

/// Runs `kings-corner ARGS` (give a database with `--database-url URL` before the subcommand;
/// the suite's own `DATABASE_URL` is not passed on) off the test's runtime, which may serve what
/// the command asks: whether it succeeded, and what it said on both outputs.
pub async fn kings_corner(args: Vec<String>) -> (bool, String) {
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(BINARY)
            .args(&args)
            .env("LOG_LEVEL", "warn")
            .env_remove("DATABASE_URL")
            .output()
            .expect("the binary runs")
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said)
}

/// `kings-corner backup FILE` against the database `url`: its exit status and what it said.
pub async fn backup(url: &str, target: &std::path::Path) -> (bool, String) {
    kings_corner(vec![
        "--database-url".into(),
        url.to_owned(),
        "backup".into(),
        target.display().to_string(),
    ])
    .await
}

/// `kings-corner migrate` against the database `url`: its exit status and what it said.
pub async fn migrate(url: &str) -> (bool, String) {
    kings_corner(vec![
        "--database-url".into(),
        url.to_owned(),
        "migrate".into(),
    ])
    .await
}

/// A match's view on the server at `address` (another process than `app`'s, for instance), as
/// `player` sees it; asserts that it answers.
pub async fn view_at(app: &TestApp, address: &str, player: &Player, id: &str) -> Value {
    let response = app
        .client
        .get(format!("{address}/v1/matches/{id}/view"))
        .bearer_auth(&player.token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        200,
        "the token reads the match at {address}"
    );
    response.json().await.unwrap()
}

/// The seat to move plays its first legal action on the server at `address`; asserts that it
/// is accepted.
pub async fn play_on(app: &TestApp, address: &str, players: &[Player], id: &str) {
    let turn = view_at(app, address, &players[0], id).await["turn"]
        .as_u64()
        .unwrap() as usize;
    let view = view_at(app, address, &players[turn], id).await;
    let action = view["legal_actions"][0].clone();
    let moved = app
        .client
        .post(format!("{address}/v1/matches/{id}/moves"))
        .bearer_auth(&players[turn].token)
        .json(&json!({"expected_version": view["version"], "action": action}))
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
}

/// Every seat of a started match takes one turn of its own (ending it at once), in turn order
/// from the seat to move, until each has: a rated match whose seats all did is rated however
/// it ends (docs/ratings.md, "Which ends are rated"). A turn the server ends for a seat that
/// could only end it does not count, so this goes round as often as that takes; a seat that
/// has taken its turn plays one card or move in the next (moves first: an emptied side takes
/// any card), so that a stuck seat meets a table that changed.
pub async fn every_seat_takes_a_turn<P: std::borrow::Borrow<Player>>(
    app: &TestApp,
    players: &[P],
    id: &str,
) {
    let mut took = vec![false; players.len()];
    let mut played_this_turn = None;
    for _ in 0..200 {
        if took.iter().all(|took| *took) {
            return;
        }
        let seen = app
            .json_as(players[0].borrow(), &format!("/v1/matches/{id}/view"))
            .await;
        assert_eq!(seen["status"], "playing", "{seen}");
        let seat = seen["turn"].as_u64().unwrap() as usize;
        let view = app
            .json_as(players[seat].borrow(), &format!("/v1/matches/{id}/view"))
            .await;
        let legal = view["legal_actions"].as_array().unwrap();
        let of_type = |kind: &str| legal.iter().find(|action| action["type"] == kind);
        let action = if took[seat] && played_this_turn != Some(seat) {
            played_this_turn = Some(seat);
            of_type("move").or_else(|| of_type("play"))
        } else {
            None
        };
        if action.is_none() {
            played_this_turn = None;
            if legal.len() > 1 {
                took[seat] = true;
            }
        }
        let action = action
            .or_else(|| of_type("end_turn"))
            .or_else(|| of_type("draw"))
            .unwrap_or(&legal[0]);
        let moved = app
            .post_as(
                players[seat].borrow(),
                &format!("/v1/matches/{id}/moves"),
                &json!({"expected_version": view["version"], "action": action}),
            )
            .await;
        assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    }
    panic!("the seats of {id} took no turn of their own in 200 actions: {took:?}");
}
