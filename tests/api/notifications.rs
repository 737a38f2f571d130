//! Telling players what happened while they were away (issue 10): the account stream (long-poll
//! and Server-Sent Events), webhooks delivered to a real receiver in this process and checked
//! with an independent signature check, invitations, and several server processes.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Value, json};

use kings_corner::rules::shuffle::uniform_below;
use kings_corner::time_source::{Clock, parse_rfc3339};

use crate::helpers::{
    Player, TestApp, assert_problem, play_first_action, players, seated_match, spawn_app,
    spawn_app_with, start_with_clock, view_of_turn,
};
use crate::receiver::{Answer, Receiver, Silent, free_port, signed_by};

/// A server that may deliver webhooks to this machine, giving up on an attempt after a second.
pub async fn webhook_app() -> TestApp {
    spawn_app_with(|settings| {
        settings.webhook_allowed_networks = vec!["127.0.0.1/32".parse().unwrap()];
        settings.webhook_timeout_seconds = 1;
        settings.webhook_retry_hours = 24;
    })
    .await
}

/// Registers a webhook for every type; its id and secret.
pub async fn register_webhook(app: &TestApp, player: &Player, url: &str) -> (String, String) {
    let created = app
        .post_as(
            player,
            "/v1/me/webhooks",
            &json!({"url": url, "types": ["your_turn", "match_started", "match_finished",
                    "seat_joined", "seat_left", "invited", "deadline_near", "seat_out"]}),
        )
        .await;
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
    let created: Value = created.json().await.unwrap();
    assert!(created["secret"].as_str().unwrap().starts_with("whsec_"));
    (
        created["id"].as_str().unwrap().to_owned(),
        created["secret"].as_str().unwrap().to_owned(),
    )
}

/// The player's notifications after `after`, as `GET /v1/me/events` gives them.
pub async fn notifications_after(app: &TestApp, player: &Player, after: i64) -> Vec<Value> {
    app.json_as(player, &format!("/v1/me/events?after={after}&limit=500"))
        .await["notifications"]
        .as_array()
        .unwrap()
        .clone()
}

/// Waits until the player has at least `count` notifications; returns them all.
pub async fn wait_for_notifications(app: &TestApp, player: &Player, count: usize) -> Vec<Value> {
    for _ in 0..100 {
        let all = notifications_after(app, player, 0).await;
        if all.len() >= count {
            return all;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "fewer than {count} notifications: {:?}",
        notifications_after(app, player, 0).await
    );
}

/// The player's notifications once the last, the end of match `id`, has been numbered
/// (numbering follows the commit of a move by a moment).
async fn told_until_the_end(app: &TestApp, player: &Player, id: &str) -> Vec<Value> {
    let page = wait_until(app, player, "/v1/me/events?after=0&limit=500", |page| {
        let told = page["notifications"].as_array().unwrap();
        told.last()
            .is_some_and(|n| n["type"] == "match_finished" && n["data"]["match_id"] == id)
    })
    .await;
    page["notifications"].as_array().unwrap().clone()
}

fn of_type<'a>(notifications: &'a [Value], kind: &str) -> Vec<&'a Value> {
    notifications
        .iter()
        .filter(|notification| notification["type"] == kind)
        .collect()
}

/// Creates a two-seat match of `rules` (the first player creates) and has the second join.
async fn two_player_match(app: &TestApp, players: &[Player], rules: Value) -> String {
    seated_match(app, &players[..2], json!({"rules": rules, "seats": 2})).await
}

/// Plays a match to its end with random legal actions. Returns, for each seat, the versions at
/// which a turn of that seat began (read from the log: a `turn_started` among the events a
/// move wrote, and the seat to move after it), in order.
async fn play_to_the_end(app: &TestApp, players: &[Player], id: &str, seed: u64) -> Vec<Vec<i64>> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut turns = vec![Vec::new(); players.len()];
    let mut version = 0;
    for _ in 0..5_000 {
        let feed = app
            .json_as(
                &players[0],
                &format!("/v1/matches/{id}/events?after={version}"),
            )
            .await;
        let began = feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|logged| logged["event"]["type"] == "turn_started");
        let view = app
            .json_as(&players[0], &format!("/v1/matches/{id}/view"))
            .await;
        version = view["version"].as_i64().unwrap();
        if view["status"] != "playing" {
            return turns;
        }
        let turn = view["turn"].as_u64().unwrap() as usize;
        if began {
            turns[turn].push(version);
        }
        let view = app
            .json_as(&players[turn], &format!("/v1/matches/{id}/view"))
            .await;
        let legal = view["legal_actions"].as_array().unwrap();
        let action = legal[uniform_below(&mut rng, legal.len() as u32) as usize].clone();
        let moved = app
            .post_as(
                &players[turn],
                &format!("/v1/matches/{id}/moves"),
                &json!({"expected_version": version, "action": action}),
            )
            .await;
        assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    }
    panic!("the match did not end");
}

