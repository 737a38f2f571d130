//! Quick pairing (issue 21): seeks seated together in a new match that starts at once, told by
//! `match_started`; withdrawn, expired, capped, refused when they cannot be made; bots after
//! a wait; and exactly once under concurrent seeks and withdrawals from two processes.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, players, spawn_app, spawn_app_with, start_process,
};
use crate::notifications::wait_for_notifications;

async fn seek(app: &TestApp, player: &Player, body: Value) -> Value {
    let made = app.post_as(player, "/v1/seeks", &body).await;
    assert_eq!(made.status(), 201, "{}", made.text().await.unwrap());
    made.json().await.unwrap()
}

async fn withdraw(app: &TestApp, address: &str, player: &Player, id: &str) -> reqwest::Response {
    app.client
        .delete(format!("{address}/v1/seeks/{id}"))
        .bearer_auth(&player.token)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn two_seeks_for_the_same_table_start_a_match_and_tell_both() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let table = json!({"preset": "standard", "seats": 2, "clock": "correspondence_1d"});
    let first = seek(&app, &people[0], table.clone()).await;
    assert_eq!(first["status"], "open");
    assert_eq!(first["clock"]["turn_seconds"], 86_400);
    // Another kind of table does not pair with it.
    let other = seek(&app, &people[2], json!({"preset": "standard", "seats": 2})).await;
    assert_eq!(other["status"], "open");
    let second = seek(&app, &people[1], table).await;
    assert_eq!(second["status"], "matched", "{second}");
    let match_id = second["match_id"].as_str().unwrap();
    let first = app
        .json_as(
            &people[0],
            &format!("/v1/seeks/{}", first["id"].as_str().unwrap()),
        )
        .await;
    assert_eq!(first["status"], "matched");
    assert_eq!(first["match_id"], match_id);

    let summary = app
        .json_as(&people[0], &format!("/v1/matches/{match_id}"))
        .await;
    assert_eq!(summary["status"], "playing");
    assert_eq!(summary["clock"]["turn_seconds"], 86_400, "{summary}");
    let seated: BTreeSet<&str> = summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["username"].as_str().unwrap())
        .collect();
    assert_eq!(seated, BTreeSet::from(["player0", "player1"]));
    for person in &people[..2] {
        let told = wait_for_notifications(&app, person, 1).await;
        assert!(
            told.iter().any(|notice| notice["type"] == "match_started"
                && notice["data"]["match_id"] == match_id),
            "{told:?}"
        );
        let view = app
            .json_as(person, &format!("/v1/matches/{match_id}/view"))
            .await;
        assert!(view["your_seat"].is_u64(), "{view}");
    }

    let listed = app.json_as(&people[1], "/v1/me/seeks").await;
    assert_eq!(listed["seeks"].as_array().unwrap().len(), 1);
    assert_eq!(listed["seeks"][0]["match_id"], match_id);
    // A seated seek cannot be withdrawn; another's seek is nobody's business.
    let id = second["id"].as_str().unwrap();
    let refused = withdraw(&app, &app.address, &people[1], id).await;
    let problem = assert_problem(refused, 409, "seek_matched").await;
    assert!(problem["detail"].as_str().unwrap().contains(match_id));
    let theirs = app.get_as(&people[2], &format!("/v1/seeks/{id}")).await;
    assert_problem(theirs, 404, "seek_not_found").await;
    let theirs = withdraw(&app, &app.address, &people[2], id).await;
    assert_problem(theirs, 404, "seek_not_found").await;
}

