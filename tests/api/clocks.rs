//! Async play that survives absent players (issue 8): clocks, claims, forfeits, resignation and
//! abort through the API, time moved by the injected clock (and once by a real one).

use std::time::Duration;

use serde_json::{Value, json};

use kings_corner::matches::export::{MatchExport, verify};
use kings_corner::matches::log::Entry;
use kings_corner::rules::Event;
use kings_corner::time_source::parse_rfc3339;

use crate::helpers::{
    Player, TestApp, assert_problem, keep_as_fixture, players, seated_match, shift_times_from,
    spawn_app, spawn_app_with, start_with_clock,
};

/// A started match of `players` with this clock; its id.
async fn clocked_match(
    app: &TestApp,
    players: &[Player],
    clock: Value,
    on_timeout: &str,
) -> String {
    let body = json!({"seats": players.len(), "rules": {"game_end": {"hands": 50}},
                      "clock": clock, "on_timeout": on_timeout});
    seated_match(app, players, body).await
}

/// A server, two players and a match between them with a clock of `turn_seconds` a turn and
/// no bank.
async fn two_at_a_clock(turn_seconds: u32, on_timeout: &str) -> (TestApp, Vec<Player>, String) {
    let app = spawn_app().await;
    let players = players(&app, 2).await;
    let clock = json!({"turn_seconds": turn_seconds, "bank_seconds": 0});
    let id = clocked_match(&app, &players, clock, on_timeout).await;
    (app, players, id)
}

/// The other seat of a two-seat match claims the late seat to move, which ends the match; its
/// export.
async fn claimed_export(app: &TestApp, players: &[Player], id: &str) -> Value {
    let late = view(app, &players[0], id).await["turn"].as_u64().unwrap() as usize;
    let claimed = app
        .post_as(
            &players[1 - late],
            &format!("/v1/matches/{id}/claim"),
            &json!({}),
        )
        .await;
    assert_eq!(claimed.status(), 200, "{}", claimed.text().await.unwrap());
    app.json_as(&players[0], &format!("/v1/matches/{id}/export"))
        .await
}

async fn view(app: &TestApp, player: &Player, id: &str) -> Value {
    app.json_as(player, &format!("/v1/matches/{id}/view")).await
}

