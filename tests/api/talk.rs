//! Table talk (issue 11): seated players' messages go into the log without making anybody's
//! move stale, reach the feed, the stream (also a spectator's) and the export, which still
//! verifies; bad, unauthorised and too frequent messages are refused and change nothing.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, keep_as_fixture, player, spawn_app, standard_match,
    view_of_turn,
};
use crate::matches::export_and_verify;

async fn say(app: &TestApp, player: &Player, id: &str, text: &str) -> reqwest::Response {
    app.post_as(
        player,
        &format!("/v1/matches/{id}/messages"),
        &json!({ "text": text }),
    )
    .await
}

#[tokio::test]
async fn talk_reaches_every_reader_and_never_makes_a_move_stale() {
    let app = spawn_app().await;
    let (people, id) = standard_match(&app).await;
    let (turn, view) = view_of_turn(&app, &people, &id).await;
    let version = view["version"].as_i64().unwrap();
    let waiting = &people[1 - turn];

    // A spectator without an account follows the public match's stream from here.
    let mut stream = app
        .client
        .get(format!(
            "{}/v1/matches/{id}/stream?after={version}",
            app.address
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);

    let said = say(&app, waiting, &id, "Good luck!\r\n<b>have fun</b>").await;
    assert_eq!(said.status(), 201);
    let said: Value = said.json().await.unwrap();
    assert_eq!(said["seq"], version + 1);
    assert_eq!(
        said["event"],
        json!({"type": "table_talk", "seat": 1 - turn, "text": "Good luck!\n<b>have fun</b>"})
    );

    // The seat to move still plays from the view it read before the talk.
    let action = view["legal_actions"][0].clone();
    let moved = app
        .post_as(
            &people[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": version, "action": action}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    // The version read before that move is now stale: the move changed the table.
    let (now_turn, now) = view_of_turn(&app, &people, &id).await;
    let stale = app
        .post_as(
            &people[now_turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": version, "action": now["legal_actions"][0]}),
        )
        .await;
    assert_problem(stale, 409, "version_conflict").await;

    let mut frames = String::new();
    while !frames.contains("table_talk") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
            .await
            .expect("the talk within 10 s")
            .unwrap()
            .expect("the stream goes on");
        frames.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(
        frames.contains(&format!("id: {}\nevent: table_talk\n", version + 1)),
        "{frames}"
    );

    for reader in &people {
        let feed = app
            .json_as(reader, &format!("/v1/matches/{id}/events?after={version}"))
            .await;
        assert_eq!(feed["events"][0], said);
    }

    // The match ends; the talk is in its export, which verifies; the closed log takes no more.
    let resigned = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{id}/moves"),
            &json!({
            "expected_version": 0, "action": {"type": "resign"}}),
        )
        .await;
    assert!(resigned.status() == 200 || resigned.status() == 409);
    app.post_as(&people[0], &format!("/v1/matches/{id}/leave"), &json!({}))
        .await;
    let export = app
        .json_as(&people[1], &format!("/v1/matches/{id}/export"))
        .await;
    keep_as_fixture("talk", &export);
    assert!(
        export["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["event"]["type"] == "table_talk")
    );
    export_and_verify(&app, &people[1], &id).await;
    assert_problem(say(&app, &people[1], &id, "gg").await, 422, "hand_over").await;
}

#[tokio::test]
async fn bad_unseated_and_too_frequent_talk_is_refused_and_writes_nothing() {
    let app = spawn_app().await;
    let (people, id) = standard_match(&app).await;
    let outsider = player(&app, "outsider").await;
    let version = |app: &TestApp| {
        let id = id.clone();
        let db = app.db.clone();
        async move { db.match_by_id(&id).await.unwrap().unwrap().version }
    };
    let before = version(&app).await;
    for (text, code) in [
        ("", "invalid_message"),
        (" \n ", "invalid_message"),
        ("ring\u{7}", "invalid_message"),
        (&"x".repeat(501), "invalid_message"),
    ] {
        assert_problem(say(&app, &people[0], &id, text).await, 422, code).await;
    }
    let extra = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{id}/messages"),
            &json!({"text": "hi", "html": true}),
        )
        .await;
    assert_problem(extra, 422, "invalid_body").await;
    assert_problem(
        say(&app, &outsider, &id, "hello").await,
        403,
        "not_a_player",
    )
    .await;
    let anonymous = app
        .post(
            &format!("/v1/matches/{id}/messages"),
            &json!({"text": "hello"}),
        )
        .await;
    assert_problem(anonymous, 401, "missing_token").await;
    assert_eq!(
        version(&app).await,
        before,
        "a refused message wrote nothing"
    );

    for index in 0..10 {
        let said = say(&app, &people[0], &id, &format!("message {index}")).await;
        assert_eq!(said.status(), 201);
    }
    let refused = say(&app, &people[0], &id, "one more").await;
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After: {wait}");
    assert_problem(refused, 429, "too_many_messages").await;
    // The other seat has its own pace; a minute later the first may talk again.
    assert_eq!(say(&app, &people[1], &id, "calm down").await.status(), 201);
    app.clock.advance(61);
    assert_eq!(say(&app, &people[0], &id, "sorry").await.status(), 201);
    assert_eq!(version(&app).await, before + 12);
}