#[tokio::test]
async fn a_withdrawn_or_expired_seek_is_never_seated() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let table = json!({"preset": "foundations", "seats": 2, "expires_in_seconds": 60});
    let withdrawn = seek(&app, &people[0], table.clone()).await;
    let id = withdrawn["id"].as_str().unwrap();
    let answer = withdraw(&app, &app.address, &people[0], id).await;
    assert_eq!(answer.status(), 200);
    let answer: Value = answer.json().await.unwrap();
    assert_eq!(answer["status"], "cancelled");
    assert!(answer["ended_at"].is_string());
    // Withdrawn, it is gone.
    let again = withdraw(&app, &app.address, &people[0], id).await;
    assert_problem(again, 404, "seek_not_found").await;
    let gone = app.get_as(&people[0], &format!("/v1/seeks/{id}")).await;
    assert_problem(gone, 404, "seek_not_found").await;
    let listed = app.json_as(&people[0], "/v1/me/seeks").await;
    assert_eq!(listed["seeks"], json!([]));

    let waiting = seek(&app, &people[1], table.clone()).await;
    assert_eq!(waiting["status"], "open", "the withdrawn seek took no seat");
    app.clock.advance(61);
    app.matches.pair_seeks().await.unwrap();
    let expired = app
        .json_as(
            &people[1],
            &format!("/v1/seeks/{}", waiting["id"].as_str().unwrap()),
        )
        .await;
    assert_eq!(expired["status"], "expired");
    let late = seek(&app, &people[2], table).await;
    assert_eq!(late["status"], "open", "the expired seek took no seat");
}

#[tokio::test]
async fn bots_take_the_empty_seats_after_the_wait() {
    let app = spawn_app().await;
    // Only the test moves time: a slow second (behind PgBouncer, say) must not end the wait.
    app.clock.freeze();
    let people = players(&app, 1).await;
    let made = seek(
        &app,
        &people[0],
        json!({"preset": "standard", "seats": 3, "bots_after_seconds": 30, "bot_level": "random"}),
    )
    .await;
    let id = made["id"].as_str().unwrap();
    assert_eq!(made["bot_level"], "random");
    app.clock.advance(29);
    assert_eq!(app.matches.pair_seeks().await.unwrap(), 0);
    let waiting = app.json_as(&people[0], &format!("/v1/seeks/{id}")).await;
    assert_eq!(waiting["status"], "open");
    // Now the wait is over: this round seats it, unless the process's own round got there
    // first.
    app.clock.advance(1);
    app.matches.pair_seeks().await.unwrap();
    let matched = app.json_as(&people[0], &format!("/v1/seeks/{id}")).await;
    assert_eq!(matched["status"], "matched");
    let summary = app
        .json_as(
            &people[0],
            &format!("/v1/matches/{}", matched["match_id"].as_str().unwrap()),
        )
        .await;
    assert_eq!(summary["status"], "playing");
    let bots = summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|seat| seat["bot"] == "random")
        .count();
    assert_eq!(bots, 2, "{summary}");
}

