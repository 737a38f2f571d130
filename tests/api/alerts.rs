//! Alerts by email away from the table: settings, a letter per notification or a digest,
//! quiet hours in the player's zone across a daylight-saving change, none while the player
//! watches live, and the one-click unsubscribe of RFC 8058; against the tests' SMTP server.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem};
use crate::smtp_sink::{Received, SmtpSink, app_with_mail};

const PASSWORD: &str = "correct horse";

/// A player with a verified address `name@example.com`.
async fn player_with_mail(app: &TestApp, sink: &SmtpSink, name: &str) -> Player {
    app.register(name, PASSWORD).await;
    let token = app.login(name, PASSWORD).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let address = format!("{name}@example.com");
    let set = app
        .client
        .put(format!("{}/v1/me/email", app.address))
        .bearer_auth(&token)
        .json(&json!({"email": address, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(set.status(), 202);
    let link = sink.wait_for(&address, 1).await[0].token("verify-email=");
    let verified = app
        .post("/v1/auth/email-verification", &json!({"token": link}))
        .await;
    assert_eq!(verified.status(), 204);
    Player { token }
}

async fn put_alerts(app: &TestApp, player: &Player, settings: &Value) -> reqwest::Response {
    app.client
        .put(format!("{}/v1/me/alerts", app.address))
        .bearer_auth(&player.token)
        .json(settings)
        .send()
        .await
        .unwrap()
}

/// `host` invites `guest` (by name) to a new private table: one `invited` notification.
async fn invite(app: &TestApp, host: &Player, guest: &str) -> String {
    let created = app
        .post_as(
            host,
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let invited = app
        .post_as(
            host,
            &format!("/v1/matches/{id}/invitations"),
            &json!({"username": guest}),
        )
        .await;
    assert_eq!(invited.status(), 201);
    id
}

/// The letters to `address` other than its verification letter, after giving the server a
/// moment.
async fn alerts_to(sink: &SmtpSink, address: &str, settle: Duration) -> Vec<Received> {
    tokio::time::sleep(settle).await;
    sink.to(address)
        .into_iter()
        .filter(|letter| letter.header("List-Unsubscribe").is_some())
        .collect()
}

async fn wait_alerts(sink: &SmtpSink, address: &str, count: usize) -> Vec<Received> {
    for _ in 0..200 {
        let letters = alerts_to(sink, address, Duration::ZERO).await;
        if letters.len() >= count {
            return letters;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "{address} got {} alert letters, not {count}",
        alerts_to(sink, address, Duration::ZERO).await.len()
    );
}

fn each(kinds: &[&str]) -> Value {
    json!({"email": kinds, "digest": "each", "digest_hour": 8, "quiet_hours": null, "time_zone": "UTC"})
}

#[tokio::test]
async fn settings_are_checked_and_kept() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    app.register("plain", PASSWORD).await;
    let plain = Player {
        token: app.login("plain", PASSWORD).await["access_token"]
            .as_str()
            .unwrap()
            .to_owned(),
    };
    let defaults = app.json_as(&plain, "/v1/me/alerts").await;
    assert_eq!(
        defaults,
        json!({"email": [], "push": [], "digest": "each", "digest_hour": 8, "quiet_hours": null, "time_zone": "UTC"})
    );
    // No verified address: no email alerts.
    assert_problem(
        put_alerts(&app, &plain, &each(&["your_turn"])).await,
        409,
        "email_not_verified",
    )
    .await;

    let maya = player_with_mail(&app, &sink, "maya").await;
    for (settings, field) in [
        (each(&["your_turn", "coffee_ready"]), "email"),
        (
            json!({"email": [], "digest": "each", "digest_hour": 8, "quiet_hours": null, "time_zone": "Mars/Olympus"}),
            "time_zone",
        ),
        (
            json!({"email": [], "digest": "each", "digest_hour": 8, "quiet_hours": {"from": "25:00", "until": "07:00"}, "time_zone": "UTC"}),
            "quiet_hours",
        ),
        (
            json!({"email": [], "digest": "daily", "digest_hour": 24, "quiet_hours": null, "time_zone": "UTC"}),
            "digest_hour",
        ),
    ] {
        let problem = assert_problem(
            put_alerts(&app, &maya, &settings).await,
            422,
            "invalid_alert_settings",
        )
        .await;
        assert_eq!(problem["field"], field, "{settings}");
    }
    let unknown = json!({"email": [], "digest": "weekly", "digest_hour": 8, "quiet_hours": null, "time_zone": "UTC"});
    assert_problem(put_alerts(&app, &maya, &unknown).await, 422, "invalid_body").await;
    assert_eq!(
        app.json_as(&maya, "/v1/me/alerts").await["email"],
        json!([]),
        "nothing stored"
    );

    let chosen = json!({"email": ["your_turn", "invited", "your_turn"], "digest": "daily", "digest_hour": 7, "quiet_hours": {"from": "22:00", "until": "07:30"}, "time_zone": "Europe/Berlin"});
    let stored = put_alerts(&app, &maya, &chosen).await;
    assert_eq!(stored.status(), 200);
    let expected = json!({"email": ["your_turn", "invited"], "push": [], "digest": "daily", "digest_hour": 7, "quiet_hours": {"from": "22:00", "until": "07:30"}, "time_zone": "Europe/Berlin"});
    assert_eq!(stored.json::<Value>().await.unwrap(), expected);
    assert_eq!(app.json_as(&maya, "/v1/me/alerts").await, expected);
}

#[tokio::test]
async fn a_turn_is_mailed_once_with_the_table_and_an_unsubscribe_link() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let host = player_with_mail(&app, &sink, "host").await;
    let maya = player_with_mail(&app, &sink, "maya").await;
    assert_eq!(put_alerts(&app, &maya, &json!({"email": ["invited"], "digest": "each", "digest_hour": 8, "quiet_hours": null, "time_zone": "Europe/Berlin"})).await.status(), 200);
    let id = invite(&app, &host, "maya").await;
    let letters = wait_alerts(&sink, "maya@example.com", 1).await;
    let letter = &letters[0];
    assert_eq!(
        letter.header("Subject").unwrap(),
        "An invitation to a Kings Corner table"
    );
    let text = letter.text();
    assert!(
        text.contains("host invites you to a private table of 2 seats."),
        "{text}"
    );
    assert!(text.contains(&format!("https://kings.example.test/play/#/match/{id}")));
    assert!(letter.data.contains("text/plain") && letter.data.contains("text/html"));
    // RFC 2369 / RFC 8058.
    let unsubscribe = letter.header("List-Unsubscribe").unwrap();
    assert!(
        unsubscribe.starts_with("<https://kings.example.test/v1/alerts/unsubscribe/")
            && unsubscribe.ends_with('>'),
        "{unsubscribe}"
    );
    assert_eq!(
        letter.header("List-Unsubscribe-Post").unwrap(),
        "List-Unsubscribe=One-Click"
    );
    assert_eq!(letter.header("Auto-Submitted").unwrap(), "auto-generated");
    // The host asked for nothing.
    assert!(
        alerts_to(&sink, "host@example.com", Duration::from_millis(500))
            .await
            .is_empty()
    );
    // Once.
    assert_eq!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(500))
            .await
            .len(),
        1
    );
    let outbox: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM outgoing_mail WHERE purpose = 'alerts'")
            .fetch_one(app.sql())
            .await
            .unwrap();
    assert_eq!(outbox, 1);

    // One click, without logging in: a POST of `List-Unsubscribe=One-Click` to the link.
    let path = unsubscribe
        .trim_matches(|c| c == '<' || c == '>')
        .trim_start_matches("https://kings.example.test");
    let page = app.get(path, None).await;
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("<form method=\"post\""));
    assert_eq!(
        app.json_as(&maya, "/v1/me/alerts").await["email"],
        json!(["invited"]),
        "opening the page changes nothing"
    );
    let clicked = app
        .client
        .post(format!("{}{path}", app.address))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(clicked.status(), 200);
    assert_eq!(
        clicked.json::<Value>().await.unwrap(),
        json!({"turned_off": ["invited"]})
    );
    assert_eq!(
        app.json_as(&maya, "/v1/me/alerts").await["email"],
        json!([])
    );
    invite(&app, &host, "maya").await;
    assert_eq!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(800))
            .await
            .len(),
        1,
        "no more letters"
    );
    let forged = app
        .client
        .post(format!(
            "{}/v1/alerts/unsubscribe/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            app.address
        ))
        .send()
        .await
        .unwrap();
    assert_problem(forged, 404, "not_found").await;
}

