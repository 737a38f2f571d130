//! `kc`, the terminal client (issue 41), run as a process against a real server: an account
//! registered, a table against a bot played to its end with `kc legal` and the words it prints,
//! the export verified; every kind of failure with its exit code and message; the login kept
//! owner-only and never printed.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use serde_json::Value;

use kings_corner::matches::export::{MatchExport, verify};

use crate::helpers::{TestApp, spawn_app};

/// `kc` with its config in `home`, on `app`'s server.
struct Kc<'a> {
    app: &'a TestApp,
    home: tempfile::TempDir,
}

/// What a run of `kc` did.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl<'a> Kc<'a> {
    fn new(app: &'a TestApp) -> Kc<'a> {
        Kc {
            app,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn config(&self) -> std::path::PathBuf {
        self.home.path().join("kc").join("config.json")
    }

    /// Runs `kc args…` (stdin: `input`) and waits for it, off the server's runtime.
    async fn run(&self, args: &[&str], input: &str) -> Ran {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kc"));
        command
            .args(args)
            .arg("--server")
            .arg(&self.app.address)
            .env("XDG_CONFIG_HOME", self.home.path())
            .env_remove("KC_TOKEN")
            .env_remove("KC_SERVER")
            .env_remove("KC_CONFIG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let input = input.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut child = command.spawn().expect("kc starts");
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            let output = child.wait_with_output().unwrap();
            Ran {
                code: output.status.code().unwrap_or(-1),
                stdout: String::from_utf8(output.stdout).unwrap(),
                stderr: String::from_utf8(output.stderr).unwrap(),
            }
        })
        .await
        .unwrap()
    }

    /// Runs `kc args…` and asserts it succeeded; its stdout.
    async fn ok(&self, args: &[&str]) -> String {
        let ran = self.run(args, "").await;
        assert_eq!(ran.code, 0, "kc {args:?}: {}", ran.stderr);
        ran.stdout
    }

    /// Runs `kc args… --json` and reads its JSON.
    async fn json(&self, args: &[&str]) -> Value {
        let mut with_json = args.to_vec();
        with_json.push("--json");
        serde_json::from_str(&self.ok(&with_json).await).unwrap()
    }
}

/// Register, create a single-hand table against the basic bot, and play it to its end with
/// nothing but `kc legal` (its first line, as words) and the command those words name.
#[tokio::test]
async fn kc_plays_a_whole_match_against_a_bot() {
    let app = spawn_app().await;
    let kc = Kc::new(&app);
    let registered = kc
        .run(&["register", "maya"], "correct horse battery\n")
        .await;
    assert_eq!(registered.code, 0, "{}", registered.stderr);
    assert!(
        registered
            .stdout
            .contains("Registered and logged in as maya")
    );

    let created = kc
        .json(&[
            "new",
            "--preset",
            "night-one",
            "--seats",
            "2",
            "--bot",
            "basic",
        ])
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let mut moves = 0;
    loop {
        let view = kc.json(&["show", &id]).await;
        if view["status"] != "playing" {
            assert_eq!(view["status"], "finished", "{view}");
            break;
        }
        if view["turn"] != view["your_seat"] {
            // The bot's turn: it moves by itself.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        }
        let legal = kc.ok(&["legal", &id]).await;
        let words: Vec<&str> = legal.lines().next().unwrap().split(' ').collect();
        let mut args = vec![words[0], id.as_str()];
        args.extend(&words[1..]);
        let shown = kc.ok(&args).await;
        assert!(
            shown.contains("Match ") && shown.contains("stock"),
            "{shown}"
        );
        moves += 1;
        assert!(moves < 500, "the hand ends");
    }
    let table = kc.ok(&["show", &id]).await;
    assert!(table.contains("Won by"), "{table}");
    let mine = kc.ok(&["matches"]).await;
    assert!(mine.contains(&id) && mine.contains("finished"), "{mine}");

    let token = kc_login(&kc)["access_token"].as_str().unwrap().to_owned();
    let export: MatchExport = serde_json::from_value(
        app.client
            .get(format!("{}/v1/matches/{id}/export", app.address))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap(),
    )
    .unwrap();
    verify(&export).expect("the match kc played verifies");
}

/// The login kc keeps: owner-only, and no command prints a token.
fn kc_login(kc: &Kc<'_>) -> Value {
    let path = kc.config();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the config is its owner's only");
    let config: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let text = config.to_string();
    assert!(!text.contains("correct horse"), "no password is kept");
    config["servers"]["default"]["login"].clone()
}

/// Each failure with its exit code and a message that says what to do: refused (1, the
/// problem's code first), bad usage (2), unreachable (3), logged out (1, `missing_token`).
#[tokio::test]
async fn kc_says_why_it_failed_with_an_exit_code() {
    let app = spawn_app().await;
    let kc = Kc::new(&app);
    let out = kc.run(&["matches"], "").await;
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("kc: missing_token: not logged in to"),
        "{}",
        out.stderr
    );

    assert_eq!(
        kc.run(&["login", "nobody"], "wrong password\n").await.code,
        1
    );
    let ran = kc
        .run(&["register", "leo"], "correct horse battery\n")
        .await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let login = kc_login(&kc);
    assert!(!ran.stdout.contains(login["access_token"].as_str().unwrap()));

    let missing = kc
        .run(&["show", "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10"], "")
        .await;
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.starts_with("kc: not_found: "),
        "{}",
        missing.stderr
    );

    let id = kc.json(&["new", "--seats", "2", "--bot", "basic"]).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = kc.run(&["play", &id, "ZZ", "N"], "").await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.starts_with("kc: "), "{}", refused.stderr);

    assert_eq!(
        kc.run(&["play", &id], "").await.code,
        2,
        "missing arguments"
    );
    assert_eq!(kc.run(&["show", "../me"], "").await.code, 2, "not an id");

    let gone = Command::new(env!("CARGO_BIN_EXE_kc"))
        .args(["matches", "--server", "http://127.0.0.1:9"])
        .env("XDG_CONFIG_HOME", kc.home.path())
        .env("KC_TOKEN", "x")
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(3));
    let said = String::from_utf8(gone.stderr).unwrap();
    assert!(
        said.contains("unreachable: http://127.0.0.1:9 did not answer"),
        "{said}"
    );

    let out = kc.ok(&["logout"]).await;
    assert!(out.contains("Logged out"), "{out}");
    assert_eq!(kc.run(&["matches"], "").await.code, 1);
}

