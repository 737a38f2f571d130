//! Faults and hostile clients: one test per finding of the hardening review, named after it.
//! A trusted event store promises that an acknowledged write is durable, or the client was
//! told it failed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, full_match, players, spawn_app_with};

/// A small tmpfs of its own, unmounted when dropped. Mounting needs the right to (root, as CI
/// runs); without it the tests that need a full disk say so and do nothing.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount(megabytes: u32) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}M"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            eprintln!("cannot mount a tmpfs here (not root?): the full-disk test does not run");
            return None;
        }
        Some(SmallDisk { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file until the disk is full; returns it.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let filler = self.path().join("filler");
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        let _ = file.sync_all();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazily: the server under test may still hold its files open.
        let _ = Command::new("umount").arg("-l").arg(self.path()).status();
    }
}

/// Plays the seat to move's last legal action; the answer's status and the version the move
/// would make (`None` when the match had no move to make).
async fn one_move(app: &TestApp, tokens: &[String], id: &str) -> Option<(u16, i64)> {
    let view = app
        .get(&format!("/v1/matches/{id}/view"), Some(&tokens[0]))
        .await;
    let view: Value = view.json().await.ok()?;
    let turn = view["turn"].as_u64()? as usize;
    let view: Value = app
        .get(&format!("/v1/matches/{id}/view"), Some(&tokens[turn]))
        .await
        .json()
        .await
        .ok()?;
    let action = view["legal_actions"].as_array()?.last()?.clone();
    let version = view["version"].as_i64()?;
    let response = app
        .client
        .post(format!("{}/v1/matches/{id}/moves", app.address))
        .bearer_auth(&tokens[turn])
        .json(&json!({"expected_version": version, "action": action}))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    let after = response
        .json::<Value>()
        .await
        .ok()
        .and_then(|body| body["version"].as_i64());
    Some((status, after.unwrap_or(version)))
}

/// Finding 1: on SQLite, after a write fails (here: the disk under the database fills up),
/// no write may be acknowledged that is not stored. Every write answers 503 while the disk
/// is full, `/readyz` says so, and the server recovers by itself once there is room again.
#[tokio::test]
async fn finding_01_sqlite_after_a_write_error_acknowledges_nothing_it_does_not_store() {
    if std::env::var("DATABASE_URL").is_ok_and(|url| url.starts_with("postgres")) {
        return; // SQLite's own failure; PostgreSQL's outages are tested in matches.rs.
    }
    let Some(disk) = SmallDisk::mount(12) else {
        return;
    };
    let file = disk.path().join("kings-corner.db");
    let app = spawn_app_with(|settings| {
        settings.database.url = format!("sqlite://{}", file.display());
    })
    .await;
    let players = players(&app, 2).await;
    let tokens: Vec<String> = players.iter().map(|player| player.token.clone()).collect();
    let mut ids = Vec::new();
    for _ in 0..6 {
        ids.push(full_match(&app, &players, json!({"game_end": {"hands": 1000}})).await);
    }

    let filler = disk.fill();
    let mut acknowledged: Vec<(String, i64)> = Vec::new();
    let mut refused = 0;
    for _ in 0..15 {
        for id in &ids {
            if let Some((status, version)) = one_move(&app, &tokens, id).await {
                match status {
                    200 => acknowledged.push((id.clone(), version)),
                    503 => refused += 1,
                    other => panic!("a move on a full disk answered {other}"),
                }
            }
        }
        let created = app
            .post_as(&players[0], "/v1/matches", &json!({"seats": 2}))
            .await;
        assert!(
            matches!(created.status().as_u16(), 201 | 503),
            "a create on a full disk answered {}",
            created.status()
        );
    }
    assert!(refused > 0, "the full disk refused no write");
    assert_problem(app.get("/readyz", None).await, 503, "service_unavailable").await;

    std::fs::remove_file(filler).unwrap();
    let mut recovered = false;
    for _ in 0..50 {
        if let Some((200, version)) = one_move(&app, &tokens, &ids[0]).await {
            acknowledged.push((ids[0].clone(), version));
            recovered = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(recovered, "moves go through again once there is room");
    assert_eq!(app.get("/readyz", None).await.status(), 200);

    // Every acknowledged move is in the file, as a new connection (a restart) reads it.
    let mut reader = <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!(
        "sqlite://{}",
        file.display()
    ))
    .await
    .unwrap();
    for (id, version) in acknowledged {
        let stored: i64 = sqlx::query_scalar("SELECT version FROM matches WHERE id = $1")
            .bind(&id)
            .fetch_one(&mut reader)
            .await
            .unwrap();
        assert!(
            stored >= version,
            "match {id}: acknowledged {version}, stored {stored}"
        );
    }
}

/// Finding 2: a leave racing the last join never starts a match with an empty seat: the two
/// serialize, and either the leave frees the seat first or the join fills the table and the
/// leave is refused because the match has started.
#[tokio::test]
async fn finding_02_a_leave_racing_the_last_join_never_starts_a_match_with_an_empty_seat() {
    let app = spawn_app_with(|_| {}).await;
    let players = players(&app, 3).await;
    for _ in 0..12 {
        let created = app
            .post_as(&players[0], "/v1/matches", &json!({"seats": 3}))
            .await;
        let id = created.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let join = format!("/v1/matches/{id}/join");
        assert_eq!(
            app.post_as(&players[1], &join, &json!({})).await.status(),
            200
        );
        let (empty, leave) = (json!({}), format!("/v1/matches/{id}/leave"));
        let (left, joined) = tokio::join!(
            app.post_as(&players[1], &leave, &empty),
            app.post_as(&players[2], &join, &empty),
        );
        let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
        let seated = summary["seats"].as_array().unwrap().len();
        match summary["status"].as_str().unwrap() {
            "playing" => {
                assert_eq!(seated, 3, "{summary}");
                // The leave came after the start: it resigned the seat, which the turn skips.
                assert_eq!(left.status(), 204);
                assert_eq!(joined.status(), 200);
                let view = app
                    .json_as(&players[0], &format!("/v1/matches/{id}/view"))
                    .await;
                assert_eq!(view["seats"][1]["left"], "resign", "{view}");
                let turn = view["turn"].as_u64().unwrap() as usize;
                assert!(
                    turn == 0 || turn == 2,
                    "the turn is on a seat still in: {view}"
                );
            }
            "open" => {
                assert_eq!(seated, 2, "{summary}");
                assert_eq!(left.status(), 204);
                assert_eq!(joined.status(), 200);
            }
            other => panic!("status {other}: {summary}"),
        }
    }
}

/// Finding 2: a join repeated after an unclear failure gets the same success, not a conflict;
/// and the last join starts the match in the same write (its answer already shows it playing).
#[tokio::test]
async fn finding_02_a_retried_join_gets_the_same_success() {
    let app = spawn_app_with(|_| {}).await;
    let players = players(&app, 2).await;
    let created = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 2}))
        .await;
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let join = format!("/v1/matches/{id}/join");
    let first = app.post_as(&players[1], &join, &json!({})).await;
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["status"], "playing", "started by the join itself");
    let again = app.post_as(&players[1], &join, &json!({})).await;
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["seats"], first["seats"]);
    assert_eq!(again["version"], first["version"], "nothing happened twice");
}