#[tokio::test]
async fn seeks_that_cannot_be_made_are_refused_and_the_cap_holds_under_concurrency() {
    // The race is on the seek cap; the per-account bound of requests in flight
    // would refuse most of the crowd before it reaches the cap.
    let app = spawn_app_with(|settings| settings.max_requests_per_account = 100).await;
    let people = players(&app, 1).await;
    let me = &people[0];
    for (body, status, code) in [
        (json!({"preset": "chess"}), 422, "invalid_seek"),
        (
            json!({"preset": "standard", "seats": 12}),
            422,
            "invalid_rules",
        ),
        (
            json!({"preset": "standard", "rated": true}),
            422,
            "rated_needs_clock",
        ),
        (
            json!({"preset": "standard", "rated": true, "clock": "fast_5m", "on_timeout": "bot"}),
            422,
            "rated_needs_claim_or_forfeit",
        ),
        (
            json!({"preset": "standard", "rated": true, "clock": "fast_5m", "bots_after_seconds": 60}),
            422,
            "invalid_seek",
        ),
        (
            json!({"preset": "standard", "rating_range": {"min": 1500, "max": 1000}}),
            422,
            "invalid_seek",
        ),
        (
            json!({"preset": "standard", "expires_in_seconds": 5}),
            422,
            "invalid_seek",
        ),
        (
            json!({"preset": "standard", "colour": "red"}),
            422,
            "invalid_body",
        ),
    ] {
        let refused = app.post_as(me, "/v1/seeks", &body).await;
        assert_problem(refused, status, code).await;
    }
    assert!(
        app.json_as(me, "/v1/me/seeks").await["seeks"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Fifteen seeks at once (for tables nobody else seeks): ten are made.
    let bodies: Vec<Value> = (0..15)
        .map(|index| json!({"preset": "night-one", "seats": 2 + index % 3}))
        .collect();
    let attempts = bodies.iter().map(|body| app.post_as(me, "/v1/seeks", body));
    let answers = futures_util::future::join_all(attempts).await;
    let mut statuses = BTreeMap::new();
    for answer in answers {
        *statuses.entry(answer.status().as_u16()).or_insert(0) += 1;
        if answer.status() == 409 {
            assert_problem(answer, 409, "too_many_seeks").await;
        }
    }
    assert_eq!(statuses, BTreeMap::from([(201, 10), (409, 5)]));
}

/// Two processes on one PostgreSQL, forty seekers making two-seat seeks at once on either,
/// a third of them withdrawing at once too, both processes pairing: every seek is seated at
/// most once, every match seats two of them, no withdrawn seek is seated, and at most one
/// seek is left waiting.
#[tokio::test]
async fn seeks_pair_exactly_once_across_processes() {
    // Forty players log in from one address.
    let app = spawn_app_with(|settings| settings.login_attempts_per_minute = 1_000).await;
    if app.database.postgres_name().is_none() {
        return; // One SQLite file serves one process.
    }
    let (_, second, second_matches) = start_process(app.settings.clone(), app.clock.clone()).await;
    let hosts = [app.address.clone(), second];
    let people = players(&app, 40).await;
    let table = json!({"preset": "draw-first", "seats": 2});
    let (hosts, app_ref) = (&hosts, &app);
    let made = people.iter().enumerate().map(|(index, person)| {
        let host = hosts[index % 2].clone();
        let table = table.clone();
        let app = app_ref;
        async move {
            let made: Value = app
                .client
                .post(format!("{host}/v1/seeks"))
                .bearer_auth(&person.token)
                .json(&table)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let id = made["id"].as_str().unwrap().to_owned();
            let withdrew = if index % 3 == 0 {
                let other = &hosts[(index + 1) % 2];
                let answer = withdraw(app, other, person, &id).await;
                match answer.status().as_u16() {
                    200 => true,
                    409 => false,
                    other => panic!("withdrawing answered {other}"),
                }
            } else {
                false
            };
            (id, withdrew)
        }
    });
    let rounds = async {
        for _ in 0..5 {
            let (one, two) = tokio::join!(app.matches.pair_seeks(), second_matches.pair_seeks());
            one.unwrap();
            two.unwrap();
        }
    };
    let (made, ()) = tokio::join!(futures_util::future::join_all(made), rounds);
    app.matches.pair_seeks().await.unwrap();

    let mut seated_in: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut waiting = 0;
    for (index, (person, (id, withdrew))) in people.iter().zip(&made).enumerate() {
        let seen = app.get_as(person, &format!("/v1/seeks/{id}")).await;
        if seen.status() == 404 {
            assert!(withdrew, "a seek not withdrawn is gone");
            continue;
        }
        let now: Value = seen.json().await.unwrap();
        match now["status"].as_str().unwrap() {
            "matched" => {
                assert!(!withdrew, "a withdrawn seek was seated: {now}");
                seated_in
                    .entry(now["match_id"].as_str().unwrap().to_owned())
                    .or_default()
                    .push(format!("player{index}"));
            }
            "open" => waiting += 1,
            other => panic!("a seek is {other}"),
        }
    }
    assert!(waiting <= 1, "{waiting} seeks left waiting");
    let matches: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM matches")
        .fetch_one(app.sql())
        .await
        .unwrap();
    assert_eq!(
        matches as usize,
        seated_in.len(),
        "a match for every pairing, none more"
    );
    for (match_id, seekers) in &seated_in {
        let summary = app
            .json_as(&people[0], &format!("/v1/matches/{match_id}"))
            .await;
        let seated: BTreeSet<String> = summary["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|seat| seat["username"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(seated, seekers.iter().cloned().collect(), "{summary}");
        assert_eq!(seekers.len(), 2);
    }
    assert!(seated_in.len() >= 10, "{} matches", seated_in.len());
}
