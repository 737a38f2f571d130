//! An email address on the account, verified by a link; password reset by email; against a
//! real SMTP server in the test (`smtp_sink.rs`).

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app};
use crate::smtp_sink::{SmtpSink, app_with_mail};

const PASSWORD: &str = "correct horse";

async fn put_email(app: &TestApp, token: &str, body: &Value) -> reqwest::Response {
    app.client
        .put(format!("{}/v1/me/email", app.address))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Registers `name` and logs in: its access token.
async fn account(app: &TestApp, name: &str) -> (String, Value) {
    app.register(name, PASSWORD).await;
    let tokens = app.login(name, PASSWORD).await;
    (tokens["access_token"].as_str().unwrap().to_owned(), tokens)
}

/// Follows a verification link: posts its token, as the web client does.
async fn follow_link(app: &TestApp, token: &str) -> reqwest::Response {
    app.post("/v1/auth/email-verification", &json!({"token": token}))
        .await
}

async fn me(app: &TestApp, token: &str) -> Value {
    let response = app.get("/v1/me", Some(token)).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// Sets and verifies `address` for the account of `token`.
async fn verified(app: &TestApp, sink: &SmtpSink, token: &str, address: &str) {
    let before = sink.to(address).len();
    let set = put_email(app, token, &json!({"email": address, "password": PASSWORD})).await;
    assert_eq!(set.status(), 202, "{}", set.text().await.unwrap());
    let letters = sink.wait_for(address, before + 1).await;
    let link = letters.last().unwrap().token("verify-email=");
    let verified = follow_link(app, &link).await;
    assert_eq!(verified.status(), 204);
}

#[tokio::test]
async fn without_mail_the_email_endpoints_say_so_and_nothing_is_stored() {
    let app = spawn_app().await;
    let (token, _) = account(&app, "maya").await;
    let set = put_email(
        &app,
        &token,
        &json!({"email": "maya@example.com", "password": PASSWORD}),
    )
    .await;
    assert_problem(set, 409, "mail_unavailable").await;
    let reset = app
        .post(
            "/v1/auth/password-reset",
            &json!({"email": "maya@example.com"}),
        )
        .await;
    assert_problem(reset, 409, "mail_unavailable").await;
    assert_eq!(me(&app, &token).await["email"], Value::Null);
}

#[tokio::test]
async fn an_address_is_verified_by_its_link_once() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    let set = put_email(
        &app,
        &token,
        &json!({"email": "Maya@Example.com", "password": PASSWORD}),
    )
    .await;
    assert_eq!(set.status(), 202);
    let view: Value = set.json().await.unwrap();
    assert_eq!(view["address"], "Maya@Example.com");
    assert_eq!(view["verified"], false);
    assert_eq!(me(&app, &token).await["email"]["verified"], false);

    let letters = sink.wait_for("Maya@Example.com", 1).await;
    let letter = &letters[0];
    assert_eq!(
        letter.header("Subject").unwrap(),
        "Confirm your address for Kings Corner"
    );
    assert!(
        letter
            .header("From")
            .unwrap()
            .contains("kings@example.test")
    );
    assert!(
        letter
            .header("Message-ID")
            .unwrap()
            .ends_with("@example.test>")
    );
    assert!(
        letter
            .header("Content-Type")
            .unwrap()
            .starts_with("multipart/alternative")
    );
    assert!(letter.data.contains("text/plain") && letter.data.contains("text/html"));
    assert!(
        letter
            .text()
            .contains("https://kings.example.test/play/#verify-email=")
    );
    assert_eq!(letter.header("List-Unsubscribe"), None, "not an alert");

    let link = letter.token("verify-email=");
    let verified = follow_link(&app, &link).await;
    assert_eq!(verified.status(), 204);
    let email = &me(&app, &token).await["email"];
    assert_eq!(email["verified"], true);
    assert!(email["verified_at"].is_string());
    // Spent.
    let again = follow_link(&app, &link).await;
    assert_problem(again, 404, "invalid_email_token").await;
    let forged = app
        .post(
            "/v1/auth/email-verification",
            &json!({"token": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}),
        )
        .await;
    assert_problem(forged, 404, "invalid_email_token").await;
}

#[tokio::test]
async fn a_link_is_bound_to_its_address_and_expires() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    put_email(
        &app,
        &token,
        &json!({"email": "first@example.com", "password": PASSWORD}),
    )
    .await;
    let first = sink.wait_for("first@example.com", 1).await[0].token("verify-email=");
    put_email(
        &app,
        &token,
        &json!({"email": "second@example.com", "password": PASSWORD}),
    )
    .await;
    let second = sink.wait_for("second@example.com", 1).await[0].token("verify-email=");
    // The first address is no longer the account's: its link verifies nothing.
    let stale = follow_link(&app, &first).await;
    assert_problem(stale, 404, "invalid_email_token").await;
    // A day and a bit later the second link has expired.
    app.clock.advance(24 * 3600 + 1);
    let late = follow_link(&app, &second).await;
    assert_problem(late, 404, "invalid_email_token").await;
    assert_eq!(me(&app, &token).await["email"]["verified"], false);
    // A new link works.
    let resent = app
        .client
        .post(format!("{}/v1/me/email/verification", app.address))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(resent.status(), 202);
    let fresh = sink.wait_for("second@example.com", 2).await[1].token("verify-email=");
    let verified = follow_link(&app, &fresh).await;
    assert_eq!(verified.status(), 204);
}

