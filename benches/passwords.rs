//! Memory under a burst of password hashing (issue 12, finding 8): the server binary in its own
//! process on a fresh SQLite file takes 200 registrations at once, then 200 logins at once; its
//! peak resident set (`VmHWM`) and what it holds afterwards (`VmRSS`) are printed. Target: peak
//! under 200 MB.
//!
//! `cargo bench --bench passwords`; `KINGS_CORNER_BINARY=path` measures another build.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::json;

const BURST: usize = 200;

/// A `/proc/PID/status` figure in MB.
fn status_mb(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kilobytes| kilobytes / 1024.0)
}

async fn burst(client: &reqwest::Client, url: String, bodies: Vec<serde_json::Value>) -> usize {
    let mut requests = tokio::task::JoinSet::new();
    for body in bodies {
        let (client, url) = (client.clone(), url.clone());
        requests.spawn(async move {
            client
                .post(url)
                .json(&body)
                .send()
                .await
                .is_ok_and(|response| response.status().is_success())
        });
    }
    requests
        .join_all()
        .await
        .into_iter()
        .filter(|ok| *ok)
        .count()
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let binary = std::env::var("KINGS_CORNER_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_kings-corner").to_owned());
    let mut server: Child = Command::new(binary)
        .env(
            "DATABASE_URL",
            format!("sqlite://{}/kc.db", dir.path().display()),
        )
        .env("BIND_ADDRESS", format!("127.0.0.1:{port}"))
        .env("LOG_LEVEL", "error")
        .env("REGISTRATIONS_PER_MINUTE", "10000")
        .env("LOGIN_ATTEMPTS_PER_MINUTE", "10000")
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(BURST)
        .build()
        .unwrap();
    for _ in 0..100 {
        if client.get(format!("{base}/healthz")).send().await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pid = server.id();
    let idle = status_mb(pid, "VmRSS:");
    let credentials: Vec<_> = (0..BURST)
        .map(|index| json!({"username": format!("player{index}"), "password": "correct horse"}))
        .collect();
    let started = Instant::now();
    let registered = burst(&client, format!("{base}/v1/accounts"), credentials.clone()).await;
    let registering = started.elapsed();
    let started = Instant::now();
    let logged_in = burst(&client, format!("{base}/v1/auth/login"), credentials).await;
    let logging_in = started.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    println!(
        "passwords: {registered}/{BURST} registrations in {:.1} s, {logged_in}/{BURST} logins in {:.1} s",
        registering.as_secs_f64(),
        logging_in.as_secs_f64()
    );
    println!(
        "memory: {idle:.0} MB idle, peak {:.0} MB, {:.0} MB held afterwards (target: peak < 200 MB)",
        status_mb(pid, "VmHWM:"),
        status_mb(pid, "VmRSS:")
    );
    let _ = server.kill();
    let _ = server.wait();
}
