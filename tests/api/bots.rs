//! Bots at the table through the API: solo play of every preset, bots for free seats, hints,
//! and two processes sharing the bots' turns.

use std::time::Duration;

use kings_corner::matches::export::{MatchExport, verify};
use kings_corner::matches::log::{Entry, Note};
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, keep_as_fixture, players, shift_times_from, spawn_app,
    start_process,
};

/// Creates a match of `seats` with `bots` after the creator; answers its summary.
async fn create_with_bots(app: &TestApp, creator: &Player, body: Value) -> Value {
    let created = app.post_as(creator, "/v1/matches", &body).await;
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
    created.json().await.unwrap()
}

/// The action a simple person would take: a card if one can be played, else draw or end.
fn simple_choice(legal: &[Value]) -> Value {
    let of_type = |kind: &str| legal.iter().find(|action| action["type"] == kind).cloned();
    of_type("play")
        .or_else(|| of_type("draw"))
        .or_else(|| of_type("end_turn"))
        .unwrap_or_else(|| legal[0].clone())
}

/// Plays `player`'s seat to the end of the match with [`simple_choice`], waiting on the feed
/// for the bots; answers the final view.
async fn play_to_the_end(app: &TestApp, player: &Player, id: &str) -> Value {
    for _ in 0..5_000 {
        let view = app.json_as(player, &format!("/v1/matches/{id}/view")).await;
        if view["status"] != "playing" {
            return view;
        }
        if view["turn"] == view["your_seat"] {
            let legal = view["legal_actions"].as_array().unwrap();
            let moved = app
                .post_as(
                    player,
                    &format!("/v1/matches/{id}/moves"),
                    &json!({"expected_version": view["version"], "action": simple_choice(legal)}),
                )
                .await;
            assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
        } else {
            // A bot's turn: its moves arrive on the feed.
            let version = view["version"].as_i64().unwrap();
            let page = app
                .json_as(
                    player,
                    &format!("/v1/matches/{id}/events?after={version}&wait=10"),
                )
                .await;
            assert!(
                !page["events"].as_array().unwrap().is_empty(),
                "a bot answered within 10 seconds (match {id}, version {version})"
            );
        }
    }
    panic!("match {id} did not end");
}

async fn export_verifies(app: &TestApp, player: &Player, id: &str, fixture: Option<&str>) {
    let export = app
        .json_as(player, &format!("/v1/matches/{id}/export"))
        .await;
    if let Some(name) = fixture {
        keep_as_fixture(name, &export);
    }
    let export: MatchExport = serde_json::from_value(export).unwrap();
    verify(&export).expect("a match with bots verifies");
}

/// One account against 1–5 bots of mixed levels, every preset, to the end of the match.
#[tokio::test]
async fn solo_play_against_one_to_five_bots_in_every_preset() {
    let app = spawn_app().await;
    let me = players(&app, 1).await.remove(0);
    let levels = ["expert", "basic", "random", "expert", "basic"];
    for preset in ["standard", "draw-first", "foundations", "night-one"] {
        for bots in 1..=5usize {
            // Whole matches to 50 points at big tables are long: one of them plays to 50, the
            // others to the end of their first hand, which ends their match.
            let rules = if bots == 1 || matches!(preset, "foundations" | "night-one") {
                json!({"preset": preset})
            } else {
                json!({"preset": preset, "game_end": {"hands": 1}})
            };
            let bot_seats: Vec<Value> = levels[..bots]
                .iter()
                .map(|level| json!({"level": level}))
                .collect();
            let created = create_with_bots(
                &app,
                &me,
                json!({"rules": rules, "seats": bots + 1, "bots": bot_seats}),
            )
            .await;
            assert_eq!(
                created["status"], "playing",
                "a table of bots starts at once"
            );
            for (seat, level) in levels[..bots].iter().enumerate() {
                assert_eq!(created["seats"][seat + 1]["bot"], *level);
                assert_eq!(created["seats"][seat + 1]["username"], "[bot]");
            }
            assert_eq!(created["seats"][0]["bot"], Value::Null);
            let id = created["id"].as_str().unwrap();
            let end = play_to_the_end(&app, &me, id).await;
            assert_eq!(end["status"], "finished", "{preset} with {bots} bots");
            let fixture = format!("preset-{preset}");
            export_verifies(&app, &me, id, (bots == 1).then_some(fixture.as_str())).await;
        }
    }
    let done = app.matches.bot_statistics();
    assert!(done.actions > 100, "{done:?}");
    assert_eq!(done.lost_races, 0, "{done:?}");
}