/// Reads Server-Sent Events frames from a response until `count` have come.
async fn read_frames(stream: &mut reqwest::Response, count: usize) -> Vec<(i64, String, Value)> {
    let mut frames = Vec::new();
    let mut buffer = String::new();
    while frames.len() < count {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
            .await
            .expect("a frame within 10 s")
            .unwrap()
            .expect("the stream goes on");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            if frame.starts_with(':') {
                continue;
            }
            let field = |name: &str| {
                frame
                    .lines()
                    .find_map(|line| line.strip_prefix(&format!("{name}: ")))
                    .unwrap()
                    .to_owned()
            };
            frames.push((
                field("id").parse().unwrap(),
                field("event"),
                serde_json::from_str(&field("data")).unwrap(),
            ));
        }
    }
    frames
}

/// A two-player match played to its end through the API tells each account every turn of its
/// own, in order, on the account stream, the Server-Sent Events stream and a webhook (signed,
/// checked here independently), and nothing of the other account's.
#[tokio::test]
async fn every_turn_reaches_its_account_in_order_on_the_stream_and_a_webhook() {
    let app = webhook_app().await;
    let players = players(&app, 2).await;
    let receivers = [Receiver::start().await, Receiver::start().await];
    let mut secrets = Vec::new();
    for (player, receiver) in players.iter().zip(&receivers) {
        secrets.push(register_webhook(&app, player, &receiver.url()).await.1);
    }
    let mut stream = app.get_as(&players[1], "/v1/me/stream?after=0").await;
    assert_eq!(stream.headers()["content-type"], "text/event-stream");

    let id = two_player_match(&app, &players, json!({"game_end": {"hands": 1}})).await;
    let turns = play_to_the_end(&app, &players, &id, 7).await;
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    assert!(turns.iter().all(|seat| !seat.is_empty()), "{turns:?}");

    for (seat, player) in players.iter().enumerate() {
        let expected = 1 + turns[seat].len() + 1;
        let told = wait_for_notifications(&app, player, expected).await;
        let seqs: Vec<i64> = told.iter().map(|n| n["seq"].as_i64().unwrap()).collect();
        assert_eq!(
            seqs,
            (1..=told.len() as i64).collect::<Vec<_>>(),
            "dense, in order"
        );
        assert_eq!(told[0]["type"], "match_started");
        assert_eq!(told[0]["data"]["seat"], seat);
        let your_turns: Vec<i64> = of_type(&told, "your_turn")
            .iter()
            .map(|n| {
                assert_eq!(n["data"]["match_id"], id.as_str());
                assert_eq!(n["data"]["seat"], seat, "only the account's own turns");
                n["data"]["version"].as_i64().unwrap()
            })
            .collect();
        assert_eq!(your_turns, turns[seat], "seat {seat}'s turns");
        let finished = told.last().unwrap();
        assert_eq!(finished["type"], "match_finished");
        assert_eq!(finished["data"]["version"], summary["version"]);
        assert_eq!(finished["data"]["ended_by"], "finished");
        let winners: Vec<Value> = summary["result"]["winners"]
            .as_array()
            .unwrap()
            .iter()
            .map(|winner| winner["seat"].clone())
            .collect();
        assert_eq!(finished["data"]["winners"], json!(winners));
        assert_eq!(told.len(), expected, "nothing else: {told:?}");

        // The webhook got the same notifications, in order, each signed, once.
        let receiver = &receivers[seat];
        receiver
            .wait_for(Duration::from_secs(20), |got| got.len() >= told.len())
            .await;
        let got = receiver.received();
        assert_eq!(got.len(), told.len());
        for (received, notification) in got.iter().zip(&told) {
            assert!(signed_by(&secrets[seat], received), "{received:?}");
            assert!(
                !signed_by(&secrets[1 - seat], received),
                "each webhook its own secret"
            );
            assert_eq!(received.id, notification["id"].as_str().unwrap());
            assert_eq!(received.json(), *notification);
            assert_eq!(received.content_type, "application/json");
        }
    }

    // The Server-Sent Events stream, opened before the match, carried the same.
    let told = notifications_after(&app, &players[1], 0).await;
    let frames = read_frames(&mut stream, told.len()).await;
    for ((id, event, data), notification) in frames.iter().zip(&told) {
        assert_eq!(*id, notification["seq"].as_i64().unwrap());
        assert_eq!(event, notification["type"].as_str().unwrap());
        assert_eq!(data, notification);
    }

    // Resuming with Last-Event-ID starts after it.
    let mut resumed = app
        .client
        .get(format!("{}/v1/me/stream", app.address))
        .bearer_auth(&players[1].token)
        .header("Last-Event-ID", "2")
        .send()
        .await
        .unwrap();
    let frames = read_frames(&mut resumed, 1).await;
    assert_eq!(frames[0].0, 3);
}

