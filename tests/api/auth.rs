//! Login, tokens and their refusals, refresh rotation and reuse, logout, rate limiting.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, start};

const SECRET: &str = "a test secret that is long enough for HS256 keys";

#[tokio::test]
async fn wrong_password_and_unknown_user_are_indistinguishable() {
    let app = spawn_app().await;
    app.register("maya", "correct horse").await;
    let wrong = app
        .post(
            "/v1/auth/login",
            &json!({"username": "maya", "password": "wrong horse"}),
        )
        .await;
    let wrong = assert_problem(wrong, 401, "invalid_credentials").await;
    let unknown = app
        .post(
            "/v1/auth/login",
            &json!({"username": "nobody", "password": "wrong horse"}),
        )
        .await;
    let unknown = assert_problem(unknown, 401, "invalid_credentials").await;
    assert_eq!(wrong, unknown);
}

fn token(claims: Value, kid: &str, secret: &str) -> String {
    let header = Header {
        kid: Some(kid.to_owned()),
        ..Header::new(Algorithm::HS256)
    };
    jsonwebtoken::encode(
        &header,
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

#[tokio::test]
async fn forged_expired_and_foreign_tokens_are_refused() {
    let app = spawn_app_with(|settings| settings.jwt_secret = Some(SECRET.to_owned())).await;
    let account = app.register("maya", "correct horse").await;
    let tokens = app.login("maya", "correct horse").await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(app.get("/v1/me", Some(access)).await.status(), 200);

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let sub = account["id"].as_str().unwrap();
    let claims = |changes: Value| {
        let mut claims = json!({"sub": sub, "iss": "kings-corner", "aud": "kings-corner-api", "iat": now, "exp": now + 600, "typ": "access"});
        for (key, value) in changes.as_object().unwrap() {
            if value.is_null() {
                claims.as_object_mut().unwrap().remove(key);
            } else {
                claims[key] = value.clone();
            }
        }
        claims
    };
    // The forging works: a token made the same way with the right claims passes.
    assert_eq!(
        app.get(
            "/v1/me",
            Some(&token(claims(json!({})), "configured", SECRET))
        )
        .await
        .status(),
        200
    );

    let mut tampered = access.to_owned();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    let header_none = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT","kid":"configured"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims(json!({})).to_string());
    let refused = [
        (
            "expired",
            token(
                claims(json!({"iat": now - 7200, "exp": now - 3600})),
                "configured",
                SECRET,
            ),
        ),
        ("tampered", tampered),
        (
            "wrong audience",
            token(claims(json!({"aud": "another-api"})), "configured", SECRET),
        ),
        (
            "wrong issuer",
            token(claims(json!({"iss": "someone-else"})), "configured", SECRET),
        ),
        (
            "no iat",
            token(claims(json!({"iat": null})), "configured", SECRET),
        ),
        (
            "not an access token",
            token(claims(json!({"typ": "refresh"})), "configured", SECRET),
        ),
        (
            "wrong key",
            token(
                claims(json!({})),
                "configured",
                "another secret that is also long enough!!",
            ),
        ),
        ("unknown kid", token(claims(json!({})), "k9", SECRET)),
        ("alg none", format!("{header_none}.{payload}.")),
        (
            "refresh token as access token",
            tokens["refresh_token"].as_str().unwrap().to_owned(),
        ),
        ("garbage", "not-a-token".to_owned()),
    ];
    for (what, bad) in refused {
        let response = app.get("/v1/me", Some(&bad)).await;
        assert_eq!(response.status(), 401, "{what}");
        assert_problem(response, 401, "invalid_token").await;
    }
    assert_problem(app.get("/v1/me", None).await, 401, "missing_token").await;
}

#[tokio::test]
async fn refresh_rotates_and_reuse_revokes_the_family() {
    let app = spawn_app().await;
    app.register("leo", "correct horse").await;
    let first = app.login("leo", "correct horse").await;
    let app = &app;
    let refresh = |token: &Value| {
        let body = json!({"refresh_token": token.as_str().unwrap()});
        async move { app.post("/v1/auth/refresh", &body).await }
    };
    let second = refresh(&first["refresh_token"]).await;
    assert_eq!(second.status(), 200);
    let second: Value = second.json().await.unwrap();
    assert_ne!(second["refresh_token"], first["refresh_token"]);
    assert_eq!(
        app.get("/v1/me", second["access_token"].as_str())
            .await
            .status(),
        200
    );
    // The spent token comes back: theft or replay. The whole family is revoked.
    assert_problem(
        refresh(&first["refresh_token"]).await,
        401,
        "refresh_token_reused",
    )
    .await;
    assert_problem(
        refresh(&second["refresh_token"]).await,
        401,
        "refresh_token_reused",
    )
    .await;
    // Another login is another family and still works.
    let other = app.login("leo", "correct horse").await;
    assert_eq!(refresh(&other["refresh_token"]).await.status(), 200);
    assert_problem(
        refresh(&json!("made-up")).await,
        401,
        "invalid_refresh_token",
    )
    .await;
}

#[tokio::test]
async fn logout_revokes_the_refresh_token() {
    let app = spawn_app().await;
    app.register("sam", "correct horse").await;
    let tokens = app.login("sam", "correct horse").await;
    let body = json!({"refresh_token": tokens["refresh_token"]});
    assert_eq!(app.post("/v1/auth/logout", &body).await.status(), 204);
    assert_eq!(app.post("/v1/auth/refresh", &body).await.status(), 401);
    assert_eq!(
        app.post("/v1/auth/logout", &json!({"refresh_token": "unknown"}))
            .await
            .status(),
        204
    );
}

#[tokio::test]
async fn login_attempts_are_rate_limited() {
    let app = spawn_app_with(|settings| settings.login_attempts_per_minute = 3).await;
    app.register("maya", "correct horse").await;
    for _ in 0..3 {
        let response = app
            .post(
                "/v1/auth/login",
                &json!({"username": "maya", "password": "wrong horse"}),
            )
            .await;
        assert_eq!(response.status(), 401);
    }
    let limited = app
        .post(
            "/v1/auth/login",
            &json!({"username": "maya", "password": "correct horse"}),
        )
        .await;
    let retry_after: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after));
    assert_problem(limited, 429, "rate_limited").await;
}

#[tokio::test]
async fn signing_keys_are_shared_by_processes_on_one_database_and_survive_restarts() {
    let app = spawn_app().await;
    app.register("maya", "correct horse").await;
    let tokens = app.login("maya", "correct horse").await;
    // A second server process on the same database, as after a restart or behind a balancer.
    let (_, second) = start(app.settings.clone()).await;
    let me = app
        .client
        .get(format!("{second}/v1/me"))
        .bearer_auth(tokens["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
}