/// A seated player fills free seats with bots; the last one starts the match; the summary
/// shows them; only seated players add bots, and never more than the seats.
#[tokio::test]
async fn bots_fill_free_seats_and_show_in_summaries() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let too_many = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "bots": [{"level": "basic"}, {"level": "basic"}]}),
        )
        .await;
    let refused = assert_problem(too_many, 422, "too_many_bots").await;
    assert_eq!(refused["field"], "bots");
    let unknown = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "bots": [{"level": "grandmaster"}]}),
        )
        .await;
    assert_eq!(unknown.status(), 422);

    let created = create_with_bots(&app, &people[0], json!({"seats": 4})).await;
    let id = created["id"].as_str().unwrap();
    let bots = format!("/v1/matches/{id}/bots");
    let stranger = app
        .post_as(&people[1], &bots, &json!({"level": "expert"}))
        .await;
    assert_problem(stranger, 403, "not_a_player").await;
    let added = app
        .post_as(&people[0], &bots, &json!({"level": "expert"}))
        .await;
    assert_eq!(added.status(), 200);
    let added: Value = added.json().await.unwrap();
    assert_eq!(added["status"], "open");
    assert_eq!(
        added["seats"][1],
        json!({"seat": 1, "username": "[bot]", "bot": "expert"})
    );
    let joined = app
        .post_as(&people[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200);
    // The other person may add the last bot: that deals the first hand.
    let last = app
        .post_as(&people[1], &bots, &json!({"level": "random"}))
        .await;
    let last: Value = last.json().await.unwrap();
    assert_eq!(last["status"], "playing");
    assert_eq!(last["seats"][3]["bot"], "random");
    let full = app
        .post_as(&people[0], &bots, &json!({"level": "basic"}))
        .await;
    assert_problem(full, 409, "match_started").await;

    // A match left by its last person is gone, bots and all.
    let lonely = create_with_bots(
        &app,
        &people[0],
        json!({"seats": 3, "bots": [{"level": "basic"}]}),
    )
    .await;
    let lonely = lonely["id"].as_str().unwrap();
    let left = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{lonely}/leave"),
            &json!({}),
        )
        .await;
    assert_eq!(left.status(), 204);
    let gone = app
        .get_as(&people[0], &format!("/v1/matches/{lonely}"))
        .await;
    assert_problem(gone, 404, "not_found").await;
}