/// A server from before migration 0020 writes notifications without a place in the stream;
/// during an upgrade it shares the database with newer ones. The newer relay numbers such a
/// notification after the ones numbered as they were written, tells the account's open stream
/// and delivers it to the account's webhook, once.
#[tokio::test]
async fn a_notification_an_older_server_left_unnumbered_is_numbered_told_and_delivered() {
    let app = webhook_app().await;
    let players = players(&app, 2).await;
    let receiver = Receiver::start().await;
    register_webhook(&app, &players[1], &receiver.url()).await;
    let mut stream = app.get_as(&players[1], "/v1/me/stream?after=0").await;
    two_player_match(&app, &players, json!({"game_end": {"hands": 1}})).await;
    // The start's notifications (match_started, and your_turn when this seat leads) are
    // written in one transaction: all or none are there.
    let started = wait_for_notifications(&app, &players[1], 1).await;
    let newest = started.len() as i64;
    assert_eq!(started.last().unwrap()["seq"], newest, "{started:?}");
    assert_eq!(
        read_frames(&mut stream, started.len())
            .await
            .last()
            .unwrap()
            .0,
        newest
    );

    // As an older server writes it: no `seq`, and nothing queued for the relay.
    let (account_id, data): (String, String) = sqlx::query_as(
        "SELECT account_id, data FROM notifications WHERE seq = 1 AND account_id = \
         (SELECT id FROM accounts WHERE username = 'player1')",
    )
    .fetch_one(app.sql())
    .await
    .unwrap();
    let message_id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO notifications (message_id, account_id, kind, data, created_at) \
         VALUES ($1, $2, 'match_started', $3, $4)",
    )
    .bind(&message_id)
    .bind(&account_id)
    .bind(&data)
    .bind(app.clock.now())
    .execute(app.sql())
    .await
    .unwrap();

    // Nobody wakes the relay: it finds the notification at its next look.
    let told = wait_for_notifications(&app, &players[1], started.len() + 1).await;
    let left = told.last().unwrap();
    assert_eq!(left["seq"], newest + 1, "{told:?}");
    assert_eq!(left["id"], message_id.as_str());
    assert_eq!(left["data"], told[0]["data"]);
    let frames = read_frames(&mut stream, 1).await;
    assert_eq!(
        (frames[0].0, frames[0].2["id"].clone()),
        (newest + 1, json!(message_id))
    );
    receiver
        .wait_for(Duration::from_secs(20), |got| got.len() > started.len())
        .await;
    let delivered: Vec<String> = receiver
        .received()
        .iter()
        .map(|got| got.id.clone())
        .collect();
    let expected: Vec<&str> = told
        .iter()
        .map(|told| told["id"].as_str().unwrap())
        .collect();
    assert_eq!(delivered, expected);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().len(), told.len(), "each delivered once");
}

