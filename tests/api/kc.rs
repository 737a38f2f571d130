//! `kc`, the terminal client (issue 41), run as a process against a real server: an account
//! registered, a table against a bot played to its end with `kc legal` and the words it prints,
//! the export verified; every kind of failure with its exit code and message; the login kept
//! owner-only and never printed.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

use kings_corner::matches::export::{MatchExport, verify};

use crate::cutting_proxy::CuttingProxy;
use crate::hardening::ServerProcess;
use crate::helpers::{TestApp, json_of, spawn_app};

/// `kc` with its config in `home`, on `app`'s server.
pub(crate) struct Kc {
    pub(crate) home: tempfile::TempDir,
    /// The address kc is given: the server's, or a proxy's in front of it (a login is kept
    /// for one address).
    pub(crate) server: String,
}

/// What a run of `kc` did.
pub(crate) struct Ran {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Kc {
    pub(crate) fn new(app: &TestApp) -> Kc {
        Kc::through(&app.address)
    }

    /// kc given `server` (a proxy in front of the test's server) as its address.
    pub(crate) fn through(server: &str) -> Kc {
        Kc {
            home: tempfile::tempdir().unwrap(),
            server: server.to_owned(),
        }
    }

    pub(crate) fn config(&self) -> std::path::PathBuf {
        self.home.path().join("kc").join("config.json")
    }

    /// `kc args…` on its server, with this config and its requests noted in the trace the
    /// audit reads.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kc"));
        command
            .args(args)
            .arg("--server")
            .arg(&self.server)
            .env("XDG_CONFIG_HOME", self.home.path())
            .env("KC_TRACE", self.trace())
            .env_remove("KC_TOKEN")
            .env_remove("KC_SERVER")
            .env_remove("KC_CONFIG");
        command
    }

    /// Where kc notes the requests it sends (`KC_TRACE`).
    pub(crate) fn trace(&self) -> std::path::PathBuf {
        self.home.path().join("requests.jsonl")
    }

    /// Runs `kc args…` (stdin: `input`) and waits for it, off the server's runtime.
    pub(crate) async fn run(&self, args: &[&str], input: &str) -> Ran {
        let command = self.command(args);
        ran(command, input).await
    }

    /// Runs `kc args…` and asserts it succeeded; its stdout.
    pub(crate) async fn ok(&self, args: &[&str]) -> String {
        let ran = self.run(args, "").await;
        assert_eq!(ran.code, 0, "kc {args:?}: {}", ran.stderr);
        ran.stdout
    }

    /// Runs `kc args… --json` and reads its JSON.
    pub(crate) async fn json(&self, args: &[&str]) -> Value {
        let mut with_json = args.to_vec();
        with_json.push("--json");
        serde_json::from_str(&self.ok(&with_json).await).unwrap()
    }
}

