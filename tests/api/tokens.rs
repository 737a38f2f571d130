//! Personal access tokens and scopes (issue 10): every endpoint names the scope it needs, in
//! code and in the OpenAPI description, and a token without it is refused.

use std::collections::{BTreeMap, BTreeSet};

use kings_corner::time_source::parse_rfc3339;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, players, spawn_app};

/// The operations that need no token: the only ones whose description may declare no scope.
/// Every other operation must declare one scope (`security: [{"bearer": [scope]}]`), which
/// [`every_endpoint_names_its_scope_and_refuses_tokens_without_it`] holds the server to: a
/// new public operation fails it until it is listed here.
const NEEDS_NO_TOKEN: &[(&str, &str)] = &[
    ("get", "/healthz"),
    ("get", "/readyz"),
    ("get", "/v1/rules"),
    ("get", "/v1/rules/book"),
    ("post", "/v1/accounts"),
    ("post", "/v1/auth/login"),
    ("post", "/v1/auth/refresh"),
    ("post", "/v1/auth/logout"),
    ("post", "/v1/auth/email-verification"),
    ("post", "/v1/auth/password-reset"),
    ("post", "/v1/auth/password-reset/confirm"),
    ("get", "/v1/alerts/unsubscribe/{token}"),
    ("post", "/v1/alerts/unsubscribe/{token}"),
    ("get", "/v1/push/key"),
];

/// Operations that also answer without a token: spectators of public matches need none.
const ALSO_WITHOUT_A_TOKEN: &[(&str, &str)] = &[
    ("get", "/v1/matches"),
    ("get", "/v1/matches/{id}"),
    ("get", "/v1/matches/{id}/view"),
    ("get", "/v1/matches/{id}/events"),
    ("get", "/v1/matches/{id}/stream"),
    ("get", "/v1/matches/{id}/replay"),
    ("get", "/v1/players/{username}"),
    ("get", "/v1/leaderboards/{pool}"),
];

const SCOPES: [&str; 4] = ["play", "read", "webhooks", "account"];