/// The long-poll waits for the next notification and wakes when it is written; the stream of
/// an account with nothing new answers at once without waiting when `wait` is 0; and the
/// query is checked.
/// A move's `your_turn` wakes the next player's long poll and goes to their webhook at once:
/// the move's writer reports the account's new place in its stream and whether it queued
/// fan-out (`store/told.rs`), and the relay announces it (on PostgreSQL without reading it
/// again) and fans out. The notifier's catch-up and the relay's own look would do both too,
/// but only at their next round (every 2 s, `live::CATCH_UP`, `relay::LOOK_EVERY`): six turns
/// in a row within a second of their move are not their doing.
#[tokio::test]
async fn a_move_wakes_the_next_player_s_long_poll_and_webhook_before_any_catch_up() {
    let app = webhook_app().await;
    let players = players(&app, 2).await;
    let receivers = [Receiver::start().await, Receiver::start().await];
    for (player, receiver) in players.iter().zip(&receivers) {
        register_webhook(&app, player, &receiver.url()).await;
    }
    let id = crate::helpers::full_match(&app, &players, json!({"preset": "standard"})).await;
    let your_turns = |receiver: &Receiver| {
        receiver
            .received()
            .iter()
            .filter(|received| received.body.contains(r#""type":"your_turn""#))
            .count()
    };
    for _ in 0..6 {
        let (turn, _) = view_of_turn(&app, &players, &id).await;
        let next = &players[1 - turn];
        let delivered = your_turns(&receivers[1 - turn]);
        let newest = app.json_as(next, "/v1/me/events").await["newest"].clone();
        let poll = {
            let request = app
                .client
                .get(format!(
                    "{}/v1/me/events?after={newest}&wait=20",
                    app.address
                ))
                .bearer_auth(&next.token);
            tokio::spawn(async move {
                let page: Value = request.send().await.unwrap().json().await.unwrap();
                (page, std::time::Instant::now())
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        // Drawing, then ending the turn: the turn passes on the last move.
        let mut moved_at = std::time::Instant::now();
        loop {
            let (now, view) = view_of_turn(&app, &players, &id).await;
            if now != turn {
                break;
            }
            play_first_action(&app, &players[turn], &id, &view).await;
            moved_at = std::time::Instant::now();
        }
        let (page, woken_at) = poll.await.unwrap();
        let told = &page["notifications"][0];
        assert_eq!(told["type"], "your_turn", "{page}");
        assert_eq!(told["data"]["match_id"], id.as_str());
        let waited = woken_at.saturating_duration_since(moved_at);
        assert!(
            waited < Duration::from_secs(1),
            "woken {waited:?} after the move: by the catch-up, not by the move"
        );
        receivers[1 - turn]
            .wait_for(Duration::from_secs(1), |_| {
                your_turns(&receivers[1 - turn]) > delivered
            })
            .await;
    }
}

#[tokio::test]
async fn the_long_poll_wakes_on_the_next_notification_and_checks_its_query() {
    let app = spawn_app().await;
    let players = players(&app, 2).await;
    let empty = app.json_as(&players[1], "/v1/me/events").await;
    assert_eq!(empty, json!({"notifications": [], "newest": 0}));

    let created = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 3}))
        .await;
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let waiting = {
        let client = app.client.clone();
        let url = format!("{}/v1/me/events?after=0&wait=20", app.address);
        let token = players[0].token.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let page: Value = client
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            (page, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let joined = app
        .post_as(&players[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200);
    let (page, waited) = waiting.await.unwrap();
    assert!(waited < Duration::from_secs(10), "woken, not timed out");
    assert_eq!(page["newest"], 1);
    let joined = &page["notifications"][0];
    assert_eq!(joined["type"], "seat_joined");
    assert_eq!(joined["data"]["username"], "player1");
    assert_eq!(joined["data"]["seats_taken"], 2);
    assert_eq!(joined["data"]["seat_count"], 3);

    // Leaving tells those still waiting.
    let left = app
        .post_as(&players[1], &format!("/v1/matches/{id}/leave"), &json!({}))
        .await;
    assert_eq!(left.status(), 204);
    let told = wait_for_notifications(&app, &players[0], 2).await;
    assert_eq!(told[1]["type"], "seat_left");
    assert_eq!(told[1]["data"]["seats_taken"], 1);
    assert!(notifications_after(&app, &players[1], 0).await.is_empty());

    for (query, parameter) in [
        ("after=-1", "after"),
        ("wait=61", "wait"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
    ] {
        let response = app
            .get_as(&players[0], &format!("/v1/me/events?{query}"))
            .await;
        let problem = assert_problem(response, 422, "invalid_query").await;
        assert_eq!(problem["field"], parameter);
    }
    let response = app.get_as(&players[0], "/v1/me/events?after=x").await;
    assert_problem(response, 400, "malformed_query").await;
    let page = app
        .json_as(&players[0], "/v1/me/events?after=0&limit=1")
        .await;
    assert_eq!(page["notifications"].as_array().unwrap().len(), 1);
    assert_eq!(page["newest"], 2);
}

/// A held connection lasts at most `MAX_HOLD_SECONDS`: a long-poll answers by then whatever its
/// `wait`, and a stream ends, to be resumed with `Last-Event-ID`. Past `MAX_HELD_CONNECTIONS`
/// a new long-poll or stream is refused with `Retry-After` until a place is given back.
#[tokio::test]
async fn held_connections_are_capped_in_number_and_in_time() {
    let app = spawn_app_with(|settings| {
        settings.max_hold_seconds = 1;
        settings.max_held_connections = 1;
    })
    .await;
    let players = players(&app, 1).await;
    let started = std::time::Instant::now();
    let page = app.json_as(&players[0], "/v1/me/events?wait=60").await;
    assert_eq!(page, json!({"notifications": [], "newest": 0}));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "answered at the hold's end"
    );

    let stream = app.get_as(&players[0], "/v1/me/stream?after=0").await;
    assert_eq!(stream.status(), 200);
    // While the stream holds the one place, a long-poll is refused.
    let refused = app.get_as(&players[0], "/v1/me/events?wait=1").await;
    assert!(refused.headers().contains_key("retry-after"));
    assert_problem(refused, 503, "too_many_held_connections").await;
    let body = tokio::time::timeout(Duration::from_secs(30), stream.bytes())
        .await
        .expect("the stream ends at the hold's end")
        .unwrap();
    assert!(
        body.is_empty() || body.starts_with(b": keep-alive"),
        "{body:?}"
    );
    // Its place is given back.
    let page = app.json_as(&players[0], "/v1/me/events").await;
    assert_eq!(page["newest"], 0);
}

/// The creator of a private match invites an account by name: the invitee is told, with the
/// code to join by; asking again tells nobody twice; only the creator invites, only to a
/// private match waiting for players, and only accounts that exist and are not seated.
#[tokio::test]
async fn invitations_to_private_matches_reach_the_invitee() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let created = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let created: Value = created.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let invite = |who: &'static str| json!({"username": who});
    let path = format!("/v1/matches/{id}/invitations");

    let response = app.post_as(&players[0], &path, &invite("PLAYER1")).await;
    assert_eq!(response.status(), 201);
    let first: Value = response.json().await.unwrap();
    assert_eq!(first["username"], "player1");
    let again = app.post_as(&players[0], &path, &invite("player1")).await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap(), first);

    let told = wait_for_notifications(&app, &players[1], 1).await;
    assert_eq!(told.len(), 1, "told once: {told:?}");
    assert_eq!(told[0]["type"], "invited");
    assert_eq!(told[0]["data"]["invited_by"], "player0");
    assert_eq!(told[0]["data"]["invite_code"], created["invite_code"]);
    let joined = app
        .post_as(
            &players[1],
            &format!("/v1/matches/{id}/join"),
            &json!({"invite_code": told[0]["data"]["invite_code"]}),
        )
        .await;
    assert_eq!(joined.status(), 200);

    // A private match is invisible to an outsider, who cannot invite to it.
    let outsider = app.post_as(&players[2], &path, &invite("player0")).await;
    assert_problem(outsider, 404, "not_found").await;
    let started = app.post_as(&players[0], &path, &invite("player2")).await;
    assert_problem(started, 409, "match_started").await;

    let waiting = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 3, "visibility": "private"}),
        )
        .await
        .json::<Value>()
        .await
        .unwrap();
    let path = format!(
        "/v1/matches/{}/invitations",
        waiting["id"].as_str().unwrap()
    );
    let seated = app.post_as(&players[0], &path, &invite("player0")).await;
    assert_problem(seated, 409, "already_seated").await;
    let nobody = app.post_as(&players[0], &path, &invite("nobody")).await;
    let problem = assert_problem(nobody, 422, "unknown_username").await;
    assert_eq!(problem["field"], "username");
    let joined = app
        .post_as(
            &players[2],
            &format!("/v1/matches/{}/join", waiting["id"].as_str().unwrap()),
            &json!({"invite_code": waiting["invite_code"]}),
        )
        .await;
    assert_eq!(joined.status(), 200);
    let not_creator = app.post_as(&players[2], &path, &invite("player1")).await;
    assert_problem(not_creator, 403, "not_match_creator").await;

    let public = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 2}))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let path = format!("/v1/matches/{}/invitations", public["id"].as_str().unwrap());
    let refused = app.post_as(&players[0], &path, &invite("player1")).await;
    assert_problem(refused, 409, "match_not_private").await;
}

