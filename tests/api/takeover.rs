//! Fast takeover (issue 20): background work a process claimed and then died holding (SIGKILL:
//! it never renews its lease, never gives it up) waits only until the lease runs out,
//! `LEASE_SECONDS` (5 s), before another round takes it: a bot's turn and a webhook's queue.
//! A live process keeps its claim by renewing it, and a claim it gave up stays free.
//!
//! The server's clock is frozen here and moved by hand, so "the lease ran out" is a step of
//! the test rather than a wait.

use std::time::Duration;

use kings_corner::background::LEASE_SECONDS;
use kings_corner::store::work::Work;
use kings_corner::time_source::Clock;
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, created_id, play_first_action, players, spawn_app, version_seen_by,
};
use crate::notifications::{register_webhook, webhook_app};
use crate::receiver::Receiver;

// docs/operations.md promises that a killed process's work is taken over within about 5 seconds.
const _: () = assert!(LEASE_SECONDS <= 5);

/// A table of `people` (two) and a basic bot whose bot turns are claimed until `lease_until`
/// by "another process" before it starts, so that this process's bots leave them alone till
/// then; started, its id.
pub async fn bot_table_leased(app: &TestApp, people: &[Player], lease_until: i64) -> String {
    let id = created_id(
        app.post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 3, "bots": [{"level": "basic"}]}),
        )
        .await,
    )
    .await;
    sqlx::query("UPDATE matches SET bot_lease = $1 WHERE id = $2")
        .bind(lease_until)
        .bind(&id)
        .execute(app.sql())
        .await
        .unwrap();
    let joined = app
        .post_as(&people[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    id
}

/// The people play until a bot has the turn; the view then.
pub async fn until_a_bot_moves(app: &TestApp, people: &[Player], id: &str) -> Value {
    loop {
        let mut moved = false;
        for player in people {
            let view = app.json_as(player, &format!("/v1/matches/{id}/view")).await;
            if view["turn"] == view["your_seat"] {
                play_first_action(app, player, id, &view).await;
                moved = true;
                break;
            }
        }
        if !moved {
            return app
                .json_as(&people[0], &format!("/v1/matches/{id}/view"))
                .await;
        }
    }
}

#[tokio::test]
async fn a_bot_turn_a_dead_process_held_is_played_once_its_lease_runs_out() {
    let app = spawn_app().await;
    app.clock.freeze();
    let people = players(&app, 2).await;
    // A process claims the match's bot turns, as a round does, and dies at once.
    let id = &bot_table_leased(&app, &people, app.clock.now() + LEASE_SECONDS).await;
    let waiting = until_a_bot_moves(&app, &people, id).await;
    let at = waiting["version"].as_i64().unwrap();

    // While the dead process's lease holds, the bot's turn waits (this process's rounds look
    // every half second).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        version_seen_by(&app, &people[0], id).await,
        at,
        "the lease holds"
    );

    // Once it has run out, the next round plays the bot's turn.
    app.clock.advance(LEASE_SECONDS);
    let mut moved = false;
    for _ in 0..100 {
        if version_seen_by(&app, &people[0], id).await > at {
            moved = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(moved, "the bot's turn was taken over");
    assert_eq!(app.matches.bot_statistics().lost_races, 0);
}

#[tokio::test]
async fn a_webhook_queue_a_dead_process_held_is_delivered_once_its_lease_runs_out() {
    let app = webhook_app().await;
    app.clock.freeze();
    let people = players(&app, 2).await;
    let receiver = Receiver::start().await;
    let (webhook, _) = register_webhook(&app, &people[0], &receiver.url()).await;
    // A process claims the webhook, as a round does, and dies at once.
    sqlx::query("UPDATE webhooks SET lease_until = $1 WHERE id = $2")
        .bind(app.clock.now() + LEASE_SECONDS)
        .bind(&webhook)
        .execute(app.sql())
        .await
        .unwrap();
    // Something to tell: the other player joins the first one's table.
    let id = created_id(
        app.post_as(&people[0], "/v1/matches", &json!({"seats": 2}))
            .await,
    )
    .await;
    let joined = app
        .post_as(&people[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200);

    // The deliverer looks every second; while the lease holds nothing is sent.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(receiver.received().is_empty(), "the lease holds");

    app.clock.advance(LEASE_SECONDS);
    receiver
        .wait_for(Duration::from_secs(10), |received| !received.is_empty())
        .await;
}

/// Renewing extends a claim still held, and leaves one given up free.
#[tokio::test]
async fn renewing_extends_only_the_claims_still_held() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        ids.push(
            created_id(
                app.post_as(&people[0], "/v1/matches", &json!({"seats": 2}))
                    .await,
            )
            .await,
        );
    }
    sqlx::query("UPDATE matches SET clock_lease = $1 WHERE id = $2")
        .bind(100_i64)
        .bind(&ids[0])
        .execute(app.sql())
        .await
        .unwrap();
    app.db.renew_work(Work::Clock, &ids, 200).await.unwrap();
    let lease = |id: String| {
        let pool = app.sql().clone();
        async move {
            sqlx::query_scalar::<_, Option<i64>>("SELECT clock_lease FROM matches WHERE id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(lease(ids[0].clone()).await, Some(200));
    assert_eq!(lease(ids[1].clone()).await, None, "given up: stays free");
}