/// Runs `command` (stdin: `input`) and waits for it, off the server's runtime.
pub(crate) async fn ran(mut command: Command, input: &str) -> Ran {
    command
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

/// The output of `child` once it has exited; killed, and the test failed naming `what` with
/// all it printed, if it has not after `seconds` (a bound on a hang, not a measure).
async fn exited_within(mut child: Child, seconds: u64, what: &str) -> Output {
    let what = what.to_owned();
    tokio::task::spawn_blocking(move || {
        for _ in 0..seconds * 100 {
            if child.try_wait().unwrap().is_some() {
                return child.wait_with_output().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.kill().unwrap();
        let output = child.wait_with_output().unwrap();
        panic!(
            "{what} did not return in {seconds} s: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    })
    .await
    .unwrap()
}

/// Two accounts registered with kc, maya's and leo's, each with a config of its own.
pub(crate) async fn maya_and_leo(server: &str) -> (Kc, Kc) {
    let (maya, leo) = (Kc::through(server), Kc::through(server));
    registered(&maya, "maya").await;
    registered(&leo, "leo").await;
    (maya, leo)
}

/// Every request a test's kc sent is an operation of the description (`kc_audit.rs`).
impl Drop for Kc {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert!(
                crate::kc_audit::audit(&self.trace()) > 0,
                "kc noted no request in KC_TRACE"
            );
        }
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
        json_of(
            app.client
                .get(format!("{}/v1/matches/{id}/export", app.address))
                .bearer_auth(&token),
        )
        .await,
    )
    .unwrap();
    verify(&export).expect("the match kc played verifies");
}

/// The login kc keeps: owner-only, and no command prints a token.
pub(crate) fn kc_login(kc: &Kc) -> Value {
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
    let (maya, leo) = maya_and_leo(&app.address).await;
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

    let mut waiting = waiter
        .command(&["wait", &id, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Still waiting while the other has not moved.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(waiting.try_wait().unwrap().is_none(), "kc wait waits");
    pass_until_turn_of(mover, waiter, &id).await;
    // A bound on a hung test (the whole suite runs beside it), not a measure of speed.
    let output = exited_within(waiting, 30, "kc wait, after the move").await;
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
    let (maya, leo) = maya_and_leo(&app.address).await;
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

/// `a` ends the turn until it is `b`'s (at two seats; a turn whose only action is to end it
/// is ended by the server, so one end may not be enough).
pub(crate) async fn pass_until_turn_of(a: &Kc, b: &Kc, id: &str) {
    for _ in 0..20 {
        let view = b.json(&["show", id]).await;
        if view["turn"] == view["your_seat"] {
            return;
        }
        a.ok(&["end", id]).await;
    }
    panic!("the turn never came to the other seat");
}

/// Registers `name` with kc.
pub(crate) async fn registered(kc: &Kc, name: &str) {
    let ran = kc.run(&["register", name], "correct horse battery\n").await;
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

/// The account's commands: a seek paired with another's, listed, and one withdrawn; vacation
/// days, a vacation taken and ended; a token for scripts printed once, used through
/// `KC_TOKEN`, listed without its secret and revoked; a replay and an export that
/// `kc verify` accepts, and refuses once a byte of it is changed.
#[tokio::test]
async fn kc_seeks_goes_away_makes_tokens_replays_and_verifies() {
    let app = spawn_app().await;
    let (maya, leo) = maya_and_leo(&app.address).await;

    let open = maya
        .json(&["seek", "--preset", "standard", "--seats", "2"])
        .await;
    assert_eq!(open["status"], "open", "{open}");
    let paired = leo.ok(&["seek", "--seats", "2"]).await;
    assert!(
        paired.contains("matched") && paired.contains("→ match "),
        "{paired}"
    );
    let match_id = paired.trim().rsplit(' ').next().unwrap().to_owned();
    let listed = maya.ok(&["seek", "--list"]).await;
    assert!(listed.contains(&match_id), "{listed}");
    let other = maya.json(&["seek", "--preset", "foundations"]).await;
    let withdrawn = maya
        .json(&["seek", "--cancel", other["id"].as_str().unwrap()])
        .await;
    assert_eq!(withdrawn["status"], "cancelled");

    let days = maya.ok(&["vacation"]).await;
    assert!(days.starts_with("Not on vacation; "), "{days}");
    let away = maya.json(&["vacation", "--days", "2"]).await;
    assert!(away["vacation"]["until"].is_string(), "{away}");
    let back = maya.ok(&["vacation", "--end"]).await;
    assert!(back.starts_with("Not on vacation; "), "{back}");

    let created = maya
        .run(
            &["token", "create", "--name", "bot", "--scope", "read,play"],
            "",
        )
        .await;
    assert_eq!(created.code, 0, "{}", created.stderr);
    let token = created.stdout.trim().to_owned();
    assert!(token.starts_with("kcp_"), "{}", created.stdout);
    assert!(
        created.stderr.contains("shown this once"),
        "{}",
        created.stderr
    );
    let listed = maya.ok(&["token", "list"]).await;
    assert!(
        listed.contains("read,play") || listed.contains("play,read"),
        "{listed}"
    );
    assert!(!listed.contains(&token), "a listed token hides its secret");
    let by_token = |token: &str| {
        let mut command = leo.command(&["matches", "--json"]);
        command.env("KC_TOKEN", token);
        command
    };
    let mine = ran(by_token(&token), "").await;
    assert_eq!(mine.code, 0, "{}", mine.stderr);
    assert!(
        mine.stdout.contains(&match_id),
        "KC_TOKEN is maya's: {}",
        mine.stdout
    );
    let id = maya.json(&["token", "list"]).await["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["name"] == "bot")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(maya.ok(&["token", "revoke", &id]).await.contains("revoked"));
    let revoked = ran(by_token(&token), "").await;
    assert_eq!(revoked.code, 1, "{}", revoked.stderr);
    assert!(
        revoked.stderr.starts_with("kc: invalid_token: "),
        "{}",
        revoked.stderr
    );

    maya.ok(&["resign", &match_id]).await;
    let replayed = maya.ok(&["replay", &match_id, "--at", "1"]).await;
    assert!(replayed.contains("version 1"), "{replayed}");
    let whole = leo.json(&["replay", &match_id]).await;
    assert!(
        whole["all_hands"].is_array() && whole["status"] == "finished",
        "{whole}"
    );
    let file = maya.home.path().join("match.json");
    std::fs::write(&file, maya.ok(&["export", &match_id]).await).unwrap();
    let file = file.to_str().unwrap();
    let checked = maya.run(&["verify", file], "").await;
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    // The second event is the first turn's start: given to the other seat, the log lies.
    let mut export: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let started = &mut export["events"][1]["event"];
    assert_eq!(started["type"], "turn_started");
    started["seat"] = (1 - started["seat"].as_u64().unwrap()).into();
    std::fs::write(file, export.to_string()).unwrap();
    let refused = maya.run(&["verify", file], "").await;
    assert_eq!(refused.code, 1, "{}{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.contains("kc: export_invalid: "),
        "{}",
        refused.stderr
    );
}

/// A move whose answer is lost with its connection (the server played it) is sent again
/// with the same idempotency key: kc says it was played, and it was played once.
#[tokio::test]
async fn a_retried_kc_play_after_a_killed_connection_plays_once() {
    let app = spawn_app().await;
    let proxy = CuttingProxy::start(&app.address).await;
    let kc = Kc::through(&proxy.address);
    registered(&kc, "maya").await;
    let id = kc.json(&["new", "--seats", "2", "--bot", "basic"]).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = loop {
        let view = kc.json(&["show", &id]).await;
        if view["turn"] == view["your_seat"] {
            break view;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let first = before["legal_actions"][0].clone();
    let legal = kc.ok(&["legal", &id]).await;
    let words: Vec<&str> = legal.lines().next().unwrap().split(' ').collect();
    let mut args = vec![words[0], id.as_str()];
    args.extend(&words[1..]);
    proxy.drop_answer_of(&format!("POST /v1/matches/{id}/moves"));
    let played = kc.run(&args, "").await;
    assert!(
        proxy.dropped_an_answer(),
        "the proxy cut the move's answer: {}",
        played.stderr
    );
    assert_eq!(played.code, 0, "{}", played.stderr);

    let token = kc_login(&kc)["access_token"].as_str().unwrap().to_owned();
    let feed = json_of(
        app.client
            .get(format!("{}/v1/matches/{id}/events", app.address))
            .query(&[("after", before["version"].to_string())])
            .bearer_auth(&token),
    )
    .await;
    let mine = before["your_seat"].clone();
    let acts = |kind: &str| {
        feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|logged| logged["event"]["type"] == kind && logged["event"]["seat"] == mine)
            .count()
    };
    match first["type"].as_str().unwrap() {
        "play" => assert_eq!(acts("card_played"), 1, "{feed}"),
        "move" => assert_eq!(acts("pile_moved"), 1, "{feed}"),
        _ => assert_eq!(acts("turn_ended"), 1, "{feed}"),
    }
}

/// `kc wait` waits on across a server restart: the server process killed (SIGKILL) and its
/// address refusing a while, then the server started again on the same database behind the
/// same address; the other player's move made there ends the wait (its time printed, not
/// judged: the bound only catches a hang).
#[tokio::test]
async fn kc_wait_waits_across_a_server_restart() {
    let server = ServerProcess::start(&[], &[]).await;
    let proxy = CuttingProxy::start(&server.address).await;
    let (maya, leo) = maya_and_leo(&proxy.address).await;
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
    let mut waiting = waiter
        .command(&["wait", &id, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(waiting.try_wait().unwrap().is_none(), "kc wait waits");

    // The restart: the process killed, the address refusing a while, a new process.
    proxy.refuse(true);
    let database = server.stop();
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    let restarted = ServerProcess::start_in(database, &[], &[]).await;
    proxy.point_at(&restarted.address);
    proxy.refuse(false);
    // Once kc wait holds a stream again (it says so on stderr), the other player moves there.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert!(waiting.try_wait().unwrap().is_none(), "kc wait waits on");
    let moved_at = std::time::Instant::now();
    pass_until_turn_of(mover, waiter, &id).await;
    let output = exited_within(waiting, 30, "kc wait, after the restart and the move").await;
    eprintln!(
        "kc wait returned {} ms after the move, across the restart",
        moved_at.elapsed().as_millis()
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let told: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(told["match_id"], id.as_str());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("trying again") || said.contains("opening it again"),
        "{said}"
    );
}

/// `kc wait --deadline-near` waits while my turn has time, and returns once a tenth of it is
/// left (the server's clock moved on: its reminder comes on the account stream).
#[tokio::test]
async fn kc_wait_deadline_near_returns_when_a_tenth_of_the_turn_is_left() {
    let app = spawn_app().await;
    let (maya, leo) = maya_and_leo(&app.address).await;
    let id = maya
        .json(&["new", "--seats", "2", "--clock", "fast_5m"])
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    leo.ok(&["join", &id]).await;
    let view = maya.json(&["show", &id]).await;
    let mover = if view["turn"] == view["your_seat"] {
        &maya
    } else {
        &leo
    };
    let mut waiting = mover
        .command(&["wait", "--deadline-near", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    assert!(
        waiting.try_wait().unwrap().is_none(),
        "my turn has its time: kc wait --deadline-near waits"
    );
    // 815 of the 900 s the turn may take (300 s and a bank of 600 s) gone: 85 s left, less
    // than a tenth.
    app.clock.advance(815);
    let output = exited_within(waiting, 30, "kc wait --deadline-near").await;
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let told: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(told["match_id"], id.as_str());
}
