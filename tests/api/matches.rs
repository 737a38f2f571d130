//! Matches over HTTP: whole games of every preset by separate clients, hidden cards never
//! leaking, races on `expected_version`, idempotent retries, replays, exports and `verify`.

use std::collections::HashSet;

use kings_corner::rules::shuffle::uniform_below;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Value, json};

use kings_corner::model::MatchStatus;
use kings_corner::store::StoreError;
use kings_corner::store::StoredEvent;
use kings_corner::store::append::{Append, KeptResponse, ReadModel};
use kings_corner::store::notifications::NewNotification;

use crate::helpers::{
    Player, TestApp, assert_problem, full_match, json_of, players, spawn_app, spawn_app_with,
    standard_match, start, started_matches, view_of_turn,
};

/// The strings of a JSON document (cards appear as strings).
fn strings(value: &Value, out: &mut HashSet<String>) {
    match value {
        Value::String(text) => {
            out.insert(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| strings(item, out)),
        _ => {}
    }
}

/// No card of another player's hand appears in `view` unless it is public (piles, revealed hands).
fn assert_no_leak(view: &Value, hands: &[Vec<String>], me: usize) {
    let mut visible = HashSet::new();
    strings(&view["piles"], &mut visible);
    strings(&view["foundations"], &mut visible);
    strings(&view["last_hand"], &mut visible);
    strings(&view["hand"], &mut visible);
    for seat in view["seats"].as_array().into_iter().flatten() {
        // Claimed corners left the layout in everyone's sight.
        strings(&seat["claimed"], &mut visible);
    }
    let mut shown = HashSet::new();
    let mut without_actions = view.clone();
    without_actions["legal_actions"] = json!([]);
    strings(&without_actions, &mut shown);
    for (seat, hand) in hands.iter().enumerate().filter(|(seat, _)| *seat != me) {
        for card in hand {
            assert!(
                visible.contains(card) || !shown.contains(card),
                "seat {me} sees {card} of seat {seat}"
            );
        }
    }
    assert!(view.get("stock").is_none());
}

/// Plays a whole match with random legal actions; returns the views each seat saw, by version.
async fn play_out(
    app: &TestApp,
    players: &[Player],
    id: &str,
    seed: u64,
) -> Vec<Vec<(i64, Value)>> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut seen: Vec<Vec<(i64, Value)>> = vec![Vec::new(); players.len()];
    for _ in 0..20_000 {
        let mut views = Vec::new();
        for player in players {
            views.push(app.json_as(player, &format!("/v1/matches/{id}/view")).await);
        }
        let hands: Vec<Vec<String>> = views
            .iter()
            .map(|view| {
                view["hand"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|card| card.as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        for (seat, view) in views.iter().enumerate() {
            assert_eq!(view["your_seat"], seat);
            assert_no_leak(view, &hands, seat);
            seen[seat].push((view["version"].as_i64().unwrap(), view.clone()));
        }
        if views[0]["status"] == "finished" {
            return seen;
        }
        let turn = views[0]["turn"].as_u64().unwrap() as usize;
        let legal = views[turn]["legal_actions"].as_array().unwrap();
        let action = legal[uniform_below(&mut rng, legal.len() as u32) as usize].clone();
        let version = views[turn]["version"].as_i64().unwrap();
        let response = app
            .post_as(
                &players[turn],
                &format!("/v1/matches/{id}/moves"),
                &json!({"expected_version": version, "action": action}),
            )
            .await;
        assert_eq!(
            response.status(),
            200,
            "{action}: {}",
            response.text().await.unwrap()
        );
        let after: Value = response.json().await.unwrap();
        assert!(after["version"].as_i64().unwrap() > version);
    }
    panic!("the match did not end");
}

pub(crate) async fn export_and_verify(app: &TestApp, player: &Player, id: &str) {
    let export = app
        .json_as(player, &format!("/v1/matches/{id}/export"))
        .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.json");
    std::fs::write(&file, export.to_string()).unwrap();
    let verify = |path: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kings-corner"))
            .arg("verify")
            .arg(path)
            // The test's clock may run ahead of this machine's (`ManualClock::advance`).
            .arg("--now")
            .arg(kings_corner::time_source::rfc3339(
                kings_corner::time_source::Clock::now(&*app.clock),
            ))
            .env_remove("DATABASE_URL")
            .output()
            .unwrap()
    };
    let output = verify(&file);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("ok:"));
    // Tamper with the turn end nearest the middle of the log: verify names it. (A random
    // game may end its hand early, so "the first one after the middle" need not exist; a
    // hand won on its very first turn has none, and then the middle event's hash is forged.)
    let mut tampered = export.clone();
    let events = tampered["events"].as_array_mut().unwrap();
    let middle = events.len() / 2;
    let target = (0..events.len())
        .filter(|&index| events[index]["event"]["type"] == "turn_ended")
        .min_by_key(|&index| index.abs_diff(middle));
    let target = match target {
        Some(target) => {
            let passed = events[target]["event"]["passed"].as_bool().unwrap();
            events[target]["event"]["passed"] = json!(!passed);
            target
        }
        None => {
            events[middle]["hash"] = json!("00".repeat(32));
            middle
        }
    };
    let seq = events[target]["seq"].as_u64().unwrap();
    std::fs::write(&file, tampered.to_string()).unwrap();
    let output = verify(&file);
    assert!(!output.status.success());
    let complaint = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(complaint.contains(&format!("event {seq}:")), "{complaint}");
    // A wrong secret fails the commitment.
    let mut wrong = export.clone();
    wrong["secret"] = json!("00".repeat(32));
    std::fs::write(&file, wrong.to_string()).unwrap();
    assert!(String::from_utf8_lossy(&verify(&file).stderr).contains("commitment"));
}

#[tokio::test]
async fn whole_matches_of_every_preset_by_separate_clients() {
    let app = spawn_app().await;
    let players = players(&app, 6).await;
    let cases = [
        ("standard", 2),
        ("draw-first", 4),
        ("foundations", 6),
        ("night-one", 2),
        ("night-one", 6),
        ("foundations", 4),
    ];
    for (index, (preset, seats)) in cases.into_iter().enumerate() {
        let rules = json!({"preset": preset, "game_end": {"hands": 1}});
        let id = full_match(&app, &players[..seats], rules).await;
        let seen = play_out(&app, &players[..seats], &id, index as u64).await;
        // replay?at=N equals the view the player had at version N.
        for (seat, views) in seen.iter().enumerate().take(2) {
            let (version, view) = &views[views.len() / 2];
            let mut replayed = app
                .json_as(
                    &players[seat],
                    &format!("/v1/matches/{id}/replay?at={version}"),
                )
                .await;
            let mut expected = view.clone();
            // After the end, replays are fully open: compare the shared parts.
            assert_eq!(
                replayed["all_hands"][seat], view["hand"],
                "the open replay shows every hand"
            );
            replayed.as_object_mut().unwrap().remove("all_hands");
            for side in [&mut replayed, &mut expected] {
                side["your_seat"] = Value::Null;
                side["hand"] = Value::Null;
                side["legal_actions"] = json!([]);
            }
            assert_eq!(replayed, expected, "{preset} seat {seat} at {version}");
        }
        export_and_verify(&app, &players[0], &id).await;
    }
}

/// The export waits for the end (the secret stays secret until then); a finished public match
/// is anyone's to export, as it is anyone's to replay; a private one stays with its players.
#[tokio::test]
async fn exports_wait_for_the_end_and_private_ones_stay_with_their_players() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let (table, outsider) = (&players[..2], &players[2]);
    let one_hand = json!({"preset": "standard", "game_end": {"hands": 1}});
    let public = full_match(&app, table, one_hand.clone()).await;
    assert_problem(
        app.get_as(&table[0], &format!("/v1/matches/{public}/export"))
            .await,
        409,
        "match_not_finished",
    )
    .await;
    play_out(&app, table, &public, 11).await;
    let export = app
        .json_as(outsider, &format!("/v1/matches/{public}/export"))
        .await;
    assert_eq!(export["match_id"], public.as_str());
    assert_eq!(export["secret"].as_str().unwrap().len(), 64);

    let created: Value = app
        .post_as(
            &table[0],
            "/v1/matches",
            &json!({"rules": one_hand, "seats": 2, "visibility": "private"}),
        )
        .await
        .json()
        .await
        .unwrap();
    let private = created["id"].as_str().unwrap().to_owned();
    let joined = app
        .post_as(
            &table[1],
            &format!("/v1/matches/{private}/join"),
            &json!({"invite_code": created["invite_code"]}),
        )
        .await;
    assert_eq!(joined.status(), 200);
    play_out(&app, table, &private, 12).await;
    assert_problem(
        app.get_as(outsider, &format!("/v1/matches/{private}/export"))
            .await,
        404,
        "not_found",
    )
    .await;
    let export = app
        .json_as(&table[1], &format!("/v1/matches/{private}/export"))
        .await;
    assert_eq!(export["match_id"], private.as_str());
}

