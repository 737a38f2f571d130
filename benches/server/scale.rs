//! The bench's phases of cost as the work grows (issue 19 step 5): moves while 10,000 matches
//! are played at once, and moves while 10,000 Server-Sent-Event streams are held.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{CONCURRENCY, Moves, Table, login, metrics, moves_phase, open_table, view};

/// How many matches are played at once in the many-matches phase, and how many streams are
/// held in the streams phase.
pub const MANY: usize = 10_000;

/// `count` two-seat matches over `CONCURRENCY` pairs of players (a player sits at many
/// tables, as on a correspondence server), opened `CONCURRENCY` at a time.
pub async fn seat_many(client: &reqwest::Client, base: &str, count: usize) -> Vec<Table> {
    let tasks: Vec<_> = (0..CONCURRENCY)
        .map(|pair| {
            let (client, base) = (client.clone(), base.to_owned());
            tokio::spawn(async move {
                let host = login(&client, &base, &format!("manyhost{pair}")).await;
                let guest = login(&client, &base, &format!("manyguest{pair}")).await;
                let mut tables = Vec::new();
                for _ in (pair..count).step_by(CONCURRENCY) {
                    tables.push(open_table(&client, &base, host.clone(), guest.clone()).await);
                }
                tables
            })
        })
        .collect();
    let mut tables = Vec::new();
    for task in tasks {
        tables.extend(task.await.unwrap());
    }
    tables
}

/// A server process of its own (the built binary) on the bench's database, so that its
/// resident memory is the server's alone; stopped when dropped.
struct Process {
    child: Child,
    base: String,
    address: String,
}

impl Process {
    async fn start(database_url: &str) -> Process {
        let address = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().to_string()
        };
        let mut command = Command::new(env!("CARGO_BIN_EXE_kings-corner"));
        // SAFETY: the hook only calls prctl(2), which is async-signal-safe. It stops the
        // server should the bench die without dropping it (a panic in another task).
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = command
            .env("DATABASE_URL", database_url)
            .env("BIND_ADDRESS", &address)
            .env("LOG_LEVEL", "error")
            .env("DATABASE_MAX_CONNECTIONS", "32")
            .env("MAX_HELD_CONNECTIONS", (MANY + 1000).to_string())
            .stdout(Stdio::null())
            .spawn()
            .expect("the server binary starts");
        let process = Process {
            child,
            base: format!("http://{address}"),
            address,
        };
        let client = reqwest::Client::new();
        let give_up = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = client
                .get(format!("{}/readyz", process.base))
                .send()
                .await
                .is_ok_and(|response| response.status() == 200);
            if ready {
                return process;
            }
            assert!(
                Instant::now() < give_up,
                "the server process never got ready"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Its resident set, in MB.
    fn resident_mb(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let kilobytes: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0.0);
        kilobytes / 1024.0
    }

    /// The connections it holds open, from its metrics.
    async fn held(&self, client: &reqwest::Client) -> f64 {
        metrics(client, &self.base)
            .await
            .lines()
            .find_map(|line| line.strip_prefix("kings_corner_held_connections "))
            .and_then(|value| value.parse().ok())
            .unwrap_or(0.0)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Opens the match's event stream after `after` as a spectator, checks that it answers 200,
/// and reads (and drops) what it sends until aborted, as a client following the match does.
async fn follow(address: String, id: String, after: i64) -> tokio::task::JoinHandle<()> {
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "GET /v1/matches/{id}/stream?after={after} HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await.unwrap();
        assert!(read > 0, "the stream closed before its head");
        head.extend_from_slice(&buffer[..read]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    tokio::spawn(async move {
        let mut buffer = vec![0u8; 4096];
        while stream.read(&mut buffer).await.is_ok_and(|read| read > 0) {}
    })
}

/// Moves on the `moving` tables through a server process of its own, first alone, then while
/// `MANY` streams are held: one on each moving match (read as it goes) and the rest on the
/// `idle` ones. Prints the process's memory growth and the two p99s.
pub async fn held_streams(
    client: &reqwest::Client,
    database_url: &str,
    moving: &[Table],
    idle: &[Table],
) {
    let process = Process::start(database_url).await;
    let alone = moves_phase(
        client,
        &process.base,
        None,
        moving.to_vec(),
        "streams: moves, none held",
    )
    .await;
    let before = process.resident_mb();
    let mut targets = Vec::new();
    for table in moving {
        targets.push((
            table.id.clone(),
            view(client, &process.base, table, 0).await.version,
        ));
    }
    targets.extend(
        idle.iter()
            .take(MANY - moving.len())
            .map(|table| (table.id.clone(), 0)),
    );
    let started = Instant::now();
    let targets = Arc::new(targets);
    let openers: Vec<_> = (0..CONCURRENCY)
        .map(|opener| {
            let (targets, address) = (targets.clone(), process.address.clone());
            tokio::spawn(async move {
                let mut readers = Vec::new();
                for (id, after) in targets.iter().skip(opener).step_by(CONCURRENCY) {
                    readers.push(follow(address.clone(), id.clone(), *after).await);
                }
                readers
            })
        })
        .collect();
    let mut readers = Vec::new();
    for opener in openers {
        readers.extend(opener.await.unwrap());
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let held = process.held(client).await;
    let opened = process.resident_mb();
    println!(
        "streams: {} opened in {:.1} s, {held:.0} held by the server; its resident set {before:.0} MB before, {opened:.0} MB after: {:.0} MB more",
        readers.len(),
        started.elapsed().as_secs_f64(),
        opened - before
    );
    let with: Moves = moves_phase(
        client,
        &process.base,
        None,
        moving.to_vec(),
        "streams: moves, all held",
    )
    .await;
    println!(
        "streams: move p99 {:.1} ms with {held:.0} streams held, {:.1} ms without: {:.2}x; moves/s {:.0} against {:.0}; resident set after the moves {:.0} MB",
        with.p99_ms,
        alone.p99_ms,
        with.p99_ms / alone.p99_ms,
        with.per_second,
        alone.per_second,
        process.resident_mb()
    );
    for reader in readers {
        reader.abort();
    }
}