#[tokio::test]
async fn changing_a_verified_address_tells_the_old_one() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    verified(&app, &sink, &token, "old@example.com").await;
    put_email(
        &app,
        &token,
        &json!({"email": "new.address@example.com", "password": PASSWORD}),
    )
    .await;
    let told = sink.wait_for("old@example.com", 2).await;
    let letter = &told[1];
    assert_eq!(
        letter.header("Subject").unwrap(),
        "Your Kings Corner address changed"
    );
    let text = letter.text();
    assert!(
        text.contains("n…s@example.com"),
        "the new address, redacted: {text}"
    );
    assert!(!text.contains("new.address@example.com"));
    sink.wait_for("new.address@example.com", 1).await;
}

#[tokio::test]
async fn bad_addresses_are_refused_and_nothing_is_stored() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    let long = format!("{}@example.com", "a".repeat(250));
    for address in [
        "maya",
        "maya@example",
        "a@b\r\nBcc: c@d",
        "maya@example.com\r\nBcc: victim@example.com",
        "Maya <maya@example.com>",
        long.as_str(),
        "",
    ] {
        let set = put_email(
            &app,
            &token,
            &json!({"email": address, "password": PASSWORD}),
        )
        .await;
        let problem = assert_problem(set, 422, "invalid_email").await;
        assert_eq!(problem["field"], "email");
    }
    let wrong = put_email(
        &app,
        &token,
        &json!({"email": "maya@example.com", "password": "wrong horse"}),
    )
    .await;
    assert_problem(wrong, 403, "wrong_password").await;
    let unknown = put_email(
        &app,
        &token,
        &json!({"email": "maya@example.com", "password": PASSWORD, "cc": "x"}),
    )
    .await;
    assert_problem(unknown, 422, "invalid_body").await;
    assert_eq!(me(&app, &token).await["email"], Value::Null);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(sink.received().is_empty(), "no letter went anywhere");
}

#[tokio::test]
async fn letters_per_account_are_limited() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    for index in 0..5 {
        let set = put_email(
            &app,
            &token,
            &json!({"email": format!("m{index}@example.com"), "password": PASSWORD}),
        )
        .await;
        assert_eq!(set.status(), 202);
    }
    let sixth = put_email(
        &app,
        &token,
        &json!({"email": "m6@example.com", "password": PASSWORD}),
    )
    .await;
    assert_problem(sixth, 429, "rate_limited").await;
}