#[tokio::test]
async fn a_standard_match_to_fifty_points_ends_and_verifies() {
    let app = spawn_app().await;
    let players = players(&app, 4).await;
    let id = full_match(&app, &players, json!({"preset": "standard"})).await;
    play_out(&app, &players, &id, 7).await;
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary["status"], "finished");
    assert!(
        summary["totals"]
            .as_array()
            .unwrap()
            .iter()
            .any(|total| total.as_u64().unwrap() >= 50)
    );
    export_and_verify(&app, &players[0], &id).await;
}

#[tokio::test]
async fn twenty_clients_racing_on_one_version_get_one_acceptance() {
    // The race is on the match's version; the per-account bound of requests in
    // flight would refuse most of the twenty before they reach it.
    let app = spawn_app_with(|settings| settings.max_requests_per_account = 100).await;
    let (players, id) = standard_match(&app).await;
    let (turn, view) = view_of_turn(&app, &players, &id).await;
    let version = view["version"].as_i64().unwrap();
    let legal = view["legal_actions"].as_array().unwrap().clone();
    let path = format!("/v1/matches/{id}/moves");
    let bodies: Vec<Value> =
        (0..20).map(|index| json!({"expected_version": version, "action": legal[index % legal.len()].clone()})).collect();
    let requests = bodies
        .iter()
        .map(|body| app.post_as(&players[turn], &path, body));
    let responses = futures_util::future::join_all(requests).await;
    let statuses: Vec<u16> = responses
        .iter()
        .map(|response| response.status().as_u16())
        .collect();
    assert_eq!(
        statuses.iter().filter(|status| **status == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|status| **status == 409).count(),
        19,
        "{statuses:?}"
    );
    let feed = app
        .json_as(&players[turn], &format!("/v1/matches/{id}/events?after=0"))
        .await;
    let seqs: Vec<i64> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|logged| logged["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(
        seqs,
        (1..=feed["version"].as_i64().unwrap()).collect::<Vec<_>>(),
        "versions are contiguous"
    );
}

