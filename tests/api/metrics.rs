//! Metrics (issue 20): `GET /metrics` answers every family in Prometheus's text format without a
//! token, and the figures move as matches are played: moves accepted by players and bots,
//! refusals by code, requests by route, commits, the pool, the cache, webhook deliveries and
//! the bots' decisions. No label ever holds an id or a name. It stays off CORS, and with
//! `METRICS_BIND_ADDRESS` it moves to a listener of its own.
//!
//! The recorder is one per process, so the figures here add up every server the test binary
//! runs at once: the checks are that a figure grew, never by exactly how much.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use kings_corner::instruments::FAMILIES;
use kings_corner::startup::Application;
use kings_corner::time_source::ManualClock;
use serde_json::json;

use crate::helpers::{
    TestApp, created_id, default_settings, full_match, header, play_first_action, spawn_app_with,
    view_of_turn,
};
use crate::notifications::{register_webhook, webhook_app};
use crate::receiver::Receiver;
use crate::takeover::{bot_table_leased, until_a_bot_moves};

/// The scrape's text, checked to be Prometheus's text format.
async fn scrape_at(client: &reqwest::Client, address: &str) -> String {
    let response = client
        .get(format!("{address}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    response.text().await.unwrap()
}

pub(crate) async fn scrape(app: &TestApp) -> String {
    scrape_at(&app.client, &app.address).await
}

/// The value of one series (`name{labels}` exactly as rendered), 0 when absent.
pub(crate) fn value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map_or(0.0, |number| number.parse().unwrap())
}

/// The sum of every series of a family whose labels contain `labels`.
fn total(text: &str, name: &str, labels: &str) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter(|line| {
            line.starts_with(&format!("{name}{{")) || line.starts_with(&format!("{name} "))
        })
        .filter(|line| line.contains(labels))
        .map(|line| line.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

#[tokio::test]
async fn every_family_is_scraped_and_moves_as_matches_are_played() {
    let app = webhook_app().await;
    let before = scrape(&app).await;
    let people = crate::helpers::players(&app, 2).await;
    let receiver = Receiver::start().await;
    let (webhook, _) = register_webhook(&app, &people[0], &receiver.url()).await;

    // A match between people: moves, a stale one and one off turn.
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    let (turn, view) = view_of_turn(&app, &people, &id).await;
    play_first_action(&app, &people[turn], &id, &view).await;
    let stale = app
        .post_as(
            &people[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": 0, "action": view["legal_actions"][0]}),
        )
        .await;
    assert_eq!(stale.status(), 409);
    let (turn, view) = view_of_turn(&app, &people, &id).await;
    let off_turn = app
        .post_as(
            &people[1 - turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_eq!(off_turn.status(), 422);

    // A match against a bot, played until the bot has moved.
    let bot_match = created_id(
        app.post_as(
            &people[1],
            "/v1/matches",
            &json!({"seats": 2, "bots": [{"level": "basic"}]}),
        )
        .await,
    )
    .await;
    // Played until a bot's decision is counted. A turn of the bot's own is not enough: when
    // its only legal action is to end the turn, the server ends it (auto_end_turn) and no bot
    // decides anything. (Other tests' bots move the process's counters too.)
    let bot_moves = "kings_corner_moves_accepted_total{by=\"bot\"}";
    let mut bot_has_moved = false;
    for _ in 0..400 {
        if value(&scrape(&app).await, bot_moves) > value(&before, bot_moves) {
            bot_has_moved = true;
            break;
        }
        let view = app
            .json_as(&people[1], &format!("/v1/matches/{bot_match}/view"))
            .await;
        if view["status"] != "playing" {
            break;
        }
        if view["turn"] == view["your_seat"] {
            play_first_action(&app, &people[1], &bot_match, &view).await;
        } else {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    assert!(bot_has_moved, "the bot took its turn");
    let mut after = scrape(&app).await;
    // The webhook's first delivery.
    receiver
        .wait_for(Duration::from_secs(10), |received| !received.is_empty())
        .await;
    let delivered = "kings_corner_webhook_deliveries_total{outcome=\"delivered\"}";
    for _ in 0..100 {
        if value(&after, delivered) > value(&before, delivered) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        after = scrape(&app).await;
    }

    for family in FAMILIES {
        assert!(
            after.contains(&format!("# TYPE {family} ")),
            "{family} is missing from\n{after}"
        );
    }
    let grew = |series: &str| {
        assert!(
            value(&after, series) > value(&before, series),
            "{series}: {} then {}",
            value(&before, series),
            value(&after, series)
        );
    };
    grew("kings_corner_moves_accepted_total{by=\"player\"}");
    grew(bot_moves);
    grew("kings_corner_moves_refused_total{code=\"version_conflict\"}");
    grew("kings_corner_moves_refused_total{code=\"not_your_turn\"}");
    grew(delivered);
    grew("kings_corner_append_batch_moves_count");
    grew("kings_corner_append_commit_duration_seconds_count");
    grew("kings_corner_db_pool_acquire_duration_seconds_count");
    grew("kings_corner_bot_decision_duration_seconds_count{level=\"basic\"}");
    let moves_route = "route=\"/v1/matches/{id}/moves\",method=\"POST\",status=\"200\"";
    assert!(
        total(
            &after,
            "kings_corner_http_request_duration_seconds_count",
            moves_route
        ) > total(
            &before,
            "kings_corner_http_request_duration_seconds_count",
            moves_route
        )
    );
    assert!(
        total(&after, "kings_corner_state_cache_lookups_total", "")
            > total(&before, "kings_corner_state_cache_lookups_total", "")
    );
    assert!(value(&after, "kings_corner_state_cache_matches") >= 1.0);
    assert!(value(&after, "kings_corner_db_pool_max_connections") >= 1.0);
    assert!(value(&after, "kings_corner_held_connections_limit") >= 1.0);
    assert_eq!(
        value(&after, "kings_corner_build_info{version=\"0.1.0\"}"),
        1.0
    );

    // Bounded labels: no id, no name.
    for secret in [
        id.as_str(),
        bot_match.as_str(),
        webhook.as_str(),
        "player0",
        "player1",
    ] {
        assert!(!after.contains(secret), "{secret} is in a label");
    }
}

/// The background work waiting is read from the database: a bot's turn waits while another
/// process holds its lease, and the gauges say so, with its age on the match's clock; so does
/// a match marked for the vacation round.
#[tokio::test]
async fn the_queues_gauges_count_what_waits() {
    let app = spawn_app_with(|_| {}).await;
    let people = crate::helpers::players(&app, 2).await;
    // A table of two people and a bot, leased to "another process" for good before it starts:
    // this process's bots never take its turns. The people play until the bot's turn, which
    // then waits.
    let id = bot_table_leased(&app, &people, i64::MAX / 2).await;
    until_a_bot_moves(&app, &people, &id).await;
    let gauges = |text: &str| {
        text.lines()
            .filter(|line| line.starts_with("kings_corner_bot"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The backlog is read at most once a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let text = scrape(&app).await;
    assert!(
        value(&text, "kings_corner_bot_turns_waiting") >= 1.0,
        "{}",
        gauges(&text)
    );
    app.clock.advance(30);
    // A match marked for the vacation round while "another process" holds its lease.
    sqlx::query("UPDATE matches SET vacation_due = 1, vacation_lease = $2 WHERE id = $1")
        .bind(&id)
        .bind(i64::MAX / 2)
        .execute(app.sql())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let later = scrape(&app).await;
    assert!(
        value(&later, "kings_corner_bot_queue_lag_seconds") >= 30.0,
        "{}",
        gauges(&later)
    );
    assert_eq!(value(&later, "kings_corner_vacation_work_due"), 1.0);
}

/// Pages on other origins never read the metrics, although the API allows them.
#[tokio::test]
async fn metrics_stay_off_cors() {
    let app = spawn_app_with(|settings| settings.cors_allowed_origins = vec!["*".to_owned()]).await;
    let origin = "https://elsewhere.example";
    for path in ["/v1/rules", "/metrics"] {
        let read = app
            .client
            .get(format!("{}{path}", app.address))
            .header("origin", origin)
            .send()
            .await
            .unwrap();
        assert_eq!(read.status(), 200);
        let preflight = app
            .client
            .request(reqwest::Method::OPTIONS, format!("{}{path}", app.address))
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .send()
            .await
            .unwrap();
        let allowed = header(&read, "access-control-allow-origin").is_some()
            || header(&preflight, "access-control-allow-origin").is_some();
        assert_eq!(allowed, path == "/v1/rules", "{path}");
    }
}

/// `METRICS_BIND_ADDRESS`: the metrics on their own listener, and not on the API's.
#[tokio::test]
async fn metrics_move_to_their_own_address() {
    let (_database, url) = crate::helpers::TestDatabase::create().await;
    let mut settings = default_settings();
    settings.database.url = url;
    settings.metrics_bind = Some("127.0.0.1:0".parse().unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let app = Application::build_with_clock(settings, listener, Arc::new(ManualClock::default()))
        .await
        .unwrap();
    let api = format!("http://{}", app.address());
    let metrics = format!("http://{}", app.metrics_address().unwrap());
    tokio::spawn(app.run());
    let client = reqwest::Client::new();
    let text = scrape_at(&client, &metrics).await;
    assert!(text.contains("# TYPE kings_corner_db_pool_max_connections gauge"));
    let on_api = client.get(format!("{api}/metrics")).send().await.unwrap();
    assert_eq!(on_api.status(), 404);
    assert_eq!(
        client
            .get(format!("{metrics}/v1/rules"))
            .send()
            .await
            .unwrap()
            .status(),
        404,
        "the metrics listener serves the metrics alone"
    );
}
