//! Registration, `GET /v1/me`, and how bad bodies are answered.

use serde_json::json;

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn register_then_read_my_account() {
    let app = spawn_app().await;
    let created = app.register("Maya_1", "correct horse").await;
    assert_eq!(created["username"], "Maya_1");
    assert!(created.get("password").is_none() && created.get("password_hash").is_none());
    let tokens = app.login("maya_1", "correct horse").await;
    let me = app.get("/v1/me", tokens["access_token"].as_str()).await;
    assert_eq!(me.status(), 200);
    let me: serde_json::Value = me.json().await.unwrap();
    assert_eq!(me["id"], created["id"]);
    assert_eq!(me["username"], "Maya_1");
}

#[tokio::test]
async fn usernames_are_unique_without_regard_to_case() {
    let app = spawn_app().await;
    app.register("Leo", "correct horse").await;
    let again = app
        .post(
            "/v1/accounts",
            &json!({"username": "lEO", "password": "another horse"}),
        )
        .await;
    assert_problem(again, 409, "username_taken").await;
}

#[tokio::test]
async fn bad_usernames_and_weak_passwords_are_refused_and_nothing_is_written() {
    let app = spawn_app().await;
    for username in [
        "ab",
        "has space",
        "ünïcode",
        "x".repeat(33).as_str(),
        "semi;colon",
    ] {
        let response = app
            .post(
                "/v1/accounts",
                &json!({"username": username, "password": "correct horse"}),
            )
            .await;
        let body = assert_problem(response, 422, "invalid_username").await;
        assert_eq!(body["field"], "username");
    }
    for password in ["short", "", &"p".repeat(257)] {
        let response = app
            .post(
                "/v1/accounts",
                &json!({"username": "sam", "password": password}),
            )
            .await;
        let body = assert_problem(response, 422, "weak_password").await;
        assert_eq!(body["field"], "password");
    }
    // None of those attempts created "sam".
    app.register("sam", "correct horse").await;
}

#[tokio::test]
async fn malformed_oversized_and_mistyped_bodies_are_problems() {
    let app = spawn_app().await;
    let url = format!("{}/v1/accounts", app.address);
    let send = |body: String, content_type: &'static str| {
        app.client
            .post(&url)
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    assert_problem(
        send("{\"username\":".into(), "application/json")
            .await
            .unwrap(),
        400,
        "malformed_json",
    )
    .await;
    assert_problem(
        send("[]".into(), "application/json").await.unwrap(),
        422,
        "invalid_body",
    )
    .await;
    let unknown =
        json!({"username": "maya", "password": "correct horse", "is_admin": true}).to_string();
    assert_problem(
        send(unknown, "application/json").await.unwrap(),
        422,
        "invalid_body",
    )
    .await;
    let huge = json!({"username": "maya", "password": "x".repeat(100_000)}).to_string();
    assert_problem(
        send(huge, "application/json").await.unwrap(),
        413,
        "payload_too_large",
    )
    .await;
    assert_problem(
        send("username=maya".into(), "text/plain").await.unwrap(),
        415,
        "unsupported_media_type",
    )
    .await;
    assert_problem(app.get("/v1/nothing-here", None).await, 404, "not_found").await;
}