/// A made-up append of two events that tells `told` something (the notification's id names
/// the append).
fn test_append(match_id: &str, expected_version: i64, key: Option<&str>, told: &str) -> Append {
    Append {
        match_id: match_id.to_owned(),
        expected_version,
        events: (1..=2)
            .map(|offset| StoredEvent {
                seq: expected_version + offset,
                event: format!(r#"{{"type":"test","n":{offset}}}"#),
                hash: "00".repeat(32),
                at: 1,
            })
            .collect(),
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
        kept: key.map(|key| KeptResponse {
            account_id: "account".to_owned(),
            key: key.to_owned(),
            request_hash: "hash".to_owned(),
            body: "{}".to_owned(),
        }),
        ratings: None,
        notifications: vec![NewNotification {
            message_id: test_message(match_id, expected_version, key),
            account_id: told.to_owned(),
            kind: "your_turn",
            data: "{}".to_owned(),
            created_at: 1,
        }],
        now: 1,
    }
}

fn test_message(match_id: &str, expected_version: i64, key: Option<&str>) -> String {
    format!("test:{match_id}:{expected_version}:{key:?}")
}

/// The id of the account with this username.
async fn account_id(app: &TestApp, username: &str) -> String {
    app.db
        .account_by_username(username)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// The ids of every notification written.
async fn message_ids(app: &TestApp) -> HashSet<String> {
    sqlx::query_scalar::<_, String>("SELECT message_id FROM notifications")
        .fetch_all(app.sql())
        .await
        .unwrap()
        .into_iter()
        .collect()
}

/// Sends every append at once, each from its own task; the outcomes in the appends' order.
async fn append_at_once(app: &TestApp, appends: Vec<Append>) -> Vec<Result<bool, StoreError>> {
    let mut tasks = tokio::task::JoinSet::new();
    for (index, append) in appends.into_iter().enumerate() {
        let db = app.db.clone();
        tasks.spawn(async move { (index, db.append_events(append).await) });
    }
    let mut outcomes: Vec<_> = tasks.join_all().await;
    outcomes.sort_by_key(|(index, _)| *index);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
}

/// Appends to many matches at once keep their own outcomes, whether or not they share a
/// batch (one writer gathers them: a statement on PostgreSQL, a transaction on SQLite, each
/// append in a savepoint of its own there): a stale one and the loser of a race
/// write nothing, and a refused idempotency key fails its own append and no other.
#[tokio::test]
async fn concurrent_appends_keep_their_own_outcomes() {
    let app = spawn_app().await;
    let (ids, mut versions) = started_matches(&app, 10).await;
    let told = account_id(&app, "player0").await;
    let test_append =
        |id: &str, version: i64, key: Option<&str>| test_append(id, version, key, &told);
    // The last match already kept a response under the key "taken".
    let last = ids.len() - 1;
    assert!(
        app.db
            .append_events(test_append(&ids[last], versions[last], Some("taken")))
            .await
            .unwrap()
    );
    versions[last] += 2;
    let before = app.db.append_statistics();

    let mut appends = vec![
        test_append(&ids[0], versions[0], None),
        test_append(&ids[0], versions[0], Some("race")),
        test_append(&ids[1], versions[1] - 1, None),
        test_append(&ids[last], versions[last], Some("taken")),
    ];
    for index in 2..last {
        appends.push(test_append(&ids[index], versions[index], Some("fresh")));
    }
    let sent: Vec<String> = appends
        .iter()
        .map(|append| append.notifications[0].message_id.clone())
        .collect();
    let told_before = message_ids(&app).await;
    let written: Vec<bool> = append_at_once(&app, appends)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let told: HashSet<String> = message_ids(&app)
        .await
        .difference(&told_before)
        .cloned()
        .collect();
    let expected_told: HashSet<String> = (sent.iter().zip(&written))
        .filter(|(_, written)| **written)
        .map(|(id, _)| id.clone())
        .collect();
    assert_eq!(
        told, expected_told,
        "notifications are written with their append only"
    );
    assert!(
        written[0] ^ written[1],
        "exactly one of a race wins: {written:?}"
    );
    assert!(!written[2], "a stale version writes nothing");
    assert!(!written[3], "a key already kept refuses its append");
    assert!(written[4..].iter().all(|written| *written), "{written:?}");

    let expected = |index: usize| match index {
        0 => versions[0] + 2,
        1 | 9 => versions[index],
        _ => versions[index] + 2,
    };
    for (index, id) in ids.iter().enumerate() {
        let row = app.db.match_by_id(id).await.unwrap().unwrap();
        assert_eq!(row.version, expected(index), "match {index}");
        let events = app.db.events(id, 0, 1_000).await.unwrap();
        let seqs: Vec<i64> = events.iter().map(|stored| stored.seq).collect();
        assert_eq!(
            seqs,
            (1..=expected(index)).collect::<Vec<_>>(),
            "match {index}"
        );
    }
    if let (Some(before), Some(after)) = (before, app.db.append_statistics()) {
        let sent = written.len() as u64;
        assert_eq!(
            after.appends - before.appends,
            sent,
            "all through the writer"
        );
        assert!(
            after.batches - before.batches < sent,
            "{before:?} {after:?}"
        );
    }

    // Again without a bad append: every one written, and in shared batches
    // that none had to retry alone.
    let before = app.db.append_statistics();
    let appends = (ids.iter().enumerate())
        .map(|(index, id)| test_append(id, expected(index), Some("again")))
        .collect();
    for outcome in append_at_once(&app, appends).await {
        assert!(outcome.unwrap());
    }
    for (index, id) in ids.iter().enumerate() {
        let row = app.db.match_by_id(id).await.unwrap().unwrap();
        assert_eq!(row.version, expected(index) + 2, "match {index}");
        let kept = app
            .db
            .kept_response("account", id, "again")
            .await
            .unwrap()
            .expect("the response is kept with the events");
        assert_eq!(kept.body, "{}");
    }
    if let (Some(before), Some(after)) = (before, app.db.append_statistics()) {
        assert_eq!(after.appends - before.appends, ids.len() as u64);
        assert!(after.batches - before.batches < ids.len() as u64);
        assert_eq!(after.retried, before.retried, "{before:?} {after:?}");
    }

    // Stale and fresh appends together: the version check inside the shared statement refuses
    // the stale ones without failing the statement.
    let before = app.db.append_statistics();
    let fresh = |index: usize| index.is_multiple_of(2);
    let appends = (ids.iter().enumerate())
        .map(|(index, id)| {
            test_append(id, expected(index) + if fresh(index) { 2 } else { 0 }, None)
        })
        .collect();
    for (index, outcome) in append_at_once(&app, appends).await.into_iter().enumerate() {
        assert_eq!(outcome.unwrap(), fresh(index), "match {index}");
    }
    if let (Some(before), Some(after)) = (before, app.db.append_statistics()) {
        assert!(after.batches - before.batches < ids.len() as u64);
        assert_eq!(after.retried, before.retried, "{before:?} {after:?}");
    }
}

/// While the database is away, appends fail as unavailable (503 to a client) and write
/// nothing; once it is back they go through again.
#[tokio::test]
async fn appends_during_a_database_outage_fail_and_write_nothing() {
    let app = spawn_app().await;
    let (ids, versions) = started_matches(&app, 4).await;
    let told = account_id(&app, "player0").await;
    let test_append =
        |id: &str, version: i64, key: Option<&str>| test_append(id, version, key, &told);
    let Some(name) = app.database.postgres_name() else {
        // SQLite: one process owns the file; a closed pool is its outage.
        app.db.pool().close().await;
        let outcome = app
            .db
            .append_events(test_append(&ids[0], versions[0], None))
            .await;
        assert!(
            matches!(&outcome, Err(error) if error.is_unavailable()),
            "{outcome:?}"
        );
        return;
    };
    app.database
        .admin(&format!(
            r#"ALTER DATABASE "{name}" ALLOW_CONNECTIONS false"#
        ))
        .await;
    app.database
        .admin(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .await;
    let before = app.db.append_statistics().unwrap();
    let appends = (ids.iter().zip(&versions))
        .map(|(id, version)| test_append(id, *version, None))
        .collect();
    for outcome in append_at_once(&app, appends).await {
        assert!(
            matches!(&outcome, Err(error) if error.is_unavailable()),
            "{outcome:?}"
        );
    }
    let after = app.db.append_statistics().unwrap();
    assert_eq!(
        after.retried, before.retried,
        "an outage is not retried append by append"
    );
    app.database
        .admin(&format!(
            r#"ALTER DATABASE "{name}" ALLOW_CONNECTIONS true"#
        ))
        .await;
    assert_eq!(app.ready_again().await, 200);
    for (id, version) in ids.iter().zip(&versions) {
        let row = app.db.match_by_id(id).await.unwrap().unwrap();
        assert_eq!(row.version, *version, "nothing was written");
        assert!(
            app.db
                .append_events(test_append(id, *version, None))
                .await
                .unwrap()
        );
    }
}

#[tokio::test]
async fn moves_are_checked_and_nothing_is_written_on_any_error() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let id = full_match(&app, &players[..2], json!({"preset": "standard"})).await;
    let view = app
        .json_as(&players[0], &format!("/v1/matches/{id}/view"))
        .await;
    let turn = view["turn"].as_u64().unwrap() as usize;
    let other = 1 - turn;
    let version = view["version"].as_i64().unwrap();
    let moves = format!("/v1/matches/{id}/moves");
    let stale = app
        .post_as(
            &players[turn],
            &moves,
            &json!({"expected_version": version - 1, "action": {"type": "end_turn"}}),
        )
        .await;
    let body = assert_problem(stale, 409, "version_conflict").await;
    assert_eq!(body["current_version"], version);
    let not_yours = app
        .post_as(
            &players[other],
            &moves,
            &json!({"expected_version": version, "action": {"type": "end_turn"}}),
        )
        .await;
    assert_problem(not_yours, 422, "not_your_turn").await;
    let not_held = app.post_as(&players[turn], &moves, &json!({"expected_version": version, "action": {"type": "play", "card": "JK", "as": "7H", "to": "N"}})).await;
    assert_problem(not_held, 422, "card_not_in_hand").await;
    let spectator = app
        .post_as(
            &players[2],
            &moves,
            &json!({"expected_version": version, "action": {"type": "end_turn"}}),
        )
        .await;
    assert_problem(spectator, 403, "not_a_player").await;
    let bad_action = app
        .post_as(
            &players[turn],
            &moves,
            &json!({"expected_version": version, "action": {"type": "fly"}}),
        )
        .await;
    assert_problem(bad_action, 422, "invalid_body").await;
    let after = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(after["version"], version, "nothing was written");
    // A spectator of a public match sees no hand.
    let watched = app
        .json_as(&players[2], &format!("/v1/matches/{id}/view"))
        .await;
    assert!(watched["hand"].is_null() && watched["your_seat"].is_null());
}

/// A client that hangs up while its move is on its way to the database does not leave the
/// server's cache behind the log: every view afterwards shows what the database holds.
#[tokio::test]
async fn a_client_hanging_up_mid_move_leaves_the_cache_true_to_the_log() {
    use std::io::Write;

    let app = spawn_app().await;
    let (players, id) = standard_match(&app).await;
    let address = app.address.trim_start_matches("http://").to_owned();
    for _ in 0..12 {
        let (turn, view) = view_of_turn(&app, &players, &id).await;
        let body = json!({
            "expected_version": view["version"],
            "action": view["legal_actions"][0],
        })
        .to_string();
        let mut socket = std::net::TcpStream::connect(&address).unwrap();
        write!(
            socket,
            "POST /v1/matches/{id}/moves HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            players[turn].token,
            body.len()
        )
        .unwrap();
        drop(socket);
        // Whether the move was written or not, let the server finish with it.
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        let stored = app.db.match_by_id(&id).await.unwrap().unwrap().version;
        for player in &players {
            let seen = app.json_as(player, &format!("/v1/matches/{id}/view")).await;
            assert_eq!(seen["version"], stored, "the view trails the log");
        }
    }
}

#[tokio::test]
async fn idempotent_retries_return_the_first_answer() {
    let app = spawn_app().await;
    let (players, id) = standard_match(&app).await;
    let (turn, view) = view_of_turn(&app, &players, &id).await;
    let version = view["version"].as_i64().unwrap();
    let body = json!({"expected_version": version, "action": {"type": "end_turn"}});
    let send = |body: Value| {
        app.client
            .post(format!("{}/v1/matches/{id}/moves", app.address))
            .bearer_auth(&players[turn].token)
            .header("Idempotency-Key", "move-1")
            .json(&body)
            .send()
    };
    let first = send(body.clone()).await.unwrap();
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.unwrap();
    // The response was lost; the client retries with the same key and body.
    let retry = send(body.clone()).await.unwrap();
    assert_eq!(retry.status(), 200);
    assert_eq!(retry.headers()["idempotent-replayed"], "true");
    assert_eq!(retry.json::<Value>().await.unwrap(), first);
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary["version"], first["version"], "no second move");
    let other_body = send(json!({"expected_version": version, "action": {"type": "draw"}}))
        .await
        .unwrap();
    assert_problem(other_body, 422, "idempotency_key_reused").await;
}

#[tokio::test]
async fn lobby_inbox_private_matches_and_leaving() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let open = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 3}))
        .await;
    let open: Value = open.json().await.unwrap();
    let open_id = open["id"].as_str().unwrap().to_owned();
    let private = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let private: Value = private.json().await.unwrap();
    let private_id = private["id"].as_str().unwrap().to_owned();
    let code = private["invite_code"].as_str().unwrap().to_owned();
    let lobby = app.json_as(&players[1], "/v1/matches").await;
    let listed: Vec<&str> = lobby["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        [open_id.as_str()],
        "private matches are not in the lobby"
    );
    assert_problem(
        app.get_as(&players[1], &format!("/v1/matches/{private_id}"))
            .await,
        404,
        "not_found",
    )
    .await;
    let wrong = app
        .post_as(
            &players[1],
            &format!("/v1/matches/{private_id}/join"),
            &json!({"invite_code": "nope"}),
        )
        .await;
    assert_problem(wrong, 404, "not_found").await;
    let joined = app
        .post_as(
            &players[1],
            &format!("/v1/matches/{private_id}/join"),
            &json!({"invite_code": code}),
        )
        .await;
    assert_eq!(joined.status(), 200);
    // Full: it started by itself; the player to move finds it in their inbox.
    let summary = app
        .json_as(&players[0], &format!("/v1/matches/{private_id}"))
        .await;
    assert_eq!(summary["status"], "playing");
    // With the match cached by a player's view, an outsider still cannot see it.
    app.json_as(&players[0], &format!("/v1/matches/{private_id}/view"))
        .await;
    let outsider = app
        .get_as(&players[2], &format!("/v1/matches/{private_id}/view"))
        .await;
    assert_problem(outsider, 404, "not_found").await;
    let outsider_move = app
        .post_as(
            &players[2],
            &format!("/v1/matches/{private_id}/moves"),
            &json!({"expected_version": summary["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_problem(outsider_move, 404, "not_found").await;
    let turn = summary["turn"].as_u64().unwrap() as usize;
    let inbox = app.json_as(&players[turn], "/v1/matches?turn=mine").await;
    assert_eq!(inbox["matches"][0]["id"], private_id.as_str());
    let waiting = app
        .json_as(&players[1 - turn], "/v1/matches?turn=mine")
        .await;
    assert!(waiting["matches"].as_array().unwrap().is_empty());
    let mine = app
        .json_as(&players[0], "/v1/matches?mine=true&limit=1")
        .await;
    assert_eq!(mine["matches"].as_array().unwrap().len(), 1);
    let cursor = mine["next_cursor"].as_str().unwrap();
    let next = app
        .json_as(
            &players[0],
            &format!("/v1/matches?mine=true&limit=1&cursor={cursor}"),
        )
        .await;
    assert_eq!(next["matches"].as_array().unwrap().len(), 1);
    assert_ne!(next["matches"][0]["id"], mine["matches"][0]["id"]);
    // Leaving before the start frees the seat; after the start it is resigning.
    app.post_as(
        &players[2],
        &format!("/v1/matches/{open_id}/join"),
        &json!({}),
    )
    .await;
    assert_eq!(
        app.post_as(
            &players[2],
            &format!("/v1/matches/{open_id}/leave"),
            &json!({})
        )
        .await
        .status(),
        204
    );
    let summary = app
        .json_as(&players[0], &format!("/v1/matches/{open_id}"))
        .await;
    assert_eq!(summary["seats"].as_array().unwrap().len(), 1);
    let leave_private = format!("/v1/matches/{private_id}/leave");
    let resigned = app.post_as(&players[1], &leave_private, &json!({})).await;
    assert_eq!(resigned.status(), 204);
    let summary = app
        .json_as(&players[0], &format!("/v1/matches/{private_id}"))
        .await;
    assert_eq!(summary["status"], "finished", "the last seat in wins");
    assert_eq!(summary["result"]["ended_by"], "resigned");
    assert_eq!(summary["result"]["winners"][0]["username"], "player0");
    let over = app.post_as(&players[1], &leave_private, &json!({})).await;
    assert_problem(over, 409, "match_started").await;
    let bad_rules = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"rules": {"preset": "standard", "draw": "sometimes"}}),
        )
        .await;
    let body = assert_problem(bad_rules, 422, "invalid_rules").await;
    assert_eq!(body["field"], "draw");
    let too_many = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 7}))
        .await;
    assert_eq!(
        assert_problem(too_many, 422, "invalid_rules").await["field"],
        "seats"
    );
}

