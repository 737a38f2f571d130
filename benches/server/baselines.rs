//! What the server's phases are measured against, each at the same concurrency and in the same
//! run: `pgbench`'s single-row insert (no HTTP), the cheapest HTTP service that writes one row
//! per request (the physical limit of an HTTP write here), a trivial actix-web read handler,
//! and single-row insert transactions on SQLite.

use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;
use sqlx::Executor;

use super::{CONCURRENCY, PHASE, per_second};

/// The row every baseline writes: about what a move's event row holds.
const ROW: &str =
    "INSERT INTO bench_insert (match_id, seq, body) VALUES ('m', 1, '{\"type\":\"turn_ended\"}')";

/// `pgbench`'s single-row insert transactions per second, `CONCURRENCY` clients on two
/// threads; `None` when `pgbench` cannot be run.
pub fn pgbench(url: &str) -> Option<f64> {
    let script = std::env::temp_dir().join("kings_corner_pgbench.sql");
    std::fs::write(&script, format!("{ROW};\n")).ok()?;
    let output = std::process::Command::new("pgbench")
        .args([
            "-n",
            "-c",
            &CONCURRENCY.to_string(),
            "-j",
            "2",
            "-T",
            &PHASE.as_secs().to_string(),
            "-f",
        ])
        .arg(&script)
        .arg(url)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let tps = text.lines().find(|line| line.starts_with("tps = "))?;
    tps.trim_start_matches("tps = ")
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Creates the table the PostgreSQL baselines write to.
pub async fn create_insert_table(db: &mut sqlx::PgConnection) {
    db.execute(
        "CREATE TABLE bench_insert (id BIGSERIAL PRIMARY KEY, match_id TEXT, seq BIGINT, body TEXT)",
    )
    .await
    .unwrap();
}

/// What a client sends the write baseline: a body of a move's shape, parsed as a move is.
#[derive(serde::Deserialize)]
struct Written {
    match_id: String,
    seq: i64,
    body: serde_json::Value,
}

/// The cheapest HTTP write: an actix-web handler, on as many workers as the server's and a
/// PostgreSQL pool of the server's size and timeout, that parses a small JSON body, inserts it
/// as one row in a transaction of its own and answers a small JSON body. Driven like the
/// moves: `CONCURRENCY` clients, each waiting for its answer before sending the next.
pub async fn http_writes(
    client: &reqwest::Client,
    url: &str,
    settings: &kings_corner::config::DatabaseSettings,
    moves_per_second: f64,
) -> f64 {
    println!("http writes: one row per request for {} s", PHASE.as_secs());
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(settings.max_connections)
        .acquire_timeout(Duration::from_secs(settings.timeout_seconds))
        .connect(url)
        .await
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let serving = pool.clone();
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(actix_web::web::Data::new(serving.clone()))
            .route(
                "/",
                actix_web::web::post().to(
                    |pool: actix_web::web::Data<sqlx::PgPool>,
                     written: actix_web::web::Json<Written>| async move {
                        sqlx::query(
                            "INSERT INTO bench_insert (match_id, seq, body) VALUES ($1, $2, $3)",
                        )
                        .bind(&written.match_id)
                        .bind(written.seq)
                        .bind(written.body.to_string())
                        .execute(pool.get_ref())
                        .await
                        .unwrap();
                        actix_web::web::Json(json!({"status": "ok", "seq": written.seq}))
                    },
                ),
            )
    })
    .workers(server_workers())
    .listen(listener)
    .unwrap()
    .run();
    let handle = server.handle();
    tokio::spawn(server);
    let url = format!("http://{address}/");
    let sender = client.clone();
    let rate = per_second(CONCURRENCY, move |client_index, done| {
        let (client, url) = (sender.clone(), url.clone());
        async move {
            let body = json!({
                "match_id": format!("m{client_index}"),
                "seq": done as i64 + 1,
                "body": {"type": "turn_ended"},
            });
            let response = client.post(&url).json(&body).send().await.unwrap();
            assert!(response.status().is_success());
            response.bytes().await.unwrap();
        }
    })
    .await;
    println!(
        "http writes: {rate:.0} requests/s at {CONCURRENCY} clients; moves reach {:.0}% of it",
        moves_per_second / rate * 100.0
    );
    // benches/cpu_split.py reads the threads' counters when that line comes: the workers and
    // the pool's database connections must still be there to be counted.
    tokio::time::sleep(Duration::from_millis(500)).await;
    handle.stop(true).await;
    pool.close().await;
    rate
}

/// As many workers as the server starts (one per core).
fn server_workers() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// A trivial actix-web handler answering a small JSON body, on as many workers as the server's;
/// its address.
pub fn trivial_reader() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let server = actix_web::HttpServer::new(|| {
        actix_web::App::new().route(
            "/",
            actix_web::web::get().to(|| async { actix_web::web::Json(json!({"status": "ok"})) }),
        )
    })
    .workers(server_workers())
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    address
}

/// A baseline for SQLite like pgbench's: `CONCURRENCY` tasks, each committing one single-row
/// insert per transaction as the server writes (`BEGIN IMMEDIATE`, WAL, `synchronous` at its
/// default FULL, the server's lock wait), over a pool as large as the server's, in a file
/// beside the server's own.
pub async fn sqlite_inserts(directory: &std::path::Path, connections: u32) -> f64 {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
    let options = SqliteConnectOptions::new()
        .filename(directory.join("bench_insert.db"))
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(Duration::from_secs(5));
    let pool = SqlitePoolOptions::new()
        .max_connections(connections)
        .connect_with(options)
        .await
        .unwrap();
    pool.execute(
        "CREATE TABLE bench_insert (id INTEGER PRIMARY KEY, match_id TEXT, seq INTEGER, body TEXT)",
    )
    .await
    .unwrap();
    let inserting = pool.clone();
    let rate = per_second(CONCURRENCY, move |_, _| {
        let pool = inserting.clone();
        async move {
            let mut transaction = pool.begin_with("BEGIN IMMEDIATE").await.unwrap();
            sqlx::query(ROW).execute(&mut *transaction).await.unwrap();
            transaction.commit().await.unwrap();
        }
    })
    .await;
    pool.close().await;
    rate
}