/// The events of the feed, as the player sees them.
async fn feed(app: &TestApp, player: &Player, id: &str) -> Vec<Value> {
    app.json_as(player, &format!("/v1/matches/{id}/events?after=0"))
        .await["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|logged| logged["event"].clone())
        .collect()
}

fn timeouts(events: &[Value]) -> Vec<u64> {
    events
        .iter()
        .filter(|event| event["type"] == "seat_out" && event["reason"] == "timeout")
        .map(|event| event["seat"].as_u64().unwrap())
        .collect()
}

/// Moves the seat to move once (its last legal action).
async fn play_once(app: &TestApp, players: &[Player], id: &str) -> Value {
    let turn = view(app, &players[0], id).await["turn"].as_u64().unwrap() as usize;
    let seen = view(app, &players[turn], id).await;
    let action = seen["legal_actions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let moved = app
        .post_as(
            &players[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": seen["version"], "action": action}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    moved.json().await.unwrap()
}

/// A seat's view asked for again at the same version is sent from the bytes kept with the
/// match's state (`matches/kept_views.rs`): the table as before, the clock as of now.
#[tokio::test]
async fn a_view_asked_again_shows_the_clock_of_now() {
    let app = spawn_app().await;
    // Only the test moves time: a second passing under load would move the banks.
    app.clock.freeze();
    let players = players(&app, 2).await;
    let id = clocked_match(
        &app,
        &players,
        json!({"turn_seconds": 60, "bank_seconds": 30}),
        "claim",
    )
    .await;
    let first = view(&app, &players[0], &id).await;
    let late = first["turn"].as_u64().unwrap() as usize;
    let mut seen = Vec::new();
    // The second asking keeps the view; the third and fourth are sent from it.
    for seconds in [1, 69, 21] {
        app.clock.advance(seconds);
        seen.push(view(&app, &players[0], &id).await);
    }
    assert_eq!(seen[1]["clock"]["banks"][late], 20, "70 s into a 60 s turn");
    assert_eq!(seen[1]["clock"]["claimable"], false);
    assert_eq!(seen[2]["clock"]["banks"][late], 0);
    assert_eq!(seen[2]["clock"]["claimable"], true);
    let table = |view: &Value| {
        let mut table = view.clone();
        table["clock"] = Value::Null;
        table
    };
    for later in &seen {
        assert_eq!(table(later), table(&first));
    }
}

/// A three-player match in which the player to move stops answering: before the deadline a
/// claim is refused; after it, another player claims, the late seat is out, and the two
/// others play on. Then, with two left, a claim ends the match with a winner.
#[tokio::test]
async fn a_late_player_is_claimed_and_the_others_play_on() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let id = clocked_match(
        &app,
        &players,
        json!({"turn_seconds": 60, "bank_seconds": 30}),
        "claim",
    )
    .await;
    let seen = view(&app, &players[0], &id).await;
    let late = seen["turn"].as_u64().unwrap() as usize;
    let clock = &seen["clock"];
    assert_eq!(clock["on_timeout"], "claim");
    assert_eq!(clock["banks"], json!([30, 30, 30]));
    assert_eq!(clock["claimable"], false);
    assert!(clock["deadline"].as_str().unwrap().ends_with('Z'));
    let claimer = (late + 1) % 3;
    let claim = format!("/v1/matches/{id}/claim");
    let early = app.post_as(&players[claimer], &claim, &json!({})).await;
    assert_problem(early, 409, "not_claimable").await;
    let own = app.post_as(&players[late], &claim, &json!({})).await;
    assert_problem(own, 409, "not_claimable").await;

    // 60 s of turn and 30 s of bank later, the deadline has passed; nothing happens by itself.
    app.clock.advance(91);
    let seen = view(&app, &players[claimer], &id).await;
    assert_eq!(seen["clock"]["claimable"], true);
    assert_eq!(seen["clock"]["banks"][late], 0);
    assert_eq!(
        seen["turn"].as_u64().unwrap() as usize,
        late,
        "no forfeit by itself"
    );
    let claimed = app.post_as(&players[claimer], &claim, &json!({})).await;
    assert_eq!(claimed.status(), 200, "{}", claimed.text().await.unwrap());
    let after: Value = claimed.json().await.unwrap();
    assert_eq!(after["seats"][late]["left"], "timeout");
    assert_eq!(after["status"], "playing");
    assert_ne!(after["turn"].as_u64().unwrap() as usize, late);
    assert_eq!(
        timeouts(&feed(&app, &players[claimer], &id).await),
        [late as u64]
    );
    let gone = app
        .post_as(
            &players[late],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": after["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_problem(gone, 422, "seat_out").await;
    // The two others play on.
    for _ in 0..3 {
        play_once(&app, &players, &id).await;
    }

    // With two left, the next late seat's claim ends the match.
    app.clock.advance(91);
    let turn = view(&app, &players[claimer], &id).await["turn"]
        .as_u64()
        .unwrap() as usize;
    let other = (0..3).find(|seat| *seat != turn && *seat != late).unwrap();
    let last = app.post_as(&players[other], &claim, &json!({})).await;
    assert_eq!(last.status(), 200);
    let summary = app
        .json_as(&players[other], &format!("/v1/matches/{id}"))
        .await;
    assert_eq!(summary["status"], "finished");
    assert_eq!(summary["result"]["ended_by"], "timeout");
    assert_eq!(summary["winners"], json!([other]));
    let history = app
        .json_as(&players[other], "/v1/matches?mine=true&status=finished")
        .await;
    assert_eq!(history["matches"][0]["id"], id.as_str());
    assert_eq!(
        history["matches"][0]["result"]["winners"][0]["username"],
        format!("player{other}")
    );
}

/// With `on_timeout: forfeit` the server forfeits a late seat by itself: the sweeper does it
/// unasked (nobody reads the match meanwhile), and a read finds it done; with two players the
/// match ends with a winner, and its export verifies.
#[tokio::test]
async fn with_forfeit_the_server_forfeits_late_seats_by_itself() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let id = clocked_match(
        &app,
        &players,
        json!({"turn_seconds": 60, "bank_seconds": 0}),
        "forfeit",
    )
    .await;
    let late = view(&app, &players[0], &id).await["turn"].as_u64().unwrap();
    app.clock.advance(61);
    // The sweeper runs every second: the forfeit is written without any request.
    let mut forfeited = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let version = app.db.match_by_id(&id).await.unwrap().unwrap();
        if version.turn_seat != Some(late as u8) {
            forfeited = true;
            break;
        }
    }
    assert!(forfeited, "the sweeper forfeited the late seat");
    assert_eq!(timeouts(&feed(&app, &players[0], &id).await), [late]);

    // Two players: a read forfeits the late one at once, and the match ends.
    let two = players_of(&players, &[0, 1]);
    let id = clocked_match(
        &app,
        &two,
        json!({"turn_seconds": 120, "bank_seconds": 0}),
        "forfeit",
    )
    .await;
    let late = view(&app, &two[0], &id).await["turn"].as_u64().unwrap() as usize;
    app.clock.advance(121);
    let seen = view(&app, &two[1 - late], &id).await;
    assert_eq!(seen["status"], "finished");
    assert_eq!(seen["winners"], json!([1 - late]));
    let export = app
        .json_as(&two[0], &format!("/v1/matches/{id}/export"))
        .await;
    keep_as_fixture("forfeit", &export);
    let export: MatchExport = serde_json::from_value(export).unwrap();
    assert!(export.clock.is_some());
    verify(&export).expect("an export with a timeout verifies");
}

/// A read never writes to a log: a view that finds a late seat at a table that forfeits by
/// itself wakes the clock's worker and waits for it, so the forfeit is there at once even
/// when the worker's own sweep is an hour away; the summary, read next, agrees with it.
#[tokio::test]
async fn a_read_of_a_late_seat_is_answered_by_the_clocks_worker() {
    let app = spawn_app_with(|settings| settings.clock_sweep_seconds = 3600).await;
    let players = players(&app, 2).await;
    let id = clocked_match(
        &app,
        &players,
        json!({"turn_seconds": 120, "bank_seconds": 0}),
        "forfeit",
    )
    .await;
    let late = view(&app, &players[0], &id).await["turn"].as_u64().unwrap() as usize;
    // The worker's first sweep ran at the start; the next is an hour away.
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.clock.advance(121);
    let seen = view(&app, &players[1 - late], &id).await;
    assert_eq!(seen["status"], "finished", "{seen}");
    assert_eq!(seen["winners"], json!([1 - late]));
    assert_eq!(
        timeouts(&feed(&app, &players[late], &id).await),
        [late as u64]
    );
    let summary = app
        .json_as(&players[late], &format!("/v1/matches/{id}"))
        .await;
    assert_eq!(summary["result"]["ended_by"], "timeout");
}

fn players_of(players: &[Player], seats: &[usize]) -> Vec<Player> {
    seats
        .iter()
        .map(|seat| Player {
            token: players[*seat].token.clone(),
        })
        .collect()
}

/// `verify` refuses a log whose timeout was written before its deadline, even when its
/// hashes were made to fit.
#[tokio::test]
async fn verify_refuses_a_timeout_written_before_its_deadline() {
    let (app, players, id) = two_at_a_clock(100, "claim").await;
    app.clock.advance(101);
    let export = claimed_export(&app, &players, &id).await;
    let mut forged: MatchExport = serde_json::from_value(export).unwrap();
    verify(&forged).unwrap();
    // Move the timeout 50 s earlier and rechain every hash from there.
    let out = forged
        .events
        .iter()
        .position(|logged| matches!(logged.event, Entry::Game(Event::SeatOut { .. })))
        .unwrap();
    shift_times_from(&mut forged, out, -50);
    let refused = verify(&forged).unwrap_err();
    assert!(refused.contains("before its deadline"), "{refused}");
}

/// A real two-second clock, once: nobody moves, nobody reads, and the late seat is out.
#[tokio::test]
async fn a_real_two_second_clock_forfeits_by_itself() {
    let (app, players, id) = two_at_a_clock(2, "forfeit").await;
    let mut finished = false;
    for _ in 0..80 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let row = app.db.match_by_id(&id).await.unwrap().unwrap();
        if row.status == kings_corner::model::MatchStatus::Finished {
            finished = true;
            break;
        }
    }
    assert!(finished, "forfeited within 8 s of a 2 s deadline");
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary["result"]["ended_by"], "timeout");
}