/// Finding 3: four leaves of a five-player, six-seat match at once all succeed, and a 204
/// means the seat is free: only the creator's seat 0 stays taken.
#[tokio::test]
async fn finding_03_concurrent_leaves_all_free_their_seats() {
    let app = spawn_app_with(|_| {}).await;
    let players = players(&app, 6).await;
    for _ in 0..3 {
        let created = app
            .post_as(&players[0], "/v1/matches", &json!({"seats": 6}))
            .await;
        let id = created.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        for player in &players[1..5] {
            let joined = app
                .post_as(player, &format!("/v1/matches/{id}/join"), &json!({}))
                .await;
            assert_eq!(joined.status(), 200);
        }
        let (empty, leave) = (json!({}), format!("/v1/matches/{id}/leave"));
        let (a, b, c, d) = tokio::join!(
            app.post_as(&players[1], &leave, &empty),
            app.post_as(&players[2], &leave, &empty),
            app.post_as(&players[3], &leave, &empty),
            app.post_as(&players[4], &leave, &empty),
        );
        for left in [a, b, c, d] {
            assert_eq!(left.status(), 204, "{}", left.text().await.unwrap());
        }
        let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
        let seats: Vec<u64> = summary["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|seat| seat["seat"].as_u64().unwrap())
            .collect();
        assert_eq!(seats, [0], "{summary}");
        assert_eq!(summary["status"], "open");
    }
}

/// Finding 13: the creator joining their own private match again, without its code, is told
/// they are seated (the summary with their seat), not that the match does not exist.
#[tokio::test]
async fn finding_13_the_creator_rejoining_a_private_match_is_seated_already() {
    let app = spawn_app_with(|_| {}).await;
    let players = players(&app, 1).await;
    let created = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let created: Value = created.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let again = app
        .post_as(&players[0], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["seats"], created["seats"]);
    assert_eq!(again["invite_code"], created["invite_code"]);
}

/// Writes a move to the log directly, as another process would, without announcing it: the
/// notification of that move is lost.
async fn append_unannounced(app: &TestApp, id: &str) -> i64 {
    use kings_corner::model::MatchStatus;
    use kings_corner::store::StoredEvent;
    use kings_corner::store::append::{Append, ReadModel};
    let version = app.db.match_by_id(id).await.unwrap().unwrap().version;
    let append = Append {
        match_id: id.to_owned(),
        expected_version: version,
        events: vec![StoredEvent {
            seq: version + 1,
            event: r#"{"type":"turn_started","seat":1}"#.to_owned(),
            hash: "00".repeat(32),
            at: 1,
        }],
        model: ReadModel {
            status: MatchStatus::Playing,
            turn_seat: Some(1),
            turn_changed: true,
            bot_turn: false,
            winners: None,
            deadline: None,
            remind_at: None,
            outcome: None,
            final_totals: None,
        },
        kept: None,
        ratings: None,
        notifications: Vec::new(),
        now: 1,
    };
    assert!(app.db.append_events(append).await.unwrap());
    version + 1
}

/// Finding 4: a long-poll or a stream whose notification is lost still catches up from the
/// database, within the bound docs/operations.md states (2 seconds), not at the end of its wait.
#[tokio::test]
async fn finding_04_live_feeds_catch_up_with_a_lost_notification() {
    let app = spawn_app_with(|_| {}).await;
    let (players, id) = crate::helpers::standard_match(&app).await;
    let version = app.db.match_by_id(&id).await.unwrap().unwrap().version;

    let started = std::time::Instant::now();
    let path = format!("/v1/matches/{id}/events?after={version}&wait=30");
    let waiting = app.get_as(&players[0], &path);
    let writer = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        append_unannounced(&app, &id).await
    };
    let (page, written) = tokio::join!(waiting, writer);
    let page: Value = page.json().await.unwrap();
    let waited = started.elapsed();
    assert_eq!(page["events"][0]["seq"], written, "{page}");
    assert!(
        waited < std::time::Duration::from_secs(4),
        "the long-poll waited {waited:?} for a move made 0.3 s in"
    );

    let mut stream = app
        .client
        .get(format!("{}/v1/matches/{id}/stream", app.address))
        .bearer_auth(&players[0].token)
        .header("Last-Event-ID", written.to_string())
        .send()
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let again = append_unannounced(&app, &id).await;
    let chunk = tokio::time::timeout(std::time::Duration::from_secs(4), stream.chunk())
        .await
        .expect("the stream catches up within the bound")
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&chunk);
    assert!(text.contains(&format!("id: {again}")), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
}

