//! Community and safety (issue 39; docs/community.md).
//!
//! Blocks: an account keeps another away from its tables. The blocked account cannot invite the
//! blocker or join its waiting tables, quick pairing never seats the two together, and its talk
//! and nudges are kept in the log but never reach the blocker's feed, stream or notifications.
//! Nothing the blocked account reads changes, and every refusal is named and changes nothing.
//!
//! Follows: the public matches of the players an account follows; a block ends a follow.
//! Mutes: a reader mutes a table's talk for itself alone. Notes: a player's private notes on a
//! match, read by them alone, kept after the match and never in its export.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use serde_json::{Value, json};
use sqlx::Row;

use crate::helpers::{
    Player, TestApp, assert_problem, full_match, players, spawn_app, spawn_app_with,
    version_seen_by, view_of_turn,
};
use crate::matches::export_and_verify;
use crate::notifications::{notifications_after, wait_for_notifications};

async fn block(app: &TestApp, player: &Player, username: &str) -> reqwest::Response {
    app.post_as(player, &format!("/v1/me/blocks/{username}"), &json!({}))
        .await
}

async fn unblock(app: &TestApp, player: &Player, username: &str) -> reqwest::Response {
    app.client
        .delete(format!("{}/v1/me/blocks/{username}", app.address))
        .bearer_auth(&player.token)
        .send()
        .await
        .unwrap()
}

async fn say(app: &TestApp, player: &Player, id: &str, text: &str) -> Value {
    let said = app
        .post_as(
            player,
            &format!("/v1/matches/{id}/messages"),
            &json!({ "text": text }),
        )
        .await;
    assert_eq!(said.status(), 201, "{}", said.text().await.unwrap());
    said.json().await.unwrap()
}

/// The texts of the talk in `player`'s feed of match `id`.
async fn talk_seen(app: &TestApp, player: &Player, id: &str) -> Vec<String> {
    let feed = app
        .json_as(player, &format!("/v1/matches/{id}/events?after=0"))
        .await;
    feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|logged| logged["event"]["type"] == "table_talk")
        .map(|logged| logged["event"]["text"].as_str().unwrap().to_owned())
        .collect()
}

/// How many nudges `player`'s feed of match `id` holds.
async fn nudges_seen(app: &TestApp, player: &Player, id: &str) -> usize {
    let feed = app
        .json_as(player, &format!("/v1/matches/{id}/events?after=0"))
        .await;
    feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|logged| logged["event"]["type"] == "nudged")
        .count()
}