/// `kc wait MATCH` returns once the other player has moved and the turn is mine (told by the
/// account stream), and at once when the turn is mine already.
#[tokio::test]
async fn kc_wait_returns_when_my_turn_comes() {
    let app = spawn_app().await;
    let (maya, leo) = (Kc::new(&app), Kc::new(&app));
    for (kc, name) in [(&maya, "maya"), (&leo, "leo")] {
        let ran = kc.run(&["register", name], "correct horse battery\n").await;
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    let id = maya.json(&["new", "--seats", "2"]).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    leo.ok(&["join", &id]).await;
    let view = maya.json(&["show", &id]).await;
    let (mover, waiter) = if view["turn"] == view["your_seat"] {
        (&maya, &leo)
    } else {
        (&leo, &maya)
    };
    let now = mover.run(&["wait", &id], "").await;
    assert_eq!(
        (now.code, now.stdout.trim()),
        (0, id.as_str()),
        "{}",
        now.stderr
    );

    let mut waiting = Command::new(env!("CARGO_BIN_EXE_kc"))
        .args(["wait", &id, "--json", "--server", &app.address])
        .env("XDG_CONFIG_HOME", waiter.home.path())
        .env_remove("KC_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Still waiting while the other has not moved.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(waiting.try_wait().unwrap().is_none(), "kc wait waits");
    mover.ok(&["end", &id]).await;
    let output = tokio::task::spawn_blocking(move || {
        // A bound on a hung test (the whole suite runs beside it), not a measure of speed.
        for _ in 0..600 {
            if waiting.try_wait().unwrap().is_some() {
                return waiting.wait_with_output().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        waiting.kill().unwrap();
        let output = waiting.wait_with_output().unwrap();
        panic!(
            "kc wait did not return after the move: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let told: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(told["match_id"], id.as_str());
}

/// The table's courtesies and tools from the terminal: a hint for the seat to move, talk, a
/// gift of time, a nudge too early and a claim too early refused with their codes, an
/// invitation refused (not the creator's, or to a public match), and the export as JSON once the match has ended.
#[tokio::test]
async fn kc_hints_talks_gives_time_and_exports() {
    let app = spawn_app().await;
    let (maya, leo) = (Kc::new(&app), Kc::new(&app));
    for (kc, name) in [(&maya, "maya"), (&leo, "leo")] {
        let ran = kc.run(&["register", name], "correct horse battery\n").await;
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    let id = maya
        .json(&["new", "--seats", "2", "--clock", "correspondence_1d"])
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    leo.ok(&["join", &id]).await;
    let view = maya.json(&["show", &id]).await;
    let (mover, other) = if view["turn"] == view["your_seat"] {
        (&maya, &leo)
    } else {
        (&leo, &maya)
    };
    let hint = mover.ok(&["hint", &id]).await;
    let legal = mover.ok(&["legal", &id]).await;
    let hinted = hint.split(':').next().unwrap();
    assert!(
        legal.lines().any(|line| line == hinted),
        "{hint} among {legal}"
    );

    assert!(
        other
            .ok(&["talk", &id, "good", "luck"])
            .await
            .contains("Said")
    );
    let given = other.ok(&["give-time", &id]).await;
    assert!(given.contains("86400 s more"), "{given}");
    // Only the creator invites, and only to a private match.
    let refused_invitation = if std::ptr::eq(other, &maya) {
        "match_not_private"
    } else {
        "not_match_creator"
    };
    for (args, code) in [
        (vec!["nudge", id.as_str()], "nudge_too_early"),
        (vec!["claim", id.as_str()], "not_claimable"),
        (vec!["give-time", id.as_str()], "time_given_already"),
        (vec!["invite", id.as_str(), "maya"], refused_invitation),
    ] {
        let refused = other.run(&args, "").await;
        assert_eq!(refused.code, 1, "{args:?}: {}", refused.stderr);
        assert!(
            refused.stderr.starts_with(&format!("kc: {code}: ")),
            "{args:?}: {}",
            refused.stderr
        );
    }
    let refused = other.run(&["export", &id], "").await;
    assert!(
        refused.stderr.starts_with("kc: match_not_finished: "),
        "{}",
        refused.stderr
    );
    other.ok(&["resign", &id]).await;
    let export: Value = serde_json::from_str(&other.ok(&["export", &id]).await).unwrap();
    let said = export["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|logged| logged["event"]["text"] == "good luck");
    assert!(said, "the talk is in the export");
}