/// A TCP relay to PostgreSQL that can freeze: while frozen it forwards nothing either way, as a
/// database server stopped by SIGSTOP would answer nothing.
struct FreezableRelay {
    address: std::net::SocketAddr,
    frozen: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl FreezableRelay {
    async fn start(target: String) -> FreezableRelay {
        use std::sync::atomic::{AtomicBool, Ordering};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let frozen = std::sync::Arc::new(AtomicBool::new(false));
        let relay_frozen = frozen.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = tokio::net::TcpStream::connect(&target).await else {
                    continue;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                for (mut from, mut to) in [
                    (
                        Box::new(client_read) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
                        Box::new(server_write) as Box<dyn tokio::io::AsyncWrite + Unpin + Send>,
                    ),
                    (Box::new(server_read), Box::new(client_write)),
                ] {
                    let frozen = relay_frozen.clone();
                    tokio::spawn(async move {
                        let mut buffer = vec![0u8; 16 * 1024];
                        while let Ok(read) = from.read(&mut buffer).await {
                            if read == 0 {
                                break;
                            }
                            while frozen.load(Ordering::SeqCst) {
                                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                            }
                            if to.write_all(&buffer[..read]).await.is_err() {
                                break;
                            }
                        }
                    });
                }
            }
        });
        FreezableRelay { address, frozen }
    }

    fn freeze(&self, frozen: bool) {
        self.frozen
            .store(frozen, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Finding 5: a query in flight does not hang as long as the database does. With the
/// database frozen (PostgreSQL behind a relay that stops forwarding; SQLite with its write
/// lock held elsewhere), `/readyz` answers 503 within about a second and a request that needs
/// the database answers 503 within the statement timeout; both recover when it thaws.
#[tokio::test]
async fn finding_05_database_timeouts_cover_queries_in_flight() {
    let second = std::time::Duration::from_secs(1);
    let relay = match std::env::var("DATABASE_URL") {
        Ok(url) if url.starts_with("postgres") => {
            let host = url
                .split('@')
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .unwrap()
                .to_owned();
            Some((FreezableRelay::start(host.clone()).await, host))
        }
        _ => None,
    };
    let app = spawn_app_with(|settings| {
        settings.database.statement_timeout_seconds = 1;
        settings.database.timeout_seconds = 1;
        if let Some((relay, host)) = &relay {
            settings.database.url = settings
                .database
                .url
                .replace(host.as_str(), &relay.address.to_string());
        }
    })
    .await;
    let (players, id) = crate::helpers::standard_match(&app).await;
    let (turn, view) = crate::helpers::view_of_turn(&app, &players, &id).await;

    // Freeze.
    let mut holder = None;
    match &relay {
        Some((relay, _)) => relay.freeze(true),
        None => {
            let url = app.settings.database.url.clone();
            let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
                .await
                .unwrap();
            sqlx::query("BEGIN IMMEDIATE")
                .execute(&mut connection)
                .await
                .unwrap();
            holder = Some(connection);
        }
    }
    let started = std::time::Instant::now();
    assert_problem(app.get("/readyz", None).await, 503, "service_unavailable").await;
    assert!(
        started.elapsed() < 2 * second,
        "/readyz took {:?}",
        started.elapsed()
    );

    let started = std::time::Instant::now();
    let moved = app
        .post_as(
            &players[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_eq!(moved.status(), 503, "{}", moved.text().await.unwrap());
    assert!(
        started.elapsed() < 4 * second,
        "a move waited {:?} for a frozen database",
        started.elapsed()
    );

    // Thaw.
    match &relay {
        Some((relay, _)) => relay.freeze(false),
        None => drop(holder.take()),
    }
    let mut ready = false;
    for _ in 0..50 {
        if app.get("/readyz", None).await.status() == 200 {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(ready, "ready again once the database answers");
    let summary = app.get_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary.status(), 200);
}

/// The server binary as its own process, on a SQLite file of its own; killed when dropped.
pub struct ServerProcess {
    pub child: std::process::Child,
    pub address: String,
    pub _dir: tempfile::TempDir,
}

impl ServerProcess {
    /// Starts `kings-corner` through `wrapper` (e.g. `prlimit …`) with extra environment.
    pub async fn start(wrapper: &[&str], environment: &[(&str, &str)]) -> ServerProcess {
        ServerProcess::start_in(tempfile::tempdir().unwrap(), wrapper, environment).await
    }

    /// Stops the server (as a crash would: SIGKILL); the directory of its database.
    pub fn stop(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::mem::replace(&mut self._dir, tempfile::tempdir().unwrap())
    }

    /// Starts `kings-corner` on the database in `dir`, as [`ServerProcess::start`] does.
    pub async fn start_in(
        dir: tempfile::TempDir,
        wrapper: &[&str],
        environment: &[(&str, &str)],
    ) -> ServerProcess {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let binary = env!("CARGO_BIN_EXE_kings-corner");
        let mut command = Command::new(wrapper.first().copied().unwrap_or(binary));
        command.args(wrapper.iter().skip(1));
        if !wrapper.is_empty() {
            command.arg(binary);
        }
        command
            .env(
                "DATABASE_URL",
                format!("sqlite://{}/kc.db", dir.path().display()),
            )
            .env("BIND_ADDRESS", format!("127.0.0.1:{port}"))
            .env("LOG_LEVEL", "error")
            .env("LOGIN_ATTEMPTS_PER_MINUTE", "1000");
        for (name, value) in environment {
            command.env(name, value);
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.path().join("server.log"))
            .unwrap();
        let child = command.stderr(log).spawn().unwrap();
        let address = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        for _ in 0..100 {
            if client
                .get(format!("{address}/healthz"))
                .send()
                .await
                .is_ok()
            {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        ServerProcess {
            child,
            address,
            _dir: dir,
        }
    }

    /// Registers and logs in a player; their access token.
    pub async fn player(&self, client: &reqwest::Client, name: &str) -> String {
        let credentials = json!({"username": name, "password": "correct horse"});
        client
            .post(format!("{}/v1/accounts", self.address))
            .json(&credentials)
            .send()
            .await
            .unwrap();
        crate::helpers::json_of(
            client
                .post(format!("{}/v1/auth/login", self.address))
                .json(&credentials),
        )
        .await["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

impl ServerProcess {
    /// What the server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("server.log")).unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Finding 6: with a low open-files limit (300 here, as a default of 1,024 is to 1,500 waiting
/// clients), many long-polls cannot stop the server: past its cap they answer 503 with
/// `Retry-After`, and moves keep flowing while they wait.
#[tokio::test]
async fn finding_06_many_long_polls_under_a_low_open_files_limit_leave_moves_flowing() {
    let server = ServerProcess::start(&["prlimit", "--nofile=300:300"], &[]).await;
    let client = reqwest::Client::new();
    let tokens = [
        server.player(&client, "maya").await,
        server.player(&client, "leo").await,
    ];
    let created = crate::helpers::json_of(
        client
            .post(format!("{}/v1/matches", server.address))
            .bearer_auth(&tokens[0])
            .json(&json!({"seats": 2})),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    client
        .post(format!("{}/v1/matches/{id}/join", server.address))
        .bearer_auth(&tokens[1])
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let view = crate::helpers::json_of(
        client
            .get(format!("{}/v1/matches/{id}/view", server.address))
            .bearer_auth(&tokens[0]),
    )
    .await;
    let version = view["version"].as_i64().unwrap();
    let turn = view["turn"].as_u64().unwrap() as usize;

    // 400 long-polls, each on a connection of its own, waiting 20 seconds for a move.
    let mut waiting = tokio::task::JoinSet::new();
    for _ in 0..400 {
        let request = reqwest::Client::new()
            .get(format!(
                "{}/v1/matches/{id}/events?after={version}&wait=20",
                server.address
            ))
            .bearer_auth(&tokens[0]);
        waiting.spawn(async move {
            let response = request.send().await.ok()?;
            let retry_after = response.headers().get("retry-after").is_some();
            Some((response.status().as_u16(), retry_after))
        });
    }
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let started = std::time::Instant::now();
    let moved = client
        .post(format!("{}/v1/matches/{id}/moves", server.address))
        .bearer_auth(&tokens[turn])
        .json(&json!({"expected_version": version, "action": {"type": "end_turn"}}))
        .timeout(std::time::Duration::from_secs(10))
        .send()
        .await
        .expect("the move is answered while 400 long-polls wait");
    assert_eq!(moved.status(), 200);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let outcomes: Vec<_> = waiting.join_all().await.into_iter().flatten().collect();
    let answered = outcomes.iter().filter(|(status, _)| *status == 200).count();
    let turned_away = outcomes
        .iter()
        .filter(|(status, retry_after)| *status == 503 && *retry_after)
        .count();
    let others: Vec<_> = outcomes
        .iter()
        .filter(|(status, _)| !matches!(status, 200 | 503))
        .collect();
    assert_eq!(
        answered + turned_away,
        400,
        "every long-poll answered 200, or 503 with Retry-After; not {others:?}"
    );
    assert!(turned_away > 0, "past the cap, 503 with Retry-After");
    assert!(answered > 100, "the long-polls under the cap saw the move");
}

/// Finding 7: a SQLite `-wal` file the server cannot write stops it at start with a sentence
/// naming the file. (It was the `-shm` file, which the server no longer uses: see Hardening II,
/// finding 11. Making the file immutable needs root, as CI runs; elsewhere the test says so and
/// does nothing.)
#[tokio::test]
async fn finding_07_an_unwritable_wal_file_stops_the_server_at_start_with_a_sentence() {
    let server = ServerProcess::start(&[], &[]).await;
    let dir = server._dir.path().to_owned();
    let wal = dir.join("kc.db-wal");
    let port = server.address.rsplit(':').next().unwrap().to_owned();
    // Killed, as a crash would leave it: the -wal file stays.
    let mut server = server;
    let _ = server.child.kill();
    let _ = server.child.wait();
    assert!(wal.exists(), "WAL mode keeps a -wal file");
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(&wal)
        .status()
        .is_ok_and(|status| status.success());
    if !immutable {
        eprintln!("cannot make a file immutable here (not root?): the -wal test does not run");
        return;
    }
    let mut restarted = Command::new(env!("CARGO_BIN_EXE_kings-corner"))
        .env("DATABASE_URL", format!("sqlite://{}/kc.db", dir.display()))
        .env("BIND_ADDRESS", format!("127.0.0.1:{port}"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stopped = None;
    for _ in 0..300 {
        stopped = restarted.try_wait().unwrap();
        if stopped.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let _ = restarted.kill();
    let output = restarted.wait_with_output().unwrap();
    let _ = Command::new("chattr").arg("-i").arg(&wal).status();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let status = stopped.expect("the server stops at once");
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("kc.db-wal") && stderr.contains("cannot be written"),
        "{stderr}"
    );
}

/// Finding 8: registration costs a password hash, so it is limited per client address as
/// logins are (hashes themselves run a few at a time in reused memory: `cargo bench --bench
/// passwords` measures the peak under a burst).
#[tokio::test]
async fn finding_08_registrations_are_rate_limited_per_address() {
    let app = spawn_app_with(|settings| settings.registrations_per_minute = 3).await;
    for index in 0..3 {
        let registered = app
            .post(
                "/v1/accounts",
                &json!({"username": format!("player{index}"), "password": "correct horse"}),
            )
            .await;
        assert_eq!(registered.status(), 201);
    }
    let refused = app
        .post(
            "/v1/accounts",
            &json!({"username": "player9", "password": "correct horse"}),
        )
        .await;
    assert!(refused.headers().get("retry-after").is_some());
    assert_problem(refused, 429, "rate_limited").await;
    let login = app
        .post(
            "/v1/auth/login",
            &json!({"username": "player0", "password": "correct horse"}),
        )
        .await;
    assert_eq!(login.status(), 200, "logins have their own limit");
}

/// Finding 9: a valid token for an account that no longer exists answers 401
/// `account_not_found` (it gave 500 on create and join); `DELETE /v1/me`, confirmed with the
/// password, deletes an account: its matches keep their history under a tombstone name, its
/// seats in matches not yet started are freed, and every token it had stops working.
#[tokio::test]
async fn finding_09_tokens_of_accounts_that_no_longer_exist_are_refused() {
    let app = spawn_app_with(|_| {}).await;
    // An account removed from under its token.
    let ghost = app.register("ghost", "correct horse").await;
    let token = app.login("ghost", "correct horse").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    sqlx::query("DELETE FROM accounts WHERE id = $1")
        .bind(ghost["id"].as_str().unwrap())
        .execute(app.sql())
        .await
        .unwrap();
    let created = app
        .client
        .post(format!("{}/v1/matches", app.address))
        .bearer_auth(&token)
        .json(&json!({"seats": 2}))
        .send()
        .await
        .unwrap();
    assert_problem(created, 401, "account_not_found").await;

    // An account deleted through the API.
    let (players, id) = crate::helpers::standard_match(&app).await;
    let open = app
        .post_as(&players[1], "/v1/matches", &json!({"seats": 3}))
        .await;
    let open = open.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let tokens = app.login("player1", "correct horse").await;
    let delete = |password: &str| {
        app.client
            .delete(format!("{}/v1/me", app.address))
            .bearer_auth(&players[1].token)
            .json(&json!({"password": password}))
            .send()
    };
    assert_problem(delete("wrong horse").await.unwrap(), 403, "wrong_password").await;
    assert_eq!(delete("correct horse").await.unwrap().status(), 204);

    for path in ["/v1/me", &format!("/v1/matches/{id}/view")] {
        assert_problem(
            app.get_as(&players[1], path).await,
            401,
            "account_not_found",
        )
        .await;
    }
    let joined = app
        .post_as(&players[1], &format!("/v1/matches/{open}/join"), &json!({}))
        .await;
    assert_problem(joined, 401, "account_not_found").await;
    let refreshed = app
        .post(
            "/v1/auth/refresh",
            &json!({"refresh_token": tokens["refresh_token"]}),
        )
        .await;
    assert_problem(refreshed, 401, "invalid_refresh_token").await;
    let login = app
        .post(
            "/v1/auth/login",
            &json!({"username": "player1", "password": "correct horse"}),
        )
        .await;
    assert_problem(login, 401, "invalid_credentials").await;

    // The match played keeps its history under the tombstone; the open one lost its player
    // and with it its last seat.
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    let names: Vec<&str> = summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["player0", "[deleted]"]);
    let gone = app
        .get_as(&players[0], &format!("/v1/matches/{open}"))
        .await;
    assert_problem(gone, 404, "not_found").await;
    // The name is free again.
    app.register("player1", "another horse").await;
}

/// Sends `method path` with a raw body and content type, as the player.
async fn raw(
    app: &TestApp,
    token: &str,
    method: reqwest::Method,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> reqwest::Response {
    let mut request = app
        .client
        .request(method, format!("{}{path}", app.address))
        .bearer_auth(token)
        .body(body.to_owned());
    if let Some(content_type) = content_type {
        request = request.header("content-type", content_type);
    }
    request.send().await.unwrap()
}

/// Finding 10: malformed query parameters answer 400 problem+json (they answered 400
/// `text/plain`), out-of-range ones 422, and the OpenAPI description documents both, with the
/// 415 of bodies.
#[tokio::test]
async fn finding_10_malformed_query_parameters_are_problems() {
    let app = spawn_app_with(|_| {}).await;
    let (players, id) = crate::helpers::standard_match(&app).await;
    for path in [
        "/v1/matches?limit=1e9".to_owned(),
        "/v1/matches?limit=abc".to_owned(),
        "/v1/matches?mine=perhaps".to_owned(),
        format!("/v1/matches/{id}/events?wait=-1"),
        format!("/v1/matches/{id}/events?after=abc"),
        format!("/v1/matches/{id}/replay"),
        format!("/v1/matches/{id}/replay?at=x"),
    ] {
        let body =
            assert_problem(app.get_as(&players[0], &path).await, 400, "malformed_query").await;
        assert!(
            body["detail"].as_str().unwrap().contains("query"),
            "{path}: {body}"
        );
    }
    let out_of_range = app.get_as(&players[0], "/v1/matches?limit=1000").await;
    assert_problem(out_of_range, 422, "invalid_query").await;

    let api: Value = serde_json::from_str(&kings_corner::http::openapi_json()).unwrap();
    let responses = |method: &str, path: &str| api["paths"][path][method]["responses"].clone();
    assert!(responses("get", "/v1/matches")["400"].is_object());
    assert!(responses("get", "/v1/matches/{id}/replay")["400"].is_object());
    assert!(responses("post", "/v1/matches")["415"].is_object());
    assert!(api["info"]["description"].as_str().unwrap().contains("405"));
}

/// Finding 11: bodies are read strictly: `join` refuses a broken or non-JSON body instead of
/// seating the caller, an action refuses unknown fields whatever its kind, a JSON array is not
/// an object, and `OptionInfo.default` is documented as any JSON value.
#[tokio::test]
async fn finding_11_bodies_of_the_wrong_shape_are_refused() {
    let app = spawn_app_with(|_| {}).await;
    let players = players(&app, 2).await;
    let created = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 2}))
        .await;
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let join = format!("/v1/matches/{id}/join");
    let token = &players[1].token;
    let post = reqwest::Method::POST;
    let refused = [
        ("application/json", "{", 400, "malformed_json"),
        ("text/plain", "seat me", 415, "unsupported_media_type"),
        ("application/json", "[]", 422, "invalid_body"),
    ];
    for (content_type, body, status, code) in refused {
        let response = raw(&app, token, post.clone(), &join, Some(content_type), body).await;
        assert_problem(response, status, code).await;
    }
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(
        summary["seats"].as_array().unwrap().len(),
        1,
        "nobody was seated"
    );
    // An empty body is still a join without a seed.
    let empty = raw(&app, token, post.clone(), &join, None, "").await;
    assert_eq!(empty.status(), 200);

    let (turn, view) = crate::helpers::view_of_turn(&app, &players, &id).await;
    let moved = app
        .post_as(
            &players[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "end_turn", "cards": 3}}),
        )
        .await;
    assert_problem(moved, 422, "invalid_body").await;

    for path in ["/v1/accounts", "/v1/auth/login", "/v1/matches"] {
        let array = raw(
            &app,
            token,
            post.clone(),
            path,
            Some("application/json"),
            "[null, null]",
        )
        .await;
        assert_problem(array, 422, "invalid_body").await;
    }
    let mine = app.json_as(&players[1], "/v1/matches?mine=true").await;
    assert_eq!(
        mine["matches"].as_array().unwrap().len(),
        1,
        "[null, null] created nothing"
    );

    let api: Value = serde_json::from_str(&kings_corner::http::openapi_json()).unwrap();
    let default = &api["components"]["schemas"]["OptionInfo"]["properties"]["default"];
    assert!(default.get("type").is_none(), "any JSON value: {default}");
}

/// Finding 12: a path used with a method it does not take answers 405 with `Allow` (it
/// answered 404), as a problem; an unknown path 404.
#[tokio::test]
async fn finding_12_a_wrong_method_answers_405_with_allow() {
    let app = spawn_app_with(|_| {}).await;
    let (players, id) = crate::helpers::standard_match(&app).await;
    let token = &players[0].token;
    for (method, path, allow) in [
        (
            reqwest::Method::DELETE,
            "/v1/matches".to_owned(),
            "GET, POST",
        ),
        (
            reqwest::Method::PUT,
            format!("/v1/matches/{id}/moves"),
            "POST",
        ),
        (
            reqwest::Method::POST,
            format!("/v1/matches/{id}/view"),
            "GET",
        ),
        (reqwest::Method::PATCH, "/v1/me".to_owned(), "GET, DELETE"),
    ] {
        let response = raw(&app, token, method.clone(), &path, None, "").await;
        assert_eq!(
            response.headers()["allow"].to_str().unwrap(),
            allow,
            "{method} {path}"
        );
        assert_problem(response, 405, "method_not_allowed").await;
    }
    let nowhere = raw(&app, token, reqwest::Method::GET, "/v1/nowhere", None, "").await;
    assert_problem(nowhere, 404, "not_found").await;
}

/// Finding 16: the SQLite file holding the signing keys is its owner's only (0600), and with a
/// key encryption key the keys are stored sealed: a server without that key (or with another)
/// stops at start with a sentence; keys stored in the clear before are sealed when a key is
/// given, and the tokens signed with them stay valid.
#[tokio::test]
async fn finding_16_signing_keys_are_private_and_can_be_sealed() {
    use std::os::unix::fs::PermissionsExt;
    let kek = "an operator's key encryption key, 32 bytes or more";
    // First without a key encryption key: a token signed with a key stored in the clear.
    let app = spawn_app_with(|_| {}).await;
    if let Some(file) = app.settings.database.url.strip_prefix("sqlite://") {
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{file}");
    }
    app.register("maya", "correct horse").await;
    let token = app.login("maya", "correct horse").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let stored = || async {
        sqlx::query_scalar::<_, String>("SELECT secret FROM signing_keys")
            .fetch_one(app.sql())
            .await
            .unwrap()
    };
    assert!(!stored().await.starts_with("sealed:"));

    // Another process with a key encryption key seals the stored key; the old token still works.
    let mut sealed = app.settings.clone();
    sealed.key_encryption_key = Some(kek.to_owned());
    let (_, second) = crate::helpers::start(sealed.clone()).await;
    assert!(stored().await.starts_with("sealed:v1:"));
    let me = app
        .client
        .get(format!("{second}/v1/me"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);

    // Without the key, or with another, the server does not start, and says why.
    for (key, says) in [
        (None, "sealed: set KEY_ENCRYPTION_KEY"),
        (
            Some("another key encryption key, also 32 bytes long"),
            "does not open",
        ),
    ] {
        let mut settings = app.settings.clone();
        settings.key_encryption_key = key.map(str::to_owned);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let refused =
            kings_corner::startup::Application::build_with_listener(settings, listener).await;
        let error = format!("{:#}", refused.err().expect("refused to start"));
        assert!(error.contains(says), "{error}");
    }
}

/// Finding 14: the request log records the TCP peer, and takes a forwarded client address only
/// from a configured proxy (it took `X-Forwarded-For` from anyone and never logged the peer).
#[tokio::test]
async fn finding_14_the_request_log_records_the_peer_and_trusts_only_configured_proxies() {
    let quiet = [("LOG_FORMAT", "json"), ("LOG_LEVEL", "kings_corner=debug")];
    let forged = |server: &ServerProcess| {
        reqwest::Client::new()
            .get(format!("{}/healthz", server.address))
            .header("x-forwarded-for", "6.6.6.6")
            .send()
    };
    let server = ServerProcess::start(&[], &quiet).await;
    forged(&server).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = server.log();
    assert!(log.contains(r#""peer":"127.0.0.1""#), "{log}");
    assert!(log.contains(r#""client":"127.0.0.1""#), "{log}");
    assert!(
        !log.contains("6.6.6.6"),
        "a forged address was believed: {log}"
    );

    let trusting = [quiet[0], quiet[1], ("TRUSTED_PROXIES", "127.0.0.1")];
    let server = ServerProcess::start(&[], &trusting).await;
    forged(&server).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = server.log();
    assert!(log.contains(r#""peer":"127.0.0.1""#), "{log}");
    assert!(log.contains(r#""client":"6.6.6.6""#), "{log}");
}

/// Finding 15: token answers are never cached (`Cache-Control: no-store`), every answer says
/// `X-Content-Type-Options: nosniff`, and the Swagger UI pages carry a content security policy
/// and refuse to be framed.
#[tokio::test]
async fn finding_15_security_headers() {
    let app = spawn_app_with(|_| {}).await;
    app.register("maya", "correct horse").await;
    let login = app
        .post(
            "/v1/auth/login",
            &json!({"username": "maya", "password": "correct horse"}),
        )
        .await;
    assert_eq!(login.headers()["cache-control"], "no-store");
    let tokens: Value = login.json().await.unwrap();
    let refreshed = app
        .post(
            "/v1/auth/refresh",
            &json!({"refresh_token": tokens["refresh_token"]}),
        )
        .await;
    assert_eq!(refreshed.status(), 200);
    assert_eq!(refreshed.headers()["cache-control"], "no-store");
    for path in ["/healthz", "/v1/rules", "/v1/me", "/nowhere", "/docs/"] {
        let response = app.get(path, None).await;
        assert_eq!(
            response.headers()["x-content-type-options"],
            "nosniff",
            "{path}"
        );
    }
    let docs = app.get("/docs/", None).await;
    assert_eq!(docs.headers()["x-frame-options"], "DENY");
    let policy = docs.headers()["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"));
}

/// Finding 17: a 500 is logged once, with its cause chain and without a backtrace (even with
/// RUST_BACKTRACE=1); a 503 is a warning with its cause, never an error.
#[tokio::test]
async fn finding_17_server_errors_are_logged_once_without_backtraces_and_503s_as_warnings() {
    let environment = [
        ("LOG_FORMAT", "json"),
        ("LOG_LEVEL", "info"),
        ("RUST_BACKTRACE", "1"),
        ("STATEMENT_TIMEOUT_SECONDS", "1"),
    ];
    let server = ServerProcess::start(&[], &environment).await;
    let client = reqwest::Client::new();
    let token = server.player(&client, "maya").await;
    let created = crate::helpers::json_of(
        client
            .post(format!("{}/v1/matches", server.address))
            .bearer_auth(&token)
            .json(&json!({"seats": 2})),
    )
    .await;
    let id = created["id"].as_str().unwrap();

    // A 500: a stored row the server cannot read back. The file is the server's alone while it
    // runs (Hardening II, finding 11), so it is broken while the server is stopped.
    let dir = server.stop();
    let file = dir.path().join("kc.db");
    let mut database = <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!(
        "sqlite://{}",
        file.display()
    ))
    .await
    .unwrap();
    sqlx::query("UPDATE matches SET rules = 'not rules' WHERE id = $1")
        .bind(id)
        .execute(&mut database)
        .await
        .unwrap();
    sqlx::Connection::close(database).await.unwrap();
    std::fs::write(dir.path().join("server.log"), b"").unwrap();
    let server = ServerProcess::start_in(dir, &[], &environment).await;
    let broken = client
        .get(format!("{}/v1/matches/{id}", server.address))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(broken.status(), 500);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = server.log();
    assert!(log.contains("rules"), "the cause is logged: {log}");
    assert!(!log.to_lowercase().contains("backtrace"), "{log}");
    let errors = log
        .lines()
        .filter(|line| line.contains(r#""level":"ERROR""#))
        .count();
    assert_eq!(
        errors, 2,
        "the cause where it happened, the answer in the request log: {log}"
    );

    // A 503: the database cannot be written (an immutable -wal file; root only).
    let wal = server._dir.path().join("kc.db-wal");
    let immutable = |flag: &str| {
        Command::new("chattr")
            .arg(flag)
            .arg(&wal)
            .status()
            .is_ok_and(|status| status.success())
    };
    if !immutable("+i") {
        eprintln!("cannot make a file immutable here (not root?): the 503 part does not run");
        return;
    }
    let busy = client
        .post(format!("{}/v1/matches", server.address))
        .bearer_auth(&token)
        .json(&json!({"seats": 2}))
        .send()
        .await
        .unwrap();
    immutable("-i");
    assert_eq!(busy.status(), 503);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = server.log();
    let after: Vec<&str> = log
        .lines()
        .skip_while(|line| !line.contains("500"))
        .collect();
    assert!(
        log.lines()
            .filter(|line| line.contains(r#""level":"ERROR""#))
            .count()
            == errors,
        "no new error for a 503: {after:?}"
    );
    assert!(log.contains(r#""level":"WARN""#), "{log}");
}