#[tokio::test]
async fn views_carry_etags_and_long_polls_wake_on_moves() {
    let app = spawn_app().await;
    let (players, id) = standard_match(&app).await;
    let response = app
        .get_as(&players[0], &format!("/v1/matches/{id}/view"))
        .await;
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let view: Value = response.json().await.unwrap();
    let again = app
        .client
        .get(format!("{}/v1/matches/{id}/view", app.address))
        .bearer_auth(&players[0].token)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    let version = view["version"].as_i64().unwrap();
    // While the match runs, a replay is the player's own view at that version, to the byte.
    let replayed = app
        .json_as(
            &players[0],
            &format!("/v1/matches/{id}/replay?at={version}"),
        )
        .await;
    assert_eq!(replayed, view);
    let turn = view["turn"].as_u64().unwrap() as usize;
    let poll_path = format!("/v1/matches/{id}/events?after={version}&wait=20");
    let poll = app.get_as(&players[1 - turn], &poll_path);
    let mover = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        app.post_as(
            &players[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": version, "action": {"type": "end_turn"}}),
        )
        .await
    };
    let (polled, moved) = tokio::join!(poll, mover);
    assert_eq!(moved.status(), 200);
    let polled: Value = polled.json().await.unwrap();
    let events = polled["events"].as_array().unwrap();
    assert!(!events.is_empty(), "the long-poll woke with the move");
    // The other seat's draw comes without its cards.
    let drawn = events
        .iter()
        .find(|logged| logged["event"]["type"] == "cards_drawn")
        .unwrap();
    assert!(drawn["event"].get("cards").is_none());
}

