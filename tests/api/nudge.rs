//! Nudges (issue 17): another seat still in reminds the seat to move that the table waits, once
//! a turn and not before a quarter of the turn's time (an hour without a clock); the seat is
//! told by a `nudged` notification, the log keeps a `nudged` entry that makes no move stale, and
//! the export still verifies. Every refusal is named and writes nothing.

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, full_match, player, players, seated_match, spawn_app,
    version_seen_by, view_of_turn,
};
use crate::matches::export_and_verify;
use crate::notifications::{notifications_after, wait_for_notifications};

async fn nudge(app: &TestApp, player: &Player, id: &str) -> reqwest::Response {
    app.post_as(player, &format!("/v1/matches/{id}/nudge"), &json!({}))
        .await
}

#[tokio::test]
async fn a_nudge_tells_the_seat_to_move_once_a_turn_when_it_is_due() {
    let app = spawn_app().await;
    // The boundary is checked to the second: a real second ticking over must not move it.
    app.clock.freeze();
    let people = players(&app, 2).await;
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    let (turn, view) = view_of_turn(&app, &people, &id).await;
    let (to_move, waiting) = (&people[turn], &people[1 - turn]);
    let before = view["version"].as_i64().unwrap();

    // Without a clock the seat to move has an hour: until then, a nudge says when it may come.
    let early = nudge(&app, waiting, &id).await;
    let retry_after: u64 = early.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(retry_after, 3600);
    assert_problem(early, 409, "nudge_too_early").await;
    app.clock.advance(3599);
    assert_problem(nudge(&app, waiting, &id).await, 409, "nudge_too_early").await;
    app.clock.advance(1);

    // Nobody nudges themselves, and only a seated player nudges at all.
    assert_problem(nudge(&app, to_move, &id).await, 409, "not_nudgeable").await;
    let stranger = player(&app, "stranger").await;
    assert_problem(nudge(&app, &stranger, &id).await, 403, "not_a_player").await;
    let anonymous = app
        .client
        .post(format!("{}/v1/matches/{id}/nudge", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert_eq!(
        version_seen_by(&app, waiting, &id).await,
        before,
        "refusals write nothing"
    );

    // Due: the nudge is in the log and told to the seat to move, and to nobody else.
    let told_before = notifications_after(&app, to_move, 0).await.len();
    let nudged = nudge(&app, waiting, &id).await;
    assert_eq!(nudged.status(), 201, "{}", nudged.text().await.unwrap());
    let nudged: Value = nudged.json().await.unwrap();
    assert_eq!(nudged["seq"], before + 1);
    assert_eq!(
        nudged["event"],
        json!({"type": "nudged", "seat": turn, "by": 1 - turn})
    );
    // The relay numbers notifications into the account's stream just after the commit.
    let told = wait_for_notifications(&app, to_move, told_before + 1).await;
    assert_eq!(told.len(), told_before + 1);
    let last = told.last().unwrap();
    assert_eq!(last["type"], "nudged");
    assert_eq!(
        last["data"],
        json!({"match_id": id, "version": before + 1, "seat": turn, "by": 1 - turn})
    );
    assert!(
        notifications_after(&app, waiting, 0)
            .await
            .iter()
            .all(|notification| notification["type"] != "nudged"),
        "the nudging seat is not told"
    );
    let events = app
        .json_as(waiting, &format!("/v1/matches/{id}/events?after={before}"))
        .await;
    assert_eq!(events["events"][0]["event"]["type"], "nudged");

    // Once a turn.
    app.clock.advance(86_400);
    assert_problem(nudge(&app, waiting, &id).await, 409, "already_nudged").await;

    // The nudge changes nothing at the table: a move read before it is still current.
    let action = view["legal_actions"][0].clone();
    let moved = app
        .post_as(
            to_move,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": before, "action": action}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());

    // The match ends; its export, nudge and all, verifies.
    let resigned = app
        .post_as(
            waiting,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": version_seen_by(&app, waiting, &id).await,
                    "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200, "{}", resigned.text().await.unwrap());
    assert_problem(nudge(&app, waiting, &id).await, 422, "hand_over").await;
    export_and_verify(&app, waiting, &id).await;
}

/// With a clock, a quarter of the turn's time; a new turn may be nudged again.
#[tokio::test]
async fn with_a_clock_a_quarter_of_the_turn_and_each_turn_anew() {
    let app = spawn_app().await;
    app.clock.freeze();
    let people = players(&app, 2).await;
    let clock = json!({"turn_seconds": 400, "bank_seconds": 0});
    let id = seated_match(&app, &people, json!({"seats": 2, "clock": clock})).await;

    for _ in 0..2 {
        let (turn, view) = view_of_turn(&app, &people, &id).await;
        let waiting = &people[1 - turn];
        app.clock.advance(99);
        let early = nudge(&app, waiting, &id).await;
        assert_eq!(early.headers()["retry-after"], "1");
        assert_problem(early, 409, "nudge_too_early").await;
        app.clock.advance(1);
        assert_eq!(nudge(&app, waiting, &id).await.status(), 201);
        assert_problem(nudge(&app, waiting, &id).await, 409, "already_nudged").await;
        // The seat to move ends its turn: the other seat's turn may be nudged anew.
        let mut version = view["version"].as_i64().unwrap();
        loop {
            let view = app
                .json_as(&people[turn], &format!("/v1/matches/{id}/view"))
                .await;
            if view["turn"] != json!(turn) {
                break;
            }
            let actions = view["legal_actions"].as_array().unwrap();
            let action = actions
                .iter()
                .find(|action| action["type"] == "end_turn" || action["type"] == "draw")
                .unwrap_or(&actions[0]);
            let moved = app
                .post_as(
                    &people[turn],
                    &format!("/v1/matches/{id}/moves"),
                    &json!({"expected_version": version, "action": action}),
                )
                .await;
            assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
            version = moved.json::<Value>().await.unwrap()["version"]
                .as_i64()
                .unwrap();
        }
    }
}