#[tokio::test]
async fn six_alerts_in_an_hour_make_one_hourly_letter() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    app.clock.freeze();
    let host = player_with_mail(&app, &sink, "host").await;
    let maya = player_with_mail(&app, &sink, "maya").await;
    put_alerts(&app, &maya, &json!({"email": ["invited"], "digest": "hourly", "digest_hour": 8, "quiet_hours": null, "time_zone": "UTC"})).await;
    for _ in 0..6 {
        invite(&app, &host, "maya").await;
        app.clock.advance(9 * 60);
    }
    // 54 minutes after the first: nothing yet.
    assert!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(2500))
            .await
            .is_empty()
    );
    app.clock.advance(6 * 60);
    let letters = wait_alerts(&sink, "maya@example.com", 1).await;
    assert_eq!(
        letters[0].header("Subject").unwrap(),
        "6 things happened at your Kings Corner tables"
    );
    assert_eq!(
        letters[0].text().matches("host invites you").count(),
        12,
        "six lines, in text and HTML"
    );
    assert_eq!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(2500))
            .await
            .len(),
        1
    );
}

#[tokio::test]
async fn quiet_hours_hold_letters_until_the_local_morning_across_a_clock_change() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    app.clock.freeze();
    let host = player_with_mail(&app, &sink, "host").await;
    let maya = player_with_mail(&app, &sink, "maya").await;
    put_alerts(&app, &maya, &json!({"email": ["invited"], "digest": "each", "digest_hour": 8, "quiet_hours": {"from": "22:00", "until": "07:00"}, "time_zone": "Europe/Berlin"})).await;
    // 23:00 in Berlin on 30 October 2027, the night the clocks go back (03:00 CEST → 02:00
    // CET on the 31st).
    use kings_corner::time_source::Clock;
    let now = app.clock.now();
    let night = kings_corner::time_source::parse_rfc3339("2027-10-30T21:00:00Z").unwrap(); // 23:00 CEST
    app.clock.advance(night - now);
    invite(&app, &host, "maya").await;
    assert!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(2500))
            .await
            .is_empty(),
        "quiet"
    );
    // 06:30 CET on the 31st is 05:30 UTC: still quiet, though it is 07:30 by the summer clock.
    let early = kings_corner::time_source::parse_rfc3339("2027-10-31T05:30:00Z").unwrap();
    app.clock.advance(early - app.clock.now());
    assert!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(2500))
            .await
            .is_empty(),
        "still quiet"
    );
    // 07:00 CET is 06:00 UTC.
    let morning = kings_corner::time_source::parse_rfc3339("2027-10-31T06:00:00Z").unwrap();
    app.clock.advance(morning - app.clock.now());
    let letters = wait_alerts(&sink, "maya@example.com", 1).await;
    assert_eq!(letters.len(), 1);
}

#[tokio::test]
async fn nothing_is_mailed_while_the_player_watches_live() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let host = player_with_mail(&app, &sink, "host").await;
    let maya = player_with_mail(&app, &sink, "maya").await;
    put_alerts(&app, &maya, &each(&["invited"])).await;
    let stream = app
        .client
        .get(format!("{}/v1/me/stream", app.address))
        .bearer_auth(&maya.token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    invite(&app, &host, "maya").await;
    assert!(
        alerts_to(&sink, "maya@example.com", Duration::from_millis(2500))
            .await
            .is_empty(),
        "seen live"
    );
    drop(stream);
    // A minute after the stream closed, the player counts as away again.
    app.clock.advance(61);
    tokio::time::sleep(Duration::from_millis(300)).await;
    invite(&app, &host, "maya").await;
    let letters = wait_alerts(&sink, "maya@example.com", 1).await;
    assert_eq!(letters.len(), 1);
    assert_eq!(
        letters[0].text().matches("host invites you").count(),
        2,
        "one line, in text and HTML"
    );
}