#[tokio::test]
async fn a_reset_answers_alike_for_known_and_unknown_addresses() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    verified(&app, &sink, &token, "maya@example.com").await;
    let known = app
        .post(
            "/v1/auth/password-reset",
            &json!({"email": "MAYA@example.com"}),
        )
        .await;
    let unknown = app
        .post(
            "/v1/auth/password-reset",
            &json!({"email": "nobody@example.com"}),
        )
        .await;
    let by_name = app
        .post("/v1/auth/password-reset", &json!({"username": "nobody"}))
        .await;
    let mut answers = Vec::new();
    for response in [known, unknown, by_name] {
        assert_eq!(response.status(), 202);
        let headers: Vec<String> = response
            .headers()
            .keys()
            .map(|name| name.as_str().to_owned())
            .filter(|name| name != "date" && name != "x-request-id")
            .collect();
        answers.push((headers, response.text().await.unwrap()));
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
    let letters = sink.wait_for("maya@example.com", 2).await;
    assert_eq!(
        letters[1].header("Subject").unwrap(),
        "Set a new password for Kings Corner"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(sink.to("nobody@example.com").is_empty());
    // Neither or both names: refused for the request's own sake.
    let neither = app.post("/v1/auth/password-reset", &json!({})).await;
    assert_problem(neither, 422, "invalid_body").await;
    let malformed = app
        .post(
            "/v1/auth/password-reset",
            &json!({"email": "a@b\r\nBcc: c@d"}),
        )
        .await;
    assert_problem(malformed, 422, "invalid_email").await;
}

#[tokio::test]
async fn a_reset_signs_every_session_out_and_its_link_works_once() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, tokens) = account(&app, "maya").await;
    let (other_token, _) = account(&app, "noor").await;
    verified(&app, &sink, &token, "maya@example.com").await;
    let personal: Value = app
        .client
        .post(format!("{}/v1/me/tokens", app.address))
        .bearer_auth(&token)
        .json(&json!({"name": "bot", "scopes": ["read"]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let personal = personal["token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/v1/me", Some(&personal)).await.status(), 200);

    let asked = app
        .post("/v1/auth/password-reset", &json!({"username": "Maya"}))
        .await;
    assert_eq!(asked.status(), 202);
    let link = sink.wait_for("maya@example.com", 2).await[1].token("reset-password=");
    // Access tokens are judged to the second: the reset's moment is after this login's.
    app.clock.advance(1);
    let weak = app
        .post(
            "/v1/auth/password-reset/confirm",
            &json!({"token": link, "password": "short"}),
        )
        .await;
    assert_problem(weak, 422, "weak_password").await;
    let reset = app
        .post(
            "/v1/auth/password-reset/confirm",
            &json!({"token": link, "password": "a new horse battery"}),
        )
        .await;
    assert_eq!(reset.status(), 204);

    // Every token of the account is dead.
    assert_problem(app.get("/v1/me", Some(&token)).await, 401, "invalid_token").await;
    assert_eq!(app.get("/v1/me", Some(&personal)).await.status(), 401);
    let refreshed = app
        .post(
            "/v1/auth/refresh",
            &json!({"refresh_token": tokens["refresh_token"]}),
        )
        .await;
    assert_eq!(refreshed.status(), 401);
    // Another account is untouched.
    assert_eq!(app.get("/v1/me", Some(&other_token)).await.status(), 200);
    // The old password no longer logs in; the new one does, and its tokens work.
    let old = app
        .post(
            "/v1/auth/login",
            &json!({"username": "maya", "password": PASSWORD}),
        )
        .await;
    assert_problem(old, 401, "invalid_credentials").await;
    let fresh = app.login("maya", "a new horse battery").await;
    assert_eq!(
        app.get("/v1/me", fresh["access_token"].as_str())
            .await
            .status(),
        200
    );
    // The owner is told.
    let told = sink.wait_for("maya@example.com", 3).await;
    assert_eq!(
        told[2].header("Subject").unwrap(),
        "Your Kings Corner password was changed"
    );
    // The link is spent.
    let again = app
        .post(
            "/v1/auth/password-reset/confirm",
            &json!({"token": link, "password": "a third horse battery"}),
        )
        .await;
    assert_problem(again, 404, "invalid_email_token").await;
}

#[tokio::test]
async fn a_reset_link_expires_within_the_hour() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    verified(&app, &sink, &token, "maya@example.com").await;
    app.post(
        "/v1/auth/password-reset",
        &json!({"email": "maya@example.com"}),
    )
    .await;
    let link = sink.wait_for("maya@example.com", 2).await[1].token("reset-password=");
    app.clock.advance(3601);
    let late = app
        .post(
            "/v1/auth/password-reset/confirm",
            &json!({"token": link, "password": "a new horse battery"}),
        )
        .await;
    assert_problem(late, 404, "invalid_email_token").await;
    assert_eq!(
        app.get("/v1/me", Some(&token)).await.status(),
        200,
        "nothing changed"
    );
}