#[tokio::test]
async fn a_restart_changes_nothing_and_another_process_streams_moves_made_elsewhere() {
    let app = spawn_app().await;
    let (players, id) = standard_match(&app).await;
    let before = app
        .json_as(&players[0], &format!("/v1/matches/{id}/view"))
        .await;
    // A second server process on the same database: a restart, or a second node.
    let (_, second) = start(app.settings.clone()).await;
    let on_second = json_of(
        app.client
            .get(format!("{second}/v1/matches/{id}/view"))
            .bearer_auth(&players[0].token),
    )
    .await;
    assert_eq!(on_second, before);
    // A stream held on the second process sees a move made through the first (SQLite has a
    // single process per database file, so there the stream is opened on the first).
    let stream_base = if app.database.postgres_name().is_some() {
        second.clone()
    } else {
        app.address.clone()
    };
    let version = before["version"].as_i64().unwrap();
    let mut stream = app
        .client
        .get(format!("{stream_base}/v1/matches/{id}/stream"))
        .bearer_auth(&players[0].token)
        .header("Last-Event-ID", version.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let turn = before["turn"].as_u64().unwrap() as usize;
    let view = app
        .json_as(&players[turn], &format!("/v1/matches/{id}/view"))
        .await;
    let moved = app
        .post_as(
            &players[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_eq!(moved.status(), 200);
    let moved_version = moved.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap();
    let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), stream.chunk())
        .await
        .expect("an event within 10 s")
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&chunk);
    assert!(
        text.starts_with(&format!("id: {}\n", version + 1)),
        "{text}"
    );
    // The second process had the match cached; the move made through the first reaches it
    // by NOTIFY, so its next views show the new version (PostgreSQL: several processes).
    if app.database.postgres_name().is_some() {
        let moved_to = moved_version;
        let mut seen = 0;
        for _ in 0..50 {
            let view = json_of(
                app.client
                    .get(format!("{second}/v1/matches/{id}/view"))
                    .bearer_auth(&players[0].token),
            )
            .await;
            seen = view["version"].as_i64().unwrap();
            if seen >= moved_to {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(
            seen >= moved_to,
            "the second process still shows version {seen}"
        );
    }
}

/// The view tells a client everything it needs without another request: the rules, how the
/// server runs the table, a turn number that moves with every turn (also one the server ended
/// by itself), and `legal_actions` as a list, empty off turn.
#[tokio::test]
async fn the_view_tells_a_client_what_it_needs() {
    let app = spawn_app().await;
    let players = players(&app, 2).await;
    let id = full_match(
        &app,
        &players,
        json!({"preset": "draw-first", "hand_size": 5}),
    )
    .await;
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    let (turn, first) = view_of_turn(&app, &players, &id).await;
    assert_eq!(first["rules"], summary["rules"]);
    assert_eq!(first["auto_end_turn"], true);
    assert_eq!(first["hints"], true);
    // Usually 1; more when the server ended forced first turns by itself (a random deal).
    let first_turn = first["turn_number"].as_u64().unwrap();
    assert!(first_turn >= 1, "{first}");
    assert_eq!(first_turn, turns_begun(&app, &players[0], &id).await);
    let other = app
        .json_as(&players[1 - turn], &format!("/v1/matches/{id}/view"))
        .await;
    assert_eq!(other["legal_actions"], json!([]), "a list, empty off turn");
    let ended = app
        .post_as(
            &players[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": first["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_eq!(ended.status(), 200);
    let ended: Value = ended.json().await.unwrap();
    let turns = ended["turn_number"].as_u64().unwrap();
    assert!(turns > first_turn, "{ended}");
    assert_eq!(
        turns,
        turns_begun(&app, &players[0], &id).await,
        "one number per turn begun"
    );
}

/// How many `turn_started` events the match's log holds.
async fn turns_begun(app: &TestApp, player: &Player, id: &str) -> u64 {
    let events = app
        .json_as(player, &format!("/v1/matches/{id}/events?after=0"))
        .await;
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|logged| logged["event"]["type"] == "turn_started")
        .count() as u64
}