/// A hint is one of the caller's legal actions, with a reason, for their seat only, on their
/// turn, at tables that allow hints.
#[tokio::test]
async fn hints_suggest_a_legal_action_to_the_seat_to_move() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let created = create_with_bots(
        &app,
        &people[0],
        json!({"seats": 2, "bots": [{"level": "basic"}], "auto_end_turn": false}),
    )
    .await;
    let id = created["id"].as_str().unwrap();
    let hint_path = format!("/v1/matches/{id}/hint");
    let watcher = app.get_as(&people[1], &hint_path).await;
    assert_problem(watcher, 403, "not_a_player").await;
    let mut hinted = 0;
    for _ in 0..200 {
        let view = app
            .json_as(&people[0], &format!("/v1/matches/{id}/view"))
            .await;
        if view["status"] != "playing" || hinted >= 5 {
            break;
        }
        if view["turn"] != view["your_seat"] {
            let off_turn = app.get_as(&people[0], &hint_path).await;
            if off_turn.status() == 422 {
                assert_problem(off_turn, 422, "not_your_turn").await;
            }
            let version = view["version"].as_i64().unwrap();
            app.json_as(
                &people[0],
                &format!("/v1/matches/{id}/events?after={version}&wait=10"),
            )
            .await;
            continue;
        }
        let hint = app.json_as(&people[0], &hint_path).await;
        assert_eq!(hint["version"], view["version"]);
        assert!(
            view["legal_actions"]
                .as_array()
                .unwrap()
                .contains(&hint["action"]),
            "{hint} not among {}",
            view["legal_actions"]
        );
        assert!(!hint["reason"].as_str().unwrap().is_empty());
        let moved = app
            .post_as(
                &people[0],
                &format!("/v1/matches/{id}/moves"),
                &json!({"expected_version": hint["version"], "action": hint["action"]}),
            )
            .await;
        assert_eq!(moved.status(), 200);
        hinted += 1;
    }
    assert_eq!(hinted, 5, "five hints taken");

    let quiet = create_with_bots(
        &app,
        &people[0],
        json!({"seats": 2, "bots": [{"level": "basic"}], "hints": false}),
    )
    .await;
    assert_eq!(quiet["hints"], false);
    let refused = app
        .get_as(
            &people[0],
            &format!("/v1/matches/{}/hint", quiet["id"].as_str().unwrap()),
        )
        .await;
    assert_problem(refused, 409, "hints_off").await;
}

/// Two processes on one PostgreSQL share the bots' turns: every match is played to its end,
/// and neither process ever plays a turn the other is playing (no action is decided for a
/// version already gone).
#[tokio::test]
async fn two_processes_play_each_bot_turn_once() {
    let app = spawn_app().await;
    if app.database.postgres_name().is_none() {
        return; // One SQLite file serves one process.
    }
    let (_, second, second_matches) = start_process(app.settings.clone(), app.clock.clone()).await;
    let me = &players(&app, 1).await[0];
    let hosts = [app.address.clone(), second];
    let host = |index: usize| hosts[index % 2].as_str();
    let mut ids = Vec::new();
    for index in 0..8 {
        let created = app
            .client
            .post(format!("{}/v1/matches", host(index)))
            .bearer_auth(&me.token)
            .json(&json!({"rules": {"game_end": {"hands": 2}}, "seats": 3,
                          "bots": [{"level": "basic"}, {"level": "random"}]}))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201);
        let created: Value = created.json().await.unwrap();
        ids.push(created["id"].as_str().unwrap().to_owned());
    }
    // The person resigns on their own turn (when no bot is thinking); the bots play on.
    for (index, id) in ids.iter().enumerate() {
        let get = |path: String| {
            app.client
                .get(format!("{}{path}", host(index)))
                .bearer_auth(&me.token)
                .send()
        };
        loop {
            let view: Value = get(format!("/v1/matches/{id}/view"))
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if view["turn"] == view["your_seat"] {
                let resigned = app
                    .client
                    .post(format!("{}/v1/matches/{id}/moves", host(index)))
                    .bearer_auth(&me.token)
                    .json(
                        &json!({"expected_version": view["version"], "action": {"type": "resign"}}),
                    )
                    .send()
                    .await
                    .unwrap();
                assert_eq!(resigned.status(), 200);
                break;
            }
            let version = view["version"].as_i64().unwrap();
            get(format!("/v1/matches/{id}/events?after={version}&wait=10"))
                .await
                .unwrap();
        }
    }
    let mut finished = 0;
    for _ in 0..300 {
        finished = 0;
        for id in &ids {
            let summary = app.json_as(me, &format!("/v1/matches/{id}")).await;
            finished += usize::from(summary["status"] == "finished");
        }
        if finished == ids.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(finished, ids.len(), "every match played to its end");
    for id in &ids {
        export_verifies(&app, me, id, None).await;
    }
    let (first, second) = (
        app.matches.bot_statistics(),
        second_matches.bot_statistics(),
    );
    assert!(first.actions + second.actions > 50, "{first:?} {second:?}");
    assert_eq!(
        first.lost_races + second.lost_races,
        0,
        "{first:?} {second:?}"
    );
}