#[tokio::test]
async fn an_unverified_address_receives_no_reset() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    put_email(
        &app,
        &token,
        &json!({"email": "maya@example.com", "password": PASSWORD}),
    )
    .await;
    sink.wait_for("maya@example.com", 1).await;
    let asked = app
        .post(
            "/v1/auth/password-reset",
            &json!({"email": "maya@example.com"}),
        )
        .await;
    assert_eq!(asked.status(), 202);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        sink.to("maya@example.com").len(),
        1,
        "only the verification letter"
    );
}

#[tokio::test]
async fn a_mailbox_refused_for_good_stops_mail_until_verified_again() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    verified(&app, &sink, &token, "maya@example.com").await;
    sink.refuse("maya@example.com", "550 5.1.1 mailbox unavailable");
    app.post(
        "/v1/auth/password-reset",
        &json!({"email": "maya@example.com"}),
    )
    .await;
    let mut stopped = Value::Null;
    for _ in 0..100 {
        stopped = me(&app, &token).await["email"]["stopped"].clone();
        if stopped.is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(stopped.as_str().unwrap().contains("550"), "{stopped}");
    // No more resets go to it.
    let asked = app
        .post(
            "/v1/auth/password-reset",
            &json!({"email": "maya@example.com"}),
        )
        .await;
    assert_eq!(asked.status(), 202);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let count: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM outgoing_mail WHERE purpose = 'reset'")
            .fetch_one(app.sql())
            .await
            .unwrap();
    assert_eq!(count, 1, "the second request wrote no letter");
}

#[tokio::test]
async fn a_bounce_the_operator_reports_stops_mail_until_verified_again() {
    let sink = SmtpSink::start().await;
    let app = app_with_mail(&sink).await;
    let (token, _) = account(&app, "maya").await;
    verified(&app, &sink, &token, "maya@example.com").await;
    if app.database.postgres_name().is_some() {
        // The operator's command, on the server's database (a SQLite file is held by its
        // server alone: there the same store call is made below).
        let mut args = vec!["--database-url".into(), app.settings.database.url.clone()];
        if let Some(listen) = &app.settings.database.listen_url {
            args.extend(["--database-listen-url".into(), listen.clone()]);
        }
        if app.settings.database.behind_transaction_pooler() {
            args.extend(["--database-pooler".into(), "transaction".into()]);
        }
        args.extend(["mail".into(), "stop".into(), "MAYA@example.com".into()]);
        let (ok, said) = crate::helpers::kings_corner(args).await;
        assert!(ok, "{said}");
        assert_eq!(
            said.trim(),
            "ok: mail to M…A@example.com stopped for 1 account(s) until verified again"
        );
    } else {
        let stopped = app
            .db
            .stop_mail_to("MAYA@example.com", "a letter to this address bounced", 0)
            .await
            .unwrap();
        assert_eq!(stopped, 1);
    }
    let email = &me(&app, &token).await["email"];
    assert_eq!(email["stopped"], "a letter to this address bounced");
    app.post(
        "/v1/auth/password-reset",
        &json!({"email": "maya@example.com"}),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        sink.to("maya@example.com").len(),
        1,
        "no reset goes to a stopped address"
    );
    // A new link, followed, starts mail again.
    let resent = app
        .client
        .post(format!("{}/v1/me/email/verification", app.address))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(resent.status(), 202);
    let link = sink.wait_for("maya@example.com", 2).await[1].token("verify-email=");
    let verified = follow_link(&app, &link).await;
    assert_eq!(verified.status(), 204);
    assert_eq!(me(&app, &token).await["email"]["stopped"], Value::Null);
}