/// Two server processes on one PostgreSQL, both sweeping: each late seat is forfeited
/// exactly once.
#[tokio::test]
async fn two_processes_forfeit_each_late_seat_once() {
    let app = spawn_app_with(|_| {}).await;
    if app.database.postgres_name().is_none() {
        return; // One SQLite file serves one process.
    }
    let (_, _second) = start_with_clock(app.settings.clone(), app.clock.clone()).await;
    let players = players(&app, 3).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        ids.push(
            clocked_match(
                &app,
                &players,
                json!({"turn_seconds": 60, "bank_seconds": 0}),
                "forfeit",
            )
            .await,
        );
    }
    app.clock.advance(61);
    let mut done = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut all = true;
        for id in &ids {
            let events = app.db.events(id, 0, 10_000).await.unwrap();
            all &= events
                .iter()
                .any(|stored| stored.event.contains(r#""type":"seat_out""#));
        }
        if all {
            done = true;
            break;
        }
    }
    assert!(done, "every late seat was forfeited");
    tokio::time::sleep(Duration::from_secs(2)).await;
    for id in &ids {
        let events = app.db.events(id, 0, 10_000).await.unwrap();
        let forfeits = events
            .iter()
            .filter(|stored| stored.event.contains(r#""reason":"timeout""#))
            .count();
        assert_eq!(forfeits, 1, "match {id}");
    }
}

/// A reminder is written to the feed once, when a tenth of the turn's time is left.
#[tokio::test]
async fn a_deadline_near_reminder_is_written_once() {
    let (app, players, id) = two_at_a_clock(100, "claim").await;
    app.clock.advance(91);
    let mut reminded = Vec::new();
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        reminded = feed(&app, &players[0], &id)
            .await
            .into_iter()
            .filter(|event| event["type"] == "deadline_near")
            .collect();
        if !reminded.is_empty() {
            break;
        }
    }
    assert_eq!(reminded.len(), 1, "a reminder");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let again = feed(&app, &players[0], &id)
        .await
        .into_iter()
        .filter(|event| event["type"] == "deadline_near")
        .count();
    assert_eq!(again, 1, "written once");

    // Past the deadline the other seat claims: the match ends, and its log verifies.
    app.clock.advance(10);
    let export = claimed_export(&app, &players, &id).await;
    keep_as_fixture("reminder-and-claim", &export);
    let export: MatchExport = serde_json::from_value(export).unwrap();
    verify(&export).expect("a match with a reminder and a claim verifies");
}

/// Resignation and abort through `POST …/moves`: abort before the first action (the match
/// ends aborted, and exports and verifies); resign off turn and on turn.
#[tokio::test]
async fn resign_and_abort_at_every_stage() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let moves = |id: &str| format!("/v1/matches/{id}/moves");

    // Abort before anyone acts; refused once someone has. Turns are not ended automatically
    // here: a first seat dealt nothing to play would otherwise have its turn ended by the
    // server at once, and an ended turn closes the abort window (§7.2).
    let body = json!({"seats": 3, "rules": {"game_end": {"hands": 50}},
                      "clock": "correspondence_1d", "auto_end_turn": false});
    let id = seated_match(&app, &players, body).await;
    let seen = view(&app, &players[1], &id).await;
    assert_eq!(seen["can_abort"], true, "{seen:#}");
    assert_eq!(seen["clock"]["turn_seconds"], 86_400);
    let aborted = app
        .post_as(
            &players[1],
            &moves(&id),
            &json!({"expected_version": seen["version"], "action": {"type": "abort"}}),
        )
        .await;
    assert_eq!(aborted.status(), 200, "{}", aborted.text().await.unwrap());
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary["status"], "aborted");
    assert_eq!(summary["result"]["ended_by"], "aborted");
    let export = app
        .json_as(&players[2], &format!("/v1/matches/{id}/export"))
        .await;
    verify(&serde_json::from_value(export).unwrap()).expect("an aborted match verifies");

    let id = clocked_match(
        &app,
        &players,
        json!({"turn_seconds": 600, "bank_seconds": 600}),
        "claim",
    )
    .await;
    let after = play_once(&app, &players, &id).await;
    assert_eq!(after["can_abort"], false);
    let turn = view(&app, &players[0], &id).await["turn"].as_u64().unwrap() as usize;
    let late_abort = app
        .post_as(
            &players[turn],
            &moves(&id),
            &json!({"expected_version": after["version"], "action": {"type": "abort"}}),
        )
        .await;
    assert_problem(late_abort, 422, "too_late_to_abort").await;
    // Resign off turn: the turn stays.
    let off = (turn + 1) % 3;
    let seen = view(&app, &players[off], &id).await;
    let resigned = app
        .post_as(
            &players[off],
            &moves(&id),
            &json!({"expected_version": seen["version"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200);
    let resigned: Value = resigned.json().await.unwrap();
    assert_eq!(resigned["turn"].as_u64().unwrap() as usize, turn);
    assert_eq!(resigned["seats"][off]["left"], "resign");
    // Resign on turn: the last seat in wins at once.
    let resigned = app
        .post_as(
            &players[turn],
            &moves(&id),
            &json!({"expected_version": resigned["version"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200);
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    let winner = (0..3).find(|seat| *seat != turn && *seat != off).unwrap();
    assert_eq!(summary["winners"], json!([winner]));
    assert_eq!(summary["result"]["ended_by"], "resigned");
    let export = app
        .json_as(&players[0], &format!("/v1/matches/{id}/export"))
        .await;
    verify(&serde_json::from_value(export).unwrap()).expect("an export with resignations verifies");
}

/// The inbox lists matches waiting for the caller by deadline, soonest first, and shows it;
/// bad clocks are refused.
#[tokio::test]
async fn the_inbox_sorts_by_deadline_and_clocks_are_checked() {
    let app = spawn_app().await;
    let players = players(&app, 2).await;
    let mut ids = Vec::new();
    for clock in [
        json!({"turn_seconds": 3000, "bank_seconds": 0}),
        json!({"turn_seconds": 1000, "bank_seconds": 0}),
        json!({"turn_seconds": 2000, "bank_seconds": 0}),
    ] {
        let id = clocked_match(&app, &players, clock, "claim").await;
        // Give both players the turn in turn until seat 0 is to move.
        while view(&app, &players[0], &id).await["turn"] != 0 {
            play_once(&app, &players, &id).await;
        }
        ids.push(id);
    }
    let inbox = app.json_as(&players[0], "/v1/matches?turn=mine").await;
    let order: Vec<&str> = inbox["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|summary| summary["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, [ids[1].as_str(), &ids[2], &ids[0]]);
    assert!(inbox["matches"][0]["clock"]["deadline"].is_string());
    let page = app
        .json_as(&players[0], "/v1/matches?turn=mine&limit=2")
        .await;
    let cursor = page["next_cursor"].as_str().unwrap();
    let rest = app
        .json_as(
            &players[0],
            &format!("/v1/matches?turn=mine&limit=2&cursor={cursor}"),
        )
        .await;
    assert_eq!(rest["matches"][0]["id"], ids[0].as_str());

    for (clock, on_timeout) in [
        (json!("correspondence_2y"), "claim"),
        (json!({"turn_seconds": 0, "bank_seconds": 0}), "claim"),
        (
            json!({"turn_seconds": 60, "bank_seconds": 99_999_999}),
            "claim",
        ),
    ] {
        let refused = app
            .post_as(
                &players[0],
                "/v1/matches",
                &json!({"seats": 2, "clock": clock, "on_timeout": on_timeout}),
            )
            .await;
        assert_problem(refused, 422, "invalid_clock").await;
    }
    let no_clock = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "on_timeout": "forfeit"}),
        )
        .await;
    assert_problem(no_clock, 422, "invalid_clock").await;
}

async fn give_time(app: &TestApp, player: &Player, id: &str) -> reqwest::Response {
    app.post_as(player, &format!("/v1/matches/{id}/give-time"), &json!({}))
        .await
}

fn deadline_of(view: &Value) -> i64 {
    parse_rfc3339(view["clock"]["deadline"].as_str().unwrap()).unwrap()
}

/// Another seat gives the seat to move the table's time for a turn once more: its deadline
/// moves by as much (the forfeit comes then, not before), once a turn, never to oneself, never
/// once the deadline has passed, never at a table without a clock; the export verifies.
#[tokio::test]
async fn another_seat_gives_the_seat_to_move_more_time_once_a_turn() {
    let (app, players, id) = two_at_a_clock(600, "forfeit").await;
    let before = view(&app, &players[0], &id).await;
    let late = before["turn"].as_u64().unwrap() as usize;
    let other = &players[1 - late];

    assert_problem(
        give_time(&app, &players[late], &id).await,
        409,
        "time_not_givable",
    )
    .await;
    let given = give_time(&app, other, &id).await;
    assert_eq!(given.status(), 201);
    let given: Value = given.json().await.unwrap();
    assert_eq!(
        given["event"],
        json!({"type": "time_given", "seat": late, "by": 1 - late, "seconds": 600})
    );
    assert_eq!(given["seq"], before["version"].as_i64().unwrap() + 1);
    assert_problem(give_time(&app, other, &id).await, 409, "time_given_already").await;
    let after = view(&app, &players[late], &id).await;
    assert_eq!(deadline_of(&after), deadline_of(&before) + 600);
    assert_eq!(after["clock"]["banks"][late], 600);

    // Past the deadline it had: still in. Past the one it was given: forfeited.
    app.clock.advance(601);
    let seen = view(&app, other, &id).await;
    assert_eq!(
        (seen["status"].as_str(), seen["turn"].as_u64()),
        (Some("playing"), Some(late as u64))
    );
    app.clock.advance(600);
    let seen = view(&app, other, &id).await;
    assert_eq!(seen["status"], "finished");
    assert_eq!(seen["winners"], json!([1 - late]));
    let export: MatchExport = serde_json::from_value(
        app.json_as(other, &format!("/v1/matches/{id}/export"))
            .await,
    )
    .unwrap();
    verify(&export).expect("an export with time given verifies");

    // A deadline passed is the clock's to judge; a table without a clock has no time to give.
    let (app, players, id) = two_at_a_clock(60, "claim").await;
    let late = view(&app, &players[0], &id).await["turn"].as_u64().unwrap() as usize;
    app.clock.advance(61);
    assert_problem(
        give_time(&app, &players[1 - late], &id).await,
        409,
        "time_not_givable",
    )
    .await;
    let untimed = seated_match(&app, &players, json!({"seats": 2})).await;
    let to_move = view(&app, &players[0], &untimed).await["turn"]
        .as_u64()
        .unwrap() as usize;
    assert_problem(
        give_time(&app, &players[1 - to_move], &untimed).await,
        409,
        "time_not_givable",
    )
    .await;
}