/// Creates a personal access token with these scopes using `player`'s token; the token.
async fn token(app: &TestApp, player: &Player, scopes: &[&str]) -> String {
    let created = app
        .post_as(
            player,
            "/v1/me/tokens",
            &json!({"name": format!("{scopes:?}"), "scopes": scopes}),
        )
        .await;
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
    created.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sends `method path` with an optional bearer token (and `{}` as the body of a POST or
/// DELETE); the status and the problem's code, if any.
async fn call(
    app: &TestApp,
    method: &str,
    path: &str,
    bearer: Option<&str>,
) -> (u16, Option<String>) {
    let url = format!("{}{path}", app.address);
    let mut request = match method {
        "get" => app.client.get(url),
        "post" => app.client.post(url).json(&json!({})),
        "delete" => app.client.delete(url).json(&json!({})),
        "put" => app.client.put(url).json(&json!({})),
        other => panic!("no test for {other}"),
    };
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let is_problem = response
        .headers()
        .get("content-type")
        .is_some_and(|value| value == "application/problem+json");
    // A stream's body never ends: only a problem's is read.
    let code = if is_problem {
        response.json::<Value>().await.unwrap()["code"]
            .as_str()
            .map(str::to_owned)
    } else {
        None
    };
    (status, code)
}

/// Every operation the OpenAPI description lists declares the one scope it needs, or is one
/// of those that need no token. A token lacking that scope is refused with
/// `403 insufficient_scope`; a token with only that scope gets past the check; an operation
/// that needs no token answers without one.
#[tokio::test]
async fn every_endpoint_names_its_scope_and_refuses_tokens_without_it() {
    let app = spawn_app().await;
    let players = players(&app, 1).await;
    let api = app.json_as(&players[0], "/openapi.json").await;
    let mut described = BTreeMap::new();
    for (path, item) in api["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let security = operation.get("security").cloned().unwrap_or(json!([]));
            described.insert((method.clone(), path.clone()), security);
        }
    }
    let operations: BTreeSet<(&str, &str)> = described
        .keys()
        .map(|(method, path)| (method.as_str(), path.as_str()))
        .collect();
    for listed in NEEDS_NO_TOKEN.iter().chain(ALSO_WITHOUT_A_TOKEN) {
        assert!(operations.contains(listed), "{listed:?} is not in the API");
    }

    let only: BTreeMap<&str, String> = {
        let mut only = BTreeMap::new();
        for scope in SCOPES {
            only.insert(scope, token(&app, &players[0], &[scope]).await);
        }
        only
    };
    let mut all_but = BTreeMap::new();
    for scope in SCOPES {
        let others: Vec<&str> = SCOPES.into_iter().filter(|other| *other != scope).collect();
        all_but.insert(scope, token(&app, &players[0], &others).await);
    }
    let some_id = "00000000-0000-4000-8000-000000000000";
    for ((method, template), security) in &described {
        let (method, template) = (method.as_str(), template.as_str());
        let path = template
            .replace("{id}", some_id)
            .replace("{username}", "nobody-here")
            .replace("{pool}", "standard");
        let scope = if NEEDS_NO_TOKEN.contains(&(method, template)) {
            None
        } else {
            let declared = security
                .as_array()
                .and_then(|ways| ways.iter().find_map(|way| way["bearer"].as_array()))
                .and_then(|scopes| match &scopes[..] {
                    [scope] => scope.as_str(),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{method} {template} declares one scope: {security}"));
            Some(*SCOPES.iter().find(|scope| **scope == declared).unwrap())
        };
        match scope {
            Some(scope) => {
                let open = ALSO_WITHOUT_A_TOKEN.contains(&(method, template));
                let declared = match open {
                    true => json!([{}, {"bearer": [scope]}]),
                    false => json!([{"bearer": [scope]}]),
                };
                assert_eq!(
                    *security, declared,
                    "{method} {template} declares its scope"
                );
                let (status, code) = call(&app, method, &path, Some(&all_but[scope])).await;
                assert_eq!(
                    (status, code.as_deref()),
                    (403, Some("insufficient_scope")),
                    "{method} {template} without `{scope}`"
                );
                let (status, code) = call(&app, method, &path, Some(&only[scope])).await;
                assert!(
                    status != 401 && code.as_deref() != Some("insufficient_scope"),
                    "{method} {template} with only `{scope}`: {status} {code:?}"
                );
                let (status, code) = call(&app, method, &path, None).await;
                match open {
                    // Answered (here: no such match, or a query missing), never asked for a token.
                    true => assert!(
                        status != 401 && code.as_deref() != Some("missing_token"),
                        "{method} {template} without a token: {status} {code:?}"
                    ),
                    false => assert_eq!(status, 401, "{method} {template} without a token"),
                }
            }
            None => {
                assert!(
                    *security == json!([{}]) || *security == json!([]),
                    "{method} {template} needs no token: {security}"
                );
                let (status, _) = call(&app, method, &path, None).await;
                assert_ne!(status, 401, "{method} {template} without a token");
            }
        }
    }
}

/// A token for a bot: created with a session, shown once and stored as a hash, used to play
/// (its last use listed), unable to grant more than it has, and dead once revoked, expired or
/// its account deleted.
#[tokio::test]
async fn personal_tokens_are_shown_once_used_listed_and_revoked() {
    let app = spawn_app().await;
    let players = players(&app, 2).await;
    let created = app
        .post_as(
            &players[0],
            "/v1/me/tokens",
            &json!({"name": "my bot", "scopes": ["play", "read"], "expires_in_days": 30}),
        )
        .await;
    assert_eq!(created.status(), 201);
    assert_eq!(created.headers()["cache-control"], "no-store");
    let created: Value = created.json().await.unwrap();
    let bot = created["token"].as_str().unwrap().to_owned();
    assert!(bot.starts_with("kcp_") && bot.len() > 40, "{bot}");
    assert_eq!(created["scopes"], json!(["play", "read"]));
    let time = |field: &str| parse_rfc3339(created[field].as_str().unwrap()).unwrap();
    assert_eq!(
        time("expires_at") - time("created_at"),
        30 * 86_400,
        "{created}"
    );
    let stored: Vec<String> = sqlx::query_scalar("SELECT token_hash FROM personal_tokens")
        .fetch_all(app.sql())
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0], bot, "only a hash is kept");
    assert!(!stored[0].contains(&bot[4..]));

    // The bot plays with it: creates a match, which the other player joins.
    let bot_player = Player { token: bot.clone() };
    let me = app.json_as(&bot_player, "/v1/me").await;
    assert_eq!(me["username"], "player0");
    let match_id = app
        .post_as(&bot_player, "/v1/matches", &json!({"seats": 2}))
        .await
        .json::<Value>()
        .await
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let joined = app
        .post_as(
            &players[1],
            &format!("/v1/matches/{match_id}/join"),
            &json!({}),
        )
        .await;
    assert_eq!(joined.status(), 200);
    let view = app
        .json_as(&bot_player, &format!("/v1/matches/{match_id}/view"))
        .await;
    assert_eq!(view["your_seat"], 0);

    // It cannot manage tokens or webhooks, and a token cannot grant what it lacks.
    let refused = app.get_as(&bot_player, "/v1/me/tokens").await;
    assert_problem(refused, 403, "insufficient_scope").await;
    let refused = app.get_as(&bot_player, "/v1/me/webhooks").await;
    assert_problem(refused, 403, "insufficient_scope").await;
    let manager = Player {
        token: token(&app, &players[0], &["account", "read"]).await,
    };
    let escalation = app
        .post_as(
            &manager,
            "/v1/me/tokens",
            &json!({"name": "more", "scopes": ["read", "play"]}),
        )
        .await;
    assert_problem(escalation, 403, "insufficient_scope").await;
    let narrower = app
        .post_as(
            &manager,
            "/v1/me/tokens",
            &json!({"name": "less", "scopes": ["read"]}),
        )
        .await;
    assert_eq!(narrower.status(), 201);
    for (body, field) in [
        (json!({"name": "", "scopes": ["read"]}), "name"),
        (json!({"name": "x".repeat(65), "scopes": ["read"]}), "name"),
        (json!({"name": "x", "scopes": []}), "scopes"),
        (json!({"name": "x", "scopes": ["admin"]}), "scopes"),
        (
            json!({"name": "x", "scopes": ["read"], "expires_in_days": 0}),
            "expires_in_days",
        ),
    ] {
        let refused = app.post_as(&players[0], "/v1/me/tokens", &body).await;
        let problem = assert_problem(refused, 422, "invalid_token_request").await;
        assert_eq!(problem["field"], field, "{body}");
    }

    // Listed with its last use, never with the token.
    let listed = app.json_as(&players[0], "/v1/me/tokens").await;
    let tokens = listed["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 3);
    let listed_bot = tokens
        .iter()
        .find(|token| token["name"] == "my bot")
        .unwrap();
    assert!(
        listed_bot["last_used_at"]
            .as_str()
            .and_then(parse_rfc3339)
            .is_some(),
        "{listed_bot}"
    );
    assert!(!listed.to_string().contains(&bot));
    let others = app.json_as(&players[1], "/v1/me/tokens").await;
    assert_eq!(others["tokens"], json!([]));

    // Revoked: refused at once. Another account cannot revoke it.
    let path = format!("/v1/me/tokens/{}", listed_bot["id"].as_str().unwrap());
    let foreign = app
        .client
        .delete(format!("{}{path}", app.address))
        .bearer_auth(&players[1].token)
        .send()
        .await
        .unwrap();
    assert_problem(foreign, 404, "not_found").await;
    let revoked = app
        .client
        .delete(format!("{}{path}", app.address))
        .bearer_auth(&players[0].token)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 204);
    let refused = app.get_as(&bot_player, "/v1/me").await;
    assert_problem(refused, 401, "invalid_token").await;

    // Expired: refused (the expiry is moved into the past directly in the database, and the
    // token is one this process has not seen yet).
    let expiring = token(&app, &players[0], &["read"]).await;
    sqlx::query("UPDATE personal_tokens SET expires_at = 1 WHERE name = $1")
        .bind(r#"["read"]"#)
        .execute(app.sql())
        .await
        .unwrap();
    let refused = app.get("/v1/me", Some(&expiring)).await;
    assert_problem(refused, 401, "invalid_token").await;
    let forged = app.get("/v1/me", Some("kcp_not-a-token-of-ours")).await;
    assert_problem(forged, 401, "invalid_token").await;

    // The account deleted: every token of it stops working.
    let survivor = token(&app, &players[1], &["read"]).await;
    let deleted = app
        .client
        .delete(format!("{}/v1/me", app.address))
        .bearer_auth(&players[1].token)
        .json(&json!({"password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let refused = app.get("/v1/me", Some(&survivor)).await;
    assert_eq!(refused.status(), 401);
    let left: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM personal_tokens WHERE name = $1 AND account_id <> $2",
    )
    .bind(r#"["read"]"#)
    .bind(me["id"].as_str().unwrap())
    .fetch_one(app.sql())
    .await
    .unwrap();
    assert_eq!(left, 0, "deleted with the account");
}