/// A receiver that is down for a while gets every delivery, in order, once it is back: the
/// attempts it missed are listed with their errors, and the retries come with backoff.
#[tokio::test]
async fn a_receiver_down_for_a_while_gets_everything_when_it_comes_back() {
    let app = webhook_app().await;
    let players = players(&app, 2).await;
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let (webhook, secret) = register_webhook(&app, &players[0], &url).await;
    let id = two_player_match(&app, &players, json!({"game_end": {"hands": 1}})).await;
    play_to_the_end(&app, &players, &id, 11).await;
    let told = told_until_the_end(&app, &players[0], &id).await;

    // Nothing listens: the first delivery fails, and the queue waits behind it.
    let deliveries = format!("/v1/me/webhooks/{webhook}/deliveries?limit=100");
    let failed = wait_until(&app, &players[0], &deliveries, |list| {
        list["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|delivery| !delivery["attempts"].as_array().unwrap().is_empty())
    })
    .await;
    let attempted: Vec<&Value> = failed["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|delivery| !delivery["attempts"].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(attempted.len(), 1, "one at a time: {failed}");
    assert_eq!(attempted[0]["seq"], 1, "the oldest first");
    assert_eq!(attempted[0]["state"], "pending");
    let attempt = &attempted[0]["attempts"][0];
    assert!(attempt["status_code"].is_null());
    assert!(
        attempt["error"]
            .as_str()
            .unwrap()
            .contains("could not connect"),
        "{attempt}"
    );

    // It comes back; the retry is due after the backoff (at most 10 s for the first).
    let receiver = Receiver::on(port, Answer::Status(204)).await;
    app.clock.advance(11);
    receiver
        .wait_for(Duration::from_secs(30), |got| got.len() >= told.len())
        .await;
    let got = receiver.received();
    let ids: Vec<&str> = got.iter().map(|received| received.id.as_str()).collect();
    let expected: Vec<&str> = told.iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(ids, expected, "everything, in order, once");
    assert!(got.iter().all(|received| signed_by(&secret, received)));
    let listed = wait_until(&app, &players[0], &deliveries, |list| {
        list["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|delivery| delivery["state"] == "delivered")
    })
    .await;
    let first = listed["deliveries"].as_array().unwrap().last().unwrap();
    assert_eq!(first["seq"], 1);
    let attempts = first["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{first}");
    assert_eq!(attempts[1]["status_code"], 204);
    assert!(attempts[1]["error"].is_null());
    let webhook = app
        .json_as(&players[0], &format!("/v1/me/webhooks/{webhook}"))
        .await;
    assert_eq!(webhook["enabled"], true);
}

/// Polls `path` until `done` holds for its JSON.
async fn wait_until(
    app: &TestApp,
    player: &Player,
    path: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..400 {
        let value = app.json_as(player, path).await;
        if done(&value) {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "{path} never got there: {}",
        app.json_as(player, path).await
    );
}

/// A receiver that never answers in time is retried with backoff for the whole retry window
/// (24 hours here, of the injected clock), then the webhook is disabled with the reason; once
/// re-enabled, and answering, it gets what was pending.
#[tokio::test]
async fn a_receiver_that_never_answers_ends_disabled_with_the_reason() {
    let app = webhook_app().await;
    let players = players(&app, 2).await;
    let receiver = Receiver::on(free_port(), Answer::Hold(Duration::from_secs(5))).await;
    let (webhook, secret) = register_webhook(&app, &players[0], &receiver.url()).await;
    two_player_match(&app, &players, json!({})).await;
    let path = format!("/v1/me/webhooks/{webhook}");
    let deliveries = format!("{path}/deliveries");
    let started = app.clock.now() - 1;
    let mut tries = 0;
    loop {
        // Each attempt reaches the receiver, which holds it past the timeout; it is recorded
        // once the deliverer gives up on it.
        let since = app.clock.now();
        receiver
            .wait_for(Duration::from_secs(10), |got| got.len() > tries)
            .await;
        tries += 1;
        let recorded = |list: &Value| {
            let first = list["deliveries"].as_array().unwrap().last().unwrap();
            first["attempts"]
                .as_array()
                .unwrap()
                .last()
                .is_some_and(|last| {
                    let at = last["attempted_at"].as_str().and_then(parse_rfc3339);
                    at.unwrap() >= since && last["error"].is_string()
                })
        };
        wait_until(&app, &players[0], &deliveries, recorded).await;
        let state = app.json_as(&players[0], &path).await;
        if state["enabled"] == false {
            let reason = state["disabled_reason"].as_str().unwrap();
            assert!(
                reason.contains("No delivery succeeded for 24 hours"),
                "{reason}"
            );
            assert!(reason.contains("no answer within 1 s"), "{reason}");
            assert!(app.clock.now() - started >= 24 * 3600);
            break;
        }
        assert!(tries < 30, "not disabled after {tries} attempts");
        // The next retry is at most an hour away.
        app.clock.advance(3 * 3600);
    }
    assert!(tries > 5, "retried over a day: {tries} attempts");
    let list = app.json_as(&players[0], &deliveries).await;
    let first = list["deliveries"].as_array().unwrap().last().unwrap();
    assert_eq!(first["state"], "pending");
    assert!(
        first["attempts"].as_array().unwrap().len() <= 10,
        "the last ten"
    );

    // Numbered long since: the start (and the first turn, if it is player 0's).
    let told = notifications_after(&app, &players[0], 0).await;

    // Disabled, it is left alone; re-enabled and answering, it gets everything pending.
    app.clock.advance(3600);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        receiver.received().len(),
        tries,
        "no attempt while disabled"
    );
    receiver.answer(Answer::Status(204));
    let enabled = app
        .post_as(&players[0], &format!("{path}/enable"), &json!({}))
        .await;
    assert_eq!(enabled.status(), 200);
    let enabled: Value = enabled.json().await.unwrap();
    assert_eq!(enabled["enabled"], true);
    assert!(enabled["disabled_reason"].is_null());
    receiver
        .wait_for(Duration::from_secs(20), |got| {
            got.len() >= tries + told.len()
        })
        .await;
    let delivered: Vec<String> = receiver.received()[tries..]
        .iter()
        .map(|received| {
            assert!(signed_by(&secret, received));
            received.id.clone()
        })
        .collect();
    let expected: Vec<String> = told
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(delivered, expected);

    // Deleted, it is gone.
    let deleted = app
        .client
        .delete(format!("{}{path}", app.address))
        .bearer_auth(&players[0].token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let gone = app.get_as(&players[0], &path).await;
    assert_problem(gone, 404, "not_found").await;
}

/// No request goes to a private, loopback or link-local address the operator has not allowed:
/// such URLs are refused when registered, a name that resolves to one is refused when
/// delivered (the receiver listening there sees no connection), and a redirect is not
/// followed.
#[tokio::test]
async fn webhooks_reach_only_public_or_allowed_addresses_and_follow_no_redirect() {
    let app = spawn_app_with(|settings| settings.webhook_timeout_seconds = 1).await;
    let players = players(&app, 2).await;
    let listening = Silent::start().await;
    let port = listening.address.port();
    for (url, field) in [
        (format!("http://127.0.0.1:{port}/hook"), "url"),
        (format!("https://127.0.0.1:{port}/hook"), "url"),
        ("https://169.254.169.254/latest/meta-data".to_owned(), "url"),
        ("https://[::1]/hook".to_owned(), "url"),
        ("https://10.0.0.8/hook".to_owned(), "url"),
        ("http://hooks.example.com/hook".to_owned(), "url"),
        ("https://user:pw@hooks.example.com/hook".to_owned(), "url"),
        ("not a url".to_owned(), "url"),
    ] {
        let refused = app
            .post_as(
                &players[0],
                "/v1/me/webhooks",
                &json!({"url": url, "types": ["your_turn"]}),
            )
            .await;
        let problem = assert_problem(refused, 422, "invalid_webhook").await;
        assert_eq!(problem["field"], field, "{url}");
    }
    for types in [json!([]), json!(["your_turn", "everything"])] {
        let refused = app
            .post_as(
                &players[0],
                "/v1/me/webhooks",
                &json!({"url": "https://hooks.example.com/kc", "types": types}),
            )
            .await;
        let problem = assert_problem(refused, 422, "invalid_webhook").await;
        assert_eq!(problem["field"], "types");
    }

    // A name is resolved when delivering, and refused if it leads to a private address.
    let url = format!("https://localhost:{port}/hook");
    let created = app
        .post_as(
            &players[0],
            "/v1/me/webhooks",
            &json!({"url": url, "types": ["match_started"]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let webhook = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    two_player_match(&app, &players, json!({})).await;
    let list = wait_until(
        &app,
        &players[0],
        &format!("/v1/me/webhooks/{webhook}/deliveries"),
        |list| {
            list["deliveries"][0]["attempts"]
                .as_array()
                .is_some_and(|attempts| !attempts.is_empty())
        },
    )
    .await;
    let error = list["deliveries"][0]["attempts"][0]["error"]
        .as_str()
        .unwrap();
    assert!(
        error.contains("resolves to no address a webhook may reach"),
        "{error}"
    );
    assert_eq!(listening.accepted(), 0, "no connection was made");

    // Webhooks may be listed; at most ten per account.
    let listed = app.json_as(&players[0], "/v1/me/webhooks").await;
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 1);
    assert!(listed["webhooks"][0].get("secret").is_none());
    for _ in 1..10 {
        let created = app
            .post_as(
                &players[0],
                "/v1/me/webhooks",
                &json!({"url": "https://hooks.example.com/kc", "types": ["your_turn"]}),
            )
            .await;
        assert_eq!(created.status(), 201);
    }
    let eleventh = app
        .post_as(
            &players[0],
            "/v1/me/webhooks",
            &json!({"url": "https://hooks.example.com/kc", "types": ["your_turn"]}),
        )
        .await;
    assert_problem(eleventh, 409, "too_many_webhooks").await;
    // Another account sees none of them.
    let other = app
        .get_as(&players[1], &format!("/v1/me/webhooks/{webhook}"))
        .await;
    assert_problem(other, 404, "not_found").await;
}

/// A redirect answered by an allowed receiver is a failed attempt; its target gets nothing.
#[tokio::test]
async fn a_redirect_is_not_followed() {
    let app = webhook_app().await;
    let players = players(&app, 2).await;
    let target = Receiver::start().await;
    let redirecting = Receiver::on(free_port(), Answer::Redirect(target.url())).await;
    let (webhook, _) = register_webhook(&app, &players[0], &redirecting.url()).await;
    two_player_match(&app, &players, json!({})).await;
    let list = wait_until(
        &app,
        &players[0],
        &format!("/v1/me/webhooks/{webhook}/deliveries"),
        |list| {
            list["deliveries"]
                .as_array()
                .unwrap()
                .iter()
                .any(|delivery| !delivery["attempts"].as_array().unwrap().is_empty())
        },
    )
    .await;
    let attempt = list["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|delivery| delivery["attempts"].as_array().unwrap().first())
        .unwrap()
        .clone();
    assert_eq!(attempt["status_code"], 302);
    assert!(
        attempt["error"]
            .as_str()
            .unwrap()
            .contains("redirects are not followed"),
        "{attempt}"
    );
    assert_eq!(redirecting.received().len(), 1);
    assert!(target.received().is_empty());
}

/// Two server processes on one PostgreSQL (one process on SQLite, where a file has one): a
/// stream held on one process hears of moves made through the other, and every notification
/// is delivered to the webhook exactly once although both processes deliver.
#[tokio::test]
async fn two_processes_deliver_each_notification_once() {
    let app = webhook_app().await;
    let other = if app.database.postgres_name().is_some() {
        start_with_clock(app.settings.clone(), app.clock.clone())
            .await
            .1
    } else {
        app.address.clone()
    };
    let players = players(&app, 2).await;
    // A slow receiver: each process's deliverer finds work while the other is busy with it.
    let receiver = Receiver::on(free_port(), Answer::Hold(Duration::from_millis(150))).await;
    for player in &players {
        register_webhook(&app, player, &receiver.url()).await;
    }
    let mut stream = app
        .client
        .get(format!("{other}/v1/me/stream?after=0"))
        .bearer_auth(&players[0].token)
        .send()
        .await
        .unwrap();
    let mut ids = Vec::new();
    for seed in 0..2 {
        let id = two_player_match(&app, &players, json!({"game_end": {"hands": 1}})).await;
        play_to_the_end(&app, &players, &id, seed).await;
        ids.push(id);
    }
    let mut expected: HashSet<String> = HashSet::new();
    for player in &players {
        for notification in told_until_the_end(&app, player, ids.last().unwrap()).await {
            expected.insert(notification["id"].as_str().unwrap().to_owned());
        }
    }
    receiver
        .wait_for(Duration::from_secs(60), |got| {
            let ids: HashSet<&String> = got.iter().map(|received| &received.id).collect();
            expected.iter().all(|id| ids.contains(id))
        })
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for received in receiver.received() {
        *counts.entry(received.id).or_default() += 1;
    }
    assert_eq!(
        counts.keys().cloned().collect::<HashSet<_>>(),
        expected,
        "every notification, and nothing else"
    );
    assert!(
        counts.values().all(|count| *count == 1),
        "each once: {counts:?}"
    );

    // The stream on the other process carried player 0's notifications in order.
    let told = notifications_after(&app, &players[0], 0).await;
    let frames = read_frames(&mut stream, told.len()).await;
    let seqs: Vec<i64> = frames.iter().map(|(seq, _, _)| *seq).collect();
    assert_eq!(seqs, (1..=told.len() as i64).collect::<Vec<_>>());
}

/// The clock's moments reach the accounts: a reminder to the seat to move, and a forfeit on
/// time to every seat, with the match's end.
#[tokio::test]
async fn deadlines_and_forfeits_are_told() {
    let app = spawn_app_with(|settings| settings.clock_sweep_seconds = 1).await;
    let players = players(&app, 2).await;
    let created = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "clock": {"turn_seconds": 100, "bank_seconds": 0},
                    "on_timeout": "forfeit"}),
        )
        .await;
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.post_as(&players[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    let view = app
        .json_as(&players[0], &format!("/v1/matches/{id}/view"))
        .await;
    let late = view["turn"].as_u64().unwrap() as usize;
    let told = wait_for_notifications(&app, &players[late], 2).await;
    let your_turn = of_type(&told, "your_turn")[0];
    assert_eq!(your_turn["data"]["deadline"], view["clock"]["deadline"]);

    app.clock.advance(95);
    let told = wait_for_notifications(&app, &players[late], 3).await;
    let near = of_type(&told, "deadline_near");
    assert_eq!(near.len(), 1, "{told:?}");
    assert_eq!(near[0]["data"]["deadline"], view["clock"]["deadline"]);
    assert!(
        of_type(
            &notifications_after(&app, &players[1 - late], 0).await,
            "deadline_near"
        )
        .is_empty()
    );

    app.clock.advance(10);
    for (seat, player) in players.iter().enumerate() {
        let told = wait_for_notifications(&app, player, if seat == late { 5 } else { 3 }).await;
        let out = of_type(&told, "seat_out");
        assert_eq!(out.len(), 1, "{told:?}");
        assert_eq!(out[0]["data"]["seat"], late);
        assert_eq!(out[0]["data"]["reason"], "timeout");
        let finished = told.last().unwrap();
        assert_eq!(finished["type"], "match_finished");
        assert_eq!(finished["data"]["ended_by"], "timeout");
        assert_eq!(finished["data"]["winners"], json!([1 - late]));
    }
}

/// A server run as its own process (the built binary), to be killed.
struct ServerProcess {
    child: std::process::Child,
    address: String,
}

impl ServerProcess {
    /// Starts the binary on `database_url`, delivering webhooks to this machine, and waits
    /// until it answers.
    async fn start(database_url: &str) -> ServerProcess {
        let port = free_port();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_kings-corner"))
            .env("DATABASE_URL", database_url)
            .env("BIND_ADDRESS", format!("127.0.0.1:{port}"))
            .env("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.1/32")
            .env("WEBHOOK_TIMEOUT_SECONDS", "2")
            .env("LOG_LEVEL", "error")
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("the server binary starts");
        // Killed and waited for on drop, should it never answer.
        let server = ServerProcess {
            child,
            address: format!("http://127.0.0.1:{port}"),
        };
        let client = reqwest::Client::new();
        for _ in 0..300 {
            if client
                .get(format!("{}/healthz", server.address))
                .send()
                .await
                .is_ok_and(|response| response.status() == 200)
            {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the server process did not start");
    }

    /// SIGKILL: no chance to finish anything.
    fn kill(mut self) {
        self.child.kill().expect("the server process is killed");
        self.child.wait().expect("the killed process is reaped");
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A player's access token from a server process, registering them first.
async fn sign_up(client: &reqwest::Client, address: &str, name: &str) -> String {
    let credentials = json!({"username": name, "password": "correct horse"});
    let registered = client
        .post(format!("{address}/v1/accounts"))
        .json(&credentials)
        .send()
        .await
        .unwrap();
    assert_eq!(registered.status(), 201);
    let tokens: Value = client
        .post(format!("{address}/v1/auth/login"))
        .json(&credentials)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    tokens["access_token"].as_str().unwrap().to_owned()
}

/// A server killed (SIGKILL) while a delivery is on its way loses nothing: the server started
/// after it sends that delivery again, with the same `webhook-id` (so the receiver drops the
/// repeat), and then everything after it, in order, once.
#[tokio::test]
async fn a_server_killed_mid_delivery_loses_nothing_and_repeats_only_with_the_same_id() {
    let (_database, url) = crate::helpers::TestDatabase::create().await;
    let receiver = Receiver::on(free_port(), Answer::HoldFirst(Duration::from_secs(60))).await;
    let first = ServerProcess::start(&url).await;
    let client = reqwest::Client::new();
    let address = first.address.clone();
    let mut tokens = Vec::new();
    for name in ["ada", "bob", "cyd"] {
        tokens.push(sign_up(&client, &address, name).await);
    }
    let created = client
        .post(format!("{address}/v1/me/webhooks"))
        .bearer_auth(&tokens[0])
        .json(
            &json!({"url": receiver.url(), "types": ["seat_joined", "match_started", "your_turn"]}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let secret = created.json::<Value>().await.unwrap()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let created: Value = client
        .post(format!("{address}/v1/matches"))
        .bearer_auth(&tokens[0])
        .json(&json!({"seats": 3}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    for token in &tokens[1..] {
        let joined = client
            .post(format!("{address}/v1/matches/{id}/join"))
            .bearer_auth(token)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(joined.status(), 200);
    }

    // The first delivery is on its way (the receiver holds it): the server dies.
    receiver
        .wait_for(Duration::from_secs(10), |got| !got.is_empty())
        .await;
    first.kill();
    let second = ServerProcess::start(&url).await;
    // Waits for the second notification (the first process may have died before numbering it).
    let waited = client
        .get(format!("{}/v1/me/events?after=1&wait=10", second.address))
        .bearer_auth(&tokens[0])
        .send()
        .await
        .unwrap();
    assert_eq!(waited.status(), 200);
    let told: Vec<Value> = client
        .get(format!("{}/v1/me/events", second.address))
        .bearer_auth(&tokens[0])
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap()["notifications"]
        .as_array()
        .unwrap()
        .clone();
    let expected: Vec<String> = told
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(expected.len() >= 2, "{told:?}");
    receiver
        .wait_for(Duration::from_secs(60), |got| got.len() > expected.len())
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = receiver.received();
    let ids: Vec<String> = got.iter().map(|received| received.id.clone()).collect();
    assert_eq!(ids[0], expected[0], "the delivery cut short");
    assert_eq!(
        ids[1..],
        expected[..],
        "sent again, then the rest, in order, once"
    );
    assert!(got.iter().all(|received| signed_by(&secret, received)));
    second.kill();
}