#[tokio::test]
async fn blocks_are_listed_and_every_refusal_is_named_and_changes_nothing() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let (maya, _) = (&people[0], &people[1]);

    let blocked = block(&app, maya, "Player1").await;
    assert_eq!(blocked.status(), 201);
    let blocked: Value = blocked.json().await.unwrap();
    assert_eq!(blocked["username"], "player1", "the name as it is spelled");
    // Again: the block in force, from when it began.
    let again = block(&app, maya, "player1").await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap(), blocked);
    let listed = app.json_as(maya, "/v1/me/blocks").await;
    assert_eq!(listed, json!({"blocks": [blocked], "most": 1000}));

    // Yourself, a bot, a name nobody has: named, and the list is as it was.
    assert_problem(
        block(&app, maya, "player0").await,
        422,
        "cannot_block_yourself",
    )
    .await;
    assert_problem(block(&app, maya, "[bot]").await, 404, "unknown_username").await;
    assert_problem(block(&app, maya, "nobody").await, 404, "unknown_username").await;
    assert_problem(unblock(&app, maya, "nobody").await, 404, "unknown_username").await;
    let anonymous = app
        .client
        .post(format!("{}/v1/me/blocks/player1", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert_eq!(app.json_as(maya, "/v1/me/blocks").await, listed);

    // A token for play alone cannot change blocks; it may read them with `read`.
    let token = app
        .post_as(
            maya,
            "/v1/me/tokens",
            &json!({"name": "bot", "scopes": ["play", "read"]}),
        )
        .await;
    assert_eq!(token.status(), 201, "{}", token.text().await.unwrap());
    let token = Player {
        token: token.json::<Value>().await.unwrap()["token"]
            .as_str()
            .unwrap()
            .to_owned(),
    };
    assert_problem(
        block(&app, &token, "player1").await,
        403,
        "insufficient_scope",
    )
    .await;
    assert_eq!(app.json_as(&token, "/v1/me/blocks").await, listed);

    assert_eq!(unblock(&app, maya, "PLAYER1").await.status(), 204);
    assert_problem(unblock(&app, maya, "player1").await, 404, "not_blocked").await;
    assert_eq!(
        app.json_as(maya, "/v1/me/blocks").await,
        json!({"blocks": [], "most": 1000})
    );
}

#[tokio::test]
async fn a_blocked_account_cannot_invite_the_blocker_or_join_its_waiting_tables() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let (maya, leo, ada) = (&people[0], &people[1], &people[2]);
    let page_before = app.json_as(leo, "/v1/players/player0").await;
    assert_eq!(block(&app, maya, "player1").await.status(), 201);
    // Nothing leo can read says so.
    assert_eq!(app.json_as(leo, "/v1/players/player0").await, page_before);

    // leo's private table: maya does not take his invitation; ada does.
    let created = app
        .post_as(
            leo,
            "/v1/matches",
            &json!({"seats": 3, "visibility": "private"}),
        )
        .await;
    let private: Value = created.json().await.unwrap();
    let private_id = private["id"].as_str().unwrap();
    let invite = |who: &str| {
        let path = format!("/v1/matches/{private_id}/invitations");
        (path, json!({ "username": who }))
    };
    let (path, body) = invite("player0");
    assert_problem(
        app.post_as(leo, &path, &body).await,
        403,
        "invitation_declined",
    )
    .await;
    let (path, body) = invite("player2");
    assert_eq!(app.post_as(leo, &path, &body).await.status(), 201);
    let told = wait_for_notifications(&app, ada, 1).await;
    assert_eq!(told.last().unwrap()["type"], "invited");
    assert!(
        notifications_after(&app, maya, 0).await.is_empty(),
        "maya was told nothing"
    );

    // maya's waiting table: leo cannot sit down, even with its code; ada can.
    let created = app
        .post_as(
            maya,
            "/v1/matches",
            &json!({"seats": 3, "visibility": "private"}),
        )
        .await;
    let table: Value = created.json().await.unwrap();
    let table_id = table["id"].as_str().unwrap();
    let join_path = format!("/v1/matches/{table_id}/join");
    let code = json!({"invite_code": table["invite_code"]});
    assert_problem(
        app.post_as(leo, &join_path, &code).await,
        403,
        "seat_declined",
    )
    .await;
    assert_eq!(app.post_as(ada, &join_path, &code).await.status(), 200);
    let summary = app.json_as(maya, &format!("/v1/matches/{table_id}")).await;
    assert_eq!(summary["seats"].as_array().unwrap().len(), 2, "{summary}");

    // Lifted, both work again.
    assert_eq!(unblock(&app, maya, "player1").await.status(), 204);
    let (path, body) = invite("player0");
    assert_eq!(app.post_as(leo, &path, &body).await.status(), 201);
    assert_eq!(app.post_as(leo, &join_path, &code).await.status(), 200);
}