/// With `on_timeout: bot`, the turn of a seat past its deadline is played by the `basic` bot:
/// the feed says so, then shows the bot's actions in that seat; the seat stays in and the
/// others play on. The export verifies; a stand-in moved before its deadline does not.
#[tokio::test]
async fn a_late_turn_is_played_by_a_bot_and_the_seat_stays_in() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let created = create_with_bots(
        &app,
        &people[0],
        // Turns the server ends by itself would hand the turn straight back to the late seat
        // when the other has nothing to play (seen once in 80 runs).
        json!({"seats": 2, "clock": {"turn_seconds": 60, "bank_seconds": 0}, "on_timeout": "bot",
               "auto_end_turn": false}),
    )
    .await;
    assert_eq!(created["clock"]["on_timeout"], "bot");
    let id = created["id"].as_str().unwrap();
    let joined = app
        .post_as(&people[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200);
    let view = app
        .json_as(&people[0], &format!("/v1/matches/{id}/view"))
        .await;
    let late = view["turn"].as_u64().unwrap();
    let before = view["version"].as_i64().unwrap();
    app.clock.advance(61);
    // Nobody reads: the sweeper of the clocks finds the late turn within a second or two.
    let mut events = Vec::new();
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let logged = app.db.events(id, before, 1_000).await.unwrap();
        if logged
            .iter()
            .any(|stored| stored.event.contains("turn_started"))
        {
            events = logged
                .iter()
                .map(|stored| serde_json::from_str::<Value>(&stored.event).unwrap())
                .collect();
            break;
        }
    }
    assert_eq!(
        events.first().map(|event| event["type"].clone()),
        Some(json!("bot_stood_in")),
        "{events:?}"
    );
    assert_eq!(events[0]["seat"], late);
    // The late turn ends with the bot's `end_turn`, or, rarely, with the bot going out.
    let turn_end = events
        .iter()
        .position(|event| event["type"] == "turn_ended" || event["type"] == "hand_ended")
        .unwrap_or_else(|| panic!("the bot ended the late turn: {events:?}"));
    let went_out = events[turn_end]["type"] == "hand_ended";
    if !went_out {
        assert_eq!(events[turn_end]["seat"], late, "{events:?}");
    }
    let view = app
        .json_as(&people[0], &format!("/v1/matches/{id}/view"))
        .await;
    assert_eq!(view["seats"][late as usize]["in_game"], true);
    if !went_out {
        assert_ne!(view["turn"], late);
    }
    // The other player resigns: the match ends and its log verifies.
    let other = &people[1 - late as usize];
    let resigned = app
        .post_as(
            other,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200);
    let export = app
        .json_as(other, &format!("/v1/matches/{id}/export"))
        .await;
    keep_as_fixture("stand-in", &export);
    let mut export: MatchExport = serde_json::from_value(export).unwrap();
    verify(&export).expect("a match with a bot's stand-in verifies");
    let stood_in = export
        .events
        .iter()
        .position(|logged| matches!(logged.event, Entry::Note(Note::BotStoodIn { .. })))
        .unwrap();
    shift_times_from(&mut export, stood_in, -30);
    let refused = verify(&export).unwrap_err();
    assert!(refused.contains("before its deadline"), "{refused}");
}

/// Resigning while bots are playing their turns (a run of quick writes) lands: the resignation
/// retries the races it loses instead of answering `409`.
#[tokio::test]
async fn resigning_among_busy_bots_lands() {
    let app = spawn_app().await;
    let people = players(&app, 1).await;
    for _ in 0..5 {
        let created = create_with_bots(
            &app,
            &people[0],
            json!({"seats": 6, "bots": [{"level": "random"}, {"level": "random"}, {"level": "random"},
                                        {"level": "random"}, {"level": "random"}]}),
        )
        .await;
        let id = created["id"].as_str().unwrap();
        let left = app
            .post_as(&people[0], &format!("/v1/matches/{id}/leave"), &json!({}))
            .await;
        assert_eq!(left.status(), 204, "{}", left.text().await.unwrap());
    }
}