#[tokio::test]
async fn words_of_a_blocked_account_stay_in_the_log_and_never_reach_the_blocker() {
    let app = spawn_app().await;
    // The nudge's hour is counted to the second.
    app.clock.freeze();
    let people = players(&app, 2).await;
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    let (turn, view) = view_of_turn(&app, &people, &id).await;
    // The seat to move blocks the one waiting, which talks and nudges.
    let (blocker, blocked) = (&people[turn], &people[1 - turn]);
    let blocked_name = format!("player{}", 1 - turn);
    say(&app, blocked, &id, "good luck").await;
    let version = view["version"].as_i64().unwrap() + 1;

    // A block covers the second it began in: the talk before it was a second earlier.
    app.clock.advance(1);
    // The blocker follows the match's stream from here.
    let mut stream = app
        .client
        .get(format!(
            "{}/v1/matches/{id}/stream?after={version}",
            app.address
        ))
        .bearer_auth(&blocker.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(block(&app, blocker, &blocked_name).await.status(), 201);

    let hidden = say(&app, blocked, &id, "you play like a goat").await;
    assert_eq!(hidden["seq"], version + 1, "answered as any talk");
    // A long-poll of the blocker waits past it, as if it were not there.
    let polled = app
        .json_as(
            blocker,
            &format!("/v1/matches/{id}/events?after={version}&wait=1"),
        )
        .await;
    assert_eq!(polled["events"], json!([]), "{polled}");
    assert_eq!(polled["version"], version + 1);

    app.clock.advance(3600);
    let nudged = app
        .post_as(blocked, &format!("/v1/matches/{id}/nudge"), &json!({}))
        .await;
    assert_eq!(nudged.status(), 201, "{}", nudged.text().await.unwrap());

    // The blocker then moves: the stream carries the move, and nothing of what was said.
    let action = view["legal_actions"][0].clone();
    let moved = app
        .post_as(
            blocker,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": version + 2, "action": action}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    let mut frames = String::new();
    while !frames.contains(&format!("id: {}\n", version + 3)) {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
            .await
            .expect("the move within 10 s")
            .unwrap()
            .expect("the stream goes on");
        frames.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(!frames.contains("table_talk"), "{frames}");
    assert!(!frames.contains("nudged"), "{frames}");
    assert!(!frames.contains("goat"), "{frames}");

    // The feeds: the blocker's leaves both out, the blocked account's is as ever.
    assert_eq!(talk_seen(&app, blocker, &id).await, ["good luck"]);
    assert_eq!(
        talk_seen(&app, blocked, &id).await,
        ["good luck", "you play like a goat"]
    );
    assert_eq!(nudges_seen(&app, blocker, &id).await, 0);
    assert_eq!(nudges_seen(&app, blocked, &id).await, 1);

    // Lifted: what is said from now on reaches the blocker; what was hidden stays hidden.
    app.clock.advance(1);
    assert_eq!(unblock(&app, blocker, &blocked_name).await.status(), 204);
    app.clock.advance(1);
    say(&app, blocked, &id, "sorry, well played").await;
    assert_eq!(
        talk_seen(&app, blocker, &id).await,
        ["good luck", "sorry, well played"]
    );

    // The blocked account resigns: the blocker hears of the end, and never of the nudge.
    let now = version_seen_by(&app, blocked, &id).await;
    let resigned = app
        .post_as(
            blocked,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": now, "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200, "{}", resigned.text().await.unwrap());
    let mut told = Vec::new();
    for _ in 0..100 {
        told = notifications_after(&app, blocker, 0).await;
        if told.iter().any(|notice| notice["type"] == "match_finished") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        told.iter().any(|notice| notice["type"] == "match_finished"),
        "{told:?}"
    );
    assert!(
        told.iter().all(|notice| notice["type"] != "nudged"),
        "{told:?}"
    );
    // The log kept every word: the export holds them and verifies.
    let export = app
        .json_as(blocked, &format!("/v1/matches/{id}/export"))
        .await;
    assert!(export.to_string().contains("you play like a goat"));
    export_and_verify(&app, blocker, &id).await;
}

#[tokio::test]
async fn quick_pairing_never_seats_an_account_with_one_it_blocks_across_400_seeks() {
    // Twenty players log in from one address.
    let app = spawn_app_with(|settings| settings.login_attempts_per_minute = 1_000).await;
    let people = players(&app, 20).await;
    // Each player blocks the next three (around the circle): every player is kept apart from
    // six others, so a pairing that ignored blocks would seat such a pair many times over.
    let mut apart = BTreeSet::new();
    for (index, player) in people.iter().enumerate() {
        for step in 1..=3 {
            let other = (index + step) % people.len();
            let name = format!("player{other}");
            assert_eq!(block(&app, player, &name).await.status(), 201);
            apart.insert((index.min(other), index.max(other)));
        }
    }
    let table = json!({"preset": "standard", "seats": 2});
    for _ in 0..20 {
        for player in &people {
            let made = app.post_as(player, "/v1/seeks", &table).await;
            assert_eq!(made.status(), 201, "{}", made.text().await.unwrap());
        }
        app.matches.pair_seeks().await.unwrap();
        // Whoever is left waiting withdraws, so the next round's seeks stay under the cap.
        for player in &people {
            let open = app.json_as(player, "/v1/me/seeks").await;
            for seek in open["seeks"].as_array().unwrap() {
                if seek["status"] == "open" {
                    let id = seek["id"].as_str().unwrap();
                    let withdrawn = app
                        .client
                        .delete(format!("{}/v1/seeks/{id}", app.address))
                        .bearer_auth(&player.token)
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(
                        withdrawn.status(),
                        200,
                        "{}",
                        withdrawn.text().await.unwrap()
                    );
                }
            }
        }
    }
    let rows = sqlx::query(
        "SELECT s.match_id, a.username FROM match_seats s JOIN accounts a ON a.id = s.account_id",
    )
    .fetch_all(app.sql())
    .await
    .unwrap();
    let mut tables: HashMap<String, Vec<usize>> = HashMap::new();
    for row in rows {
        let username: String = row.try_get("username").unwrap();
        let index = username.trim_start_matches("player").parse().unwrap();
        tables
            .entry(row.try_get("match_id").unwrap())
            .or_default()
            .push(index);
    }
    assert!(
        tables.len() >= 100,
        "most seeks were seated: {}",
        tables.len()
    );
    for seated in tables.values() {
        let pair = (seated[0].min(seated[1]), seated[0].max(seated[1]));
        assert!(!apart.contains(&pair), "{pair:?} sat together");
    }
}

#[tokio::test]
async fn a_muted_table_keeps_its_talk_from_the_reader_alone_until_unmuted() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let id = full_match(&app, &people[..2], json!({"preset": "standard"})).await;
    let (maya, leo, stranger) = (&people[0], &people[1], &people[2]);
    let mute_path = format!("/v1/matches/{id}/mute");
    let unmuted = json!({"muted": false, "muted_at": null});
    assert_eq!(app.json_as(maya, &mute_path).await, unmuted);
    say(&app, leo, &id, "hello").await;

    let put = |player: &Player| {
        app.client
            .put(format!("{}{mute_path}", app.address))
            .bearer_auth(&player.token)
            .send()
    };
    let muted = put(maya).await.unwrap();
    assert_eq!(muted.status(), 200);
    let muted: Value = muted.json().await.unwrap();
    assert_eq!(muted["muted"], true);
    // Again: the mute in force, from when it began.
    app.clock.advance(5);
    assert_eq!(
        put(maya).await.unwrap().json::<Value>().await.unwrap(),
        muted
    );
    assert_eq!(app.json_as(maya, &mute_path).await, muted);

    say(&app, leo, &id, "still there?").await;
    say(&app, maya, &id, "yes").await;
    assert_eq!(
        talk_seen(&app, maya, &id).await,
        ["yes"],
        "only her own words"
    );
    assert_eq!(
        talk_seen(&app, leo, &id).await,
        ["hello", "still there?", "yes"],
        "nobody else's feed changes"
    );

    // A private match of others is nobody else's to mute.
    let private = app
        .post_as(
            maya,
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await
        .json::<Value>()
        .await
        .unwrap();
    let private_mute = format!(
        "{}/v1/matches/{}/mute",
        app.address,
        private["id"].as_str().unwrap()
    );
    let refused = app
        .client
        .put(&private_mute)
        .bearer_auth(&stranger.token)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 404);

    let lifted = app
        .client
        .delete(format!("{}{mute_path}", app.address))
        .bearer_auth(&maya.token)
        .send()
        .await
        .unwrap();
    assert_eq!(lifted.status(), 200);
    assert_eq!(lifted.json::<Value>().await.unwrap(), unmuted);
    assert_eq!(
        talk_seen(&app, maya, &id).await,
        ["hello", "still there?", "yes"],
        "unmuted, all of it shows again"
    );
}

#[tokio::test]
async fn private_notes_are_read_by_their_writer_alone_and_outlive_the_match() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let id = full_match(&app, &people[..2], json!({"preset": "standard"})).await;
    let (maya, leo, stranger) = (&people[0], &people[1], &people[2]);
    let path = format!("/v1/matches/{id}/notes");
    let put = |player: &Player, body: Value| {
        app.client
            .put(format!("{}{path}", app.address))
            .bearer_auth(&player.token)
            .json(&body)
            .send()
    };
    let none = json!({"text": "", "updated_at": null});
    assert_eq!(app.json_as(maya, &path).await, none);

    let kept = put(maya, json!({"text": "leo hoards kings"}))
        .await
        .unwrap();
    assert_eq!(kept.status(), 200);
    let kept: Value = kept.json().await.unwrap();
    assert_eq!(kept["text"], "leo hoards kings");
    assert!(kept["updated_at"].is_string());
    assert_eq!(app.json_as(maya, &path).await, kept);
    assert_eq!(app.json_as(leo, &path).await, none, "each player's own");

    // Too long, a stranger's, a bad body: named, and nothing changes.
    let long = put(maya, json!({"text": "x".repeat(10_001)}))
        .await
        .unwrap();
    assert_problem(long, 422, "notes_too_long").await;
    let theirs = put(stranger, json!({"text": "hi"})).await.unwrap();
    assert_problem(theirs, 403, "not_a_player").await;
    assert_problem(app.get_as(stranger, &path).await, 403, "not_a_player").await;
    let extra = put(maya, json!({"text": "a", "seat": 1})).await.unwrap();
    assert_problem(extra, 422, "invalid_body").await;
    assert_eq!(app.json_as(maya, &path).await, kept);
    let exactly = put(maya, json!({"text": "é".repeat(10_000)}))
        .await
        .unwrap();
    assert_eq!(exactly.status(), 200);
    assert_eq!(
        put(maya, json!({"text": "leo hoards kings"}))
            .await
            .unwrap()
            .status(),
        200
    );

    // The match ends: the notes stay, and its export never holds them.
    let now = version_seen_by(&app, leo, &id).await;
    let resigned = app
        .post_as(
            leo,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": now, "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200, "{}", resigned.text().await.unwrap());
    assert_eq!(app.json_as(maya, &path).await["text"], "leo hoards kings");
    let export = app.json_as(maya, &format!("/v1/matches/{id}/export")).await;
    assert!(!export.to_string().contains("hoards"));

    // An empty text removes them.
    assert_eq!(
        put(maya, json!({"text": ""}))
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap(),
        none
    );
    assert_eq!(app.json_as(maya, &path).await, none);
}

async fn report(app: &TestApp, player: &Player, body: Value) -> reqwest::Response {
    app.post_as(player, "/v1/reports", &body).await
}

#[tokio::test]
async fn reports_name_what_the_reporter_can_see_and_are_followed_by_id() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let id = full_match(&app, &people[..2], json!({"preset": "standard"})).await;
    let (maya, leo, ada) = (&people[0], &people[1], &people[2]);
    let said = say(&app, leo, &id, "you are hopeless").await;
    let seq = said["seq"].as_i64().unwrap();

    // A message: its speaker is named; the same report again answers the first.
    let body = json!({"about": "message", "match_id": id, "seq": seq, "reason": "harassment",
        "note": "Third insult this game."});
    let made = report(&app, maya, body.clone()).await;
    assert_eq!(made.status(), 201);
    let made: Value = made.json().await.unwrap();
    assert_eq!(made["username"], "player1");
    assert_eq!(made["status"], "open");
    assert_eq!(made["outcome"], Value::Null);
    assert_eq!(made["seq"], seq);
    let again = report(&app, maya, body).await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap(), made);
    let report_id = made["id"].as_str().unwrap();
    assert_eq!(
        app.json_as(maya, &format!("/v1/reports/{report_id}")).await,
        made
    );
    let theirs = app.get_as(leo, &format!("/v1/reports/{report_id}")).await;
    assert_problem(theirs, 404, "report_not_found").await;

    // An account, and a match.
    let account = report(
        &app,
        leo,
        json!({"about": "account", "username": "PLAYER0",
        "reason": "offensive_username"}),
    )
    .await;
    assert_eq!(account.status(), 201);
    let about_match = report(
        &app,
        ada,
        json!({"about": "match", "match_id": id,
        "reason": "cheating", "note": "They play too well together."}),
    )
    .await;
    assert_eq!(
        about_match.status(),
        201,
        "a spectator of a public match may report it"
    );
    assert_eq!(
        about_match.json::<Value>().await.unwrap()["username"],
        Value::Null
    );
    let listed = app.json_as(maya, "/v1/me/reports").await;
    assert_eq!(listed, json!({"reports": [made]}));

    // What cannot be reported: named, and nothing is written.
    let private = app
        .post_as(
            maya,
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await
        .json::<Value>()
        .await
        .unwrap();
    let refusals = [
        (
            json!({"about": "account", "reason": "spam"}),
            "invalid_report",
            "username",
        ),
        (
            json!({"about": "account", "username": "player1", "seq": 3, "reason": "spam"}),
            "invalid_report",
            "seq",
        ),
        (
            json!({"about": "message", "match_id": id, "reason": "spam"}),
            "invalid_report",
            "seq",
        ),
        (
            json!({"about": "message", "match_id": id, "seq": 0, "reason": "spam"}),
            "invalid_report",
            "seq",
        ),
        (
            json!({"about": "match", "match_id": id, "reason": "spam", "note": "x".repeat(2001)}),
            "invalid_report",
            "note",
        ),
        (
            json!({"about": "account", "username": "nobody", "reason": "spam"}),
            "nothing_to_report",
            "username",
        ),
        (
            json!({"about": "account", "username": "[bot]", "reason": "spam"}),
            "nothing_to_report",
            "username",
        ),
        (
            json!({"about": "message", "match_id": id, "seq": 1, "reason": "spam"}),
            "nothing_to_report",
            "seq",
        ),
        (
            json!({"about": "message", "match_id": id, "seq": 9_223_372_036_854_775_807_i64, "reason": "spam"}),
            "nothing_to_report",
            "seq",
        ),
        (
            json!({"about": "match", "match_id": private["id"], "reason": "spam"}),
            "nothing_to_report",
            "match_id",
        ),
        (
            json!({"about": "match", "match_id": "not-a-match", "reason": "spam"}),
            "nothing_to_report",
            "match_id",
        ),
        (
            json!({"about": "account", "username": "player2", "reason": "spam"}),
            "cannot_report_yourself",
            "",
        ),
    ];
    for (body, code, field) in refusals {
        let problem = assert_problem(report(&app, ada, body.clone()).await, 422, code).await;
        if !field.is_empty() {
            assert_eq!(problem["field"], field, "{body}");
        }
    }
    let own = json!({"about": "message", "match_id": id, "seq": seq, "reason": "spam"});
    assert_problem(report(&app, leo, own).await, 422, "cannot_report_yourself").await;
    let unknown_reason = json!({"about": "account", "username": "player1", "reason": "bad vibes"});
    assert_problem(report(&app, ada, unknown_reason).await, 422, "invalid_body").await;
    assert_eq!(
        app.json_as(ada, "/v1/me/reports").await["reports"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn a_thousand_reports_in_a_minute_make_ten() {
    let app = spawn_app().await;
    app.clock.freeze();
    let people = players(&app, 2).await;
    let (maya, leo) = (&people[0], &people[1]);
    let mut tables = Vec::new();
    for _ in 0..12 {
        let created = app.post_as(leo, "/v1/matches", &json!({"seats": 2})).await;
        tables.push(
            created.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let about = |table: &str| json!({"about": "match", "match_id": table, "reason": "spam"});
    for table in &tables[..10] {
        assert_eq!(report(&app, maya, about(table)).await.status(), 201);
    }
    let refused = report(&app, maya, about(&tables[10])).await;
    assert_eq!(refused.headers()["retry-after"], "3600");
    assert_problem(refused, 429, "too_many_reports").await;

    let flood = futures_util::future::join_all((0..1_000).map(|index| {
        let body = about(&tables[10 + index % 2]);
        let app = &app;
        async move { report(app, maya, body).await.status().as_u16() }
    }))
    .await;
    assert!(flood.iter().all(|status| *status == 429), "{flood:?}");
    let made = sqlx::query("SELECT COUNT(*) AS n FROM reports")
        .fetch_one(app.sql())
        .await
        .unwrap()
        .try_get::<i64, _>("n")
        .unwrap();
    assert_eq!(made, 10);

    // An hour on, one more is taken.
    app.clock.advance(3600);
    assert_eq!(report(&app, maya, about(&tables[10])).await.status(), 201);
}

/// `kings-corner admin ARGS…` on the test server's database: the binary itself on PostgreSQL;
/// on SQLite, whose file the test server holds, the same command parsed the same way and run
/// on the server's own match service. Whether it succeeded, and what it said.
async fn admin(app: &TestApp, args: &[&str]) -> (bool, String) {
    if app.database.postgres_name().is_some() {
        let mut line = vec![
            "--database-url".to_owned(),
            app.settings.database.url.clone(),
        ];
        if let Some(listen) = &app.settings.database.listen_url {
            line.extend(["--database-listen-url".to_owned(), listen.clone()]);
        }
        if app.settings.database.behind_transaction_pooler() {
            line.extend(["--database-pooler".to_owned(), "transaction".to_owned()]);
        }
        line.push("admin".to_owned());
        line.extend(args.iter().map(|arg| (*arg).to_owned()));
        let (ok, said) = crate::helpers::kings_corner(line).await;
        return (ok, said.trim().trim_start_matches("error: ").to_owned());
    }
    use clap::Parser;
    let parsed = kings_corner::config::Cli::try_parse_from(
        ["kings-corner", "admin"]
            .into_iter()
            .chain(args.iter().copied()),
    )
    .expect("the command parses");
    let Some(kings_corner::config::Command::Admin(command)) = parsed.command else {
        panic!("an admin command");
    };
    match kings_corner::admin::answer(&app.matches, command).await {
        Ok(said) => (true, said),
        Err(refused) => (false, refused.to_string()),
    }
}

#[tokio::test]
async fn operators_work_the_report_queue_and_every_action_is_audited() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let id = full_match(&app, &people[..2], json!({"preset": "standard"})).await;
    let (maya, leo, ada) = (&people[0], &people[1], &people[2]);
    let said = say(&app, leo, &id, "you are hopeless").await;
    let seq = said["seq"].as_i64().unwrap();
    let about_message = report(
        &app,
        maya,
        json!({"about": "message", "match_id": id,
        "seq": seq, "reason": "harassment", "note": "again"}),
    )
    .await
    .json::<Value>()
    .await
    .unwrap();
    app.clock.advance(1);
    let about_account = report(
        &app,
        ada,
        json!({"about": "account", "username": "player1",
        "reason": "offensive_username"}),
    )
    .await
    .json::<Value>()
    .await
    .unwrap();
    let (message_id, account_id) = (
        about_message["id"].as_str().unwrap(),
        about_account["id"].as_str().unwrap(),
    );

    // The queue, oldest first.
    let (ok, queue) = admin(&app, &["reports"]).await;
    assert!(ok, "{queue}");
    let lines: Vec<&str> = queue.lines().collect();
    assert_eq!(lines.len(), 2, "{queue}");
    assert!(lines[0].starts_with(message_id), "{queue}");
    assert!(
        lines[0].contains(&format!("message {id}#{seq} by player1")),
        "{queue}"
    );
    assert!(lines[0].contains("harassment  by player0  open"), "{queue}");
    assert!(lines[1].starts_with(account_id), "{queue}");

    // One report, the message in its context: the talk, and of the play its kinds only.
    let (ok, shown) = admin(&app, &["report", message_id]).await;
    assert!(ok, "{shown}");
    assert!(shown.contains("note: again"), "{shown}");
    let marked = shown
        .lines()
        .find(|line| line.starts_with('>'))
        .expect("the reported message is marked");
    assert!(marked.contains(&seq.to_string()), "{shown}");
    assert!(
        marked.ends_with("seat 1 (player1) says: you are hopeless"),
        "{shown}"
    );
    assert!(
        shown.contains("match_started") || shown.contains("hand_dealt"),
        "{shown}"
    );
    assert!(!shown.contains("\"cards\""), "no hands: {shown}");

    // Resolved: the reporter reads the outcome; the audit log says who, what and why.
    let (ok, done) = admin(
        &app,
        &[
            "resolve",
            message_id,
            "--outcome",
            "player1 warned",
            "--operator",
            "sam",
        ],
    )
    .await;
    assert!(ok, "{done}");
    assert_eq!(done, format!("ok: report {message_id} resolved"));
    let followed = app
        .json_as(maya, &format!("/v1/reports/{message_id}"))
        .await;
    assert_eq!(followed["status"], "resolved");
    assert_eq!(followed["outcome"], "player1 warned");
    assert!(followed["resolved_at"].is_string());
    let (ok, audit) = admin(&app, &["audit"]).await;
    assert!(ok, "{audit}");
    assert_eq!(audit.lines().count(), 1, "{audit}");
    assert!(
        audit.ends_with(&format!("sam  resolve_report {message_id}  player1 warned")),
        "{audit}"
    );
    let (_, queue) = admin(&app, &["reports"]).await;
    assert_eq!(queue.lines().count(), 1, "{queue}");
    let (_, every) = admin(&app, &["reports", "--all"]).await;
    assert_eq!(every.lines().count(), 2, "{every}");

    // Refused, each said plainly, and nothing is recorded.
    let refusals = [
        (
            vec![
                "resolve",
                message_id,
                "--outcome",
                "again",
                "--operator",
                "sam",
            ],
            "was resolved already",
        ),
        (
            vec![
                "resolve",
                "no-such-report",
                "--outcome",
                "x",
                "--operator",
                "sam",
            ],
            "No report has the id no-such-report",
        ),
        (
            vec![
                "resolve",
                account_id,
                "--outcome",
                "  ",
                "--operator",
                "sam",
            ],
            "The outcome says something",
        ),
        (
            vec!["resolve", account_id, "--outcome", "ok", "--operator", ""],
            "The operator says something",
        ),
        (
            vec!["report", "no-such-report"],
            "No report has the id no-such-report",
        ),
    ];
    for (args, says) in refusals {
        let (ok, said) = admin(&app, &args).await;
        assert!(!ok && said.contains(says), "{args:?}: {said}");
    }
    let (_, audit) = admin(&app, &["audit"]).await;
    assert_eq!(audit.lines().count(), 1, "{audit}");
    assert_eq!(
        app.json_as(leo, "/v1/me/reports").await["reports"],
        json!([])
    );
}

async fn follow(app: &TestApp, player: &Player, username: &str) -> reqwest::Response {
    app.post_as(player, &format!("/v1/me/follows/{username}"), &json!({}))
        .await
}

/// The ids of `path`'s matches, as `player` lists them.
async fn listed(app: &TestApp, player: &Player, path: &str) -> BTreeSet<String> {
    app.json_as(player, path).await["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|summary| summary["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn followed_players_public_matches_are_listed_and_a_block_ends_a_follow() {
    let app = spawn_app().await;
    let people = players(&app, 4).await;
    let (maya, leo, ada, kim) = (&people[0], &people[1], &people[2], &people[3]);

    let followed = follow(&app, maya, "PLAYER1").await;
    assert_eq!(followed.status(), 201);
    let followed: Value = followed.json().await.unwrap();
    assert_eq!(followed["username"], "player1");
    let again = follow(&app, maya, "player1").await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap(), followed);
    assert_eq!(
        app.json_as(maya, "/v1/me/follows").await,
        json!({"follows": [followed], "most": 1000})
    );

    // leo's tables: a public one waiting, a public one being played, a private one; and
    // kim's public table without him.
    let waiting = app.post_as(leo, "/v1/matches", &json!({"seats": 3})).await;
    let waiting = waiting.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let playing = full_match(&app, &people[1..3], json!({"preset": "standard"})).await;
    let private = app
        .post_as(
            leo,
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    assert_eq!(private.status(), 201);
    let others = app.post_as(kim, "/v1/matches", &json!({"seats": 2})).await;
    assert_eq!(others.status(), 201);
    let feed = "/v1/matches?followed=true";
    assert_eq!(
        listed(&app, maya, feed).await,
        BTreeSet::from([waiting.clone(), playing.clone()]),
        "leo's public matches, open and being played, and nothing else"
    );
    assert_eq!(
        listed(&app, maya, &format!("{feed}&status=playing")).await,
        BTreeSet::from([playing.clone()])
    );
    assert!(
        listed(&app, ada, feed).await.is_empty(),
        "ada follows nobody"
    );
    let anonymous = app.get(feed, None).await;
    assert_problem(anonymous, 401, "missing_token").await;
    let mixed = app.get_as(maya, &format!("{feed}&mine=true")).await;
    assert_problem(mixed, 422, "invalid_query").await;

    // Refusals, named, changing nothing.
    assert_problem(
        follow(&app, maya, "player0").await,
        422,
        "cannot_follow_yourself",
    )
    .await;
    assert_problem(follow(&app, maya, "[bot]").await, 404, "unknown_username").await;
    let not_following = app
        .client
        .delete(format!("{}/v1/me/follows/player2", app.address))
        .bearer_auth(&maya.token)
        .send()
        .await
        .unwrap();
    assert_problem(not_following, 404, "not_following").await;

    // leo blocks maya: her follow ends, and a new one is declined until he lifts the block.
    assert_eq!(block(&app, leo, "player0").await.status(), 201);
    assert_eq!(
        app.json_as(maya, "/v1/me/follows").await["follows"],
        json!([])
    );
    assert!(listed(&app, maya, feed).await.is_empty());
    assert_problem(follow(&app, maya, "player1").await, 403, "follow_declined").await;
    assert_eq!(unblock(&app, leo, "player0").await.status(), 204);
    assert_eq!(follow(&app, maya, "player1").await.status(), 201);

    let stopped = app
        .client
        .delete(format!("{}/v1/me/follows/player1", app.address))
        .bearer_auth(&maya.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stopped.status(), 204);
    assert!(listed(&app, maya, feed).await.is_empty());
}
