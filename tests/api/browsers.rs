//! What browsers need: CORS for the origins an operator allows, and stream tickets for
//! `EventSource`, which cannot send an `Authorization` header.

use kings_corner::time_source::Clock;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, assert_problem, created_id, full_match, header, players, private_match, spawn_app,
    spawn_app_with, standard_match,
};

const PAGE: &str = "https://play.example.com";

async fn preflight(app: &TestApp, origin: &str, method: &str, headers: &str) -> reqwest::Response {
    app.client
        .request(Method::OPTIONS, format!("{}/v1/matches", app.address))
        .header("origin", origin)
        .header("access-control-request-method", method)
        .header("access-control-request-headers", headers)
        .send()
        .await
        .unwrap()
}

/// Allowed origins get preflights and CORS headers; others a problem for the preflight and
/// no CORS headers on answers; without configuration, no CORS at all.
#[tokio::test]
async fn cors_lets_the_allowed_origins_in_and_no_one_else() {
    let app = spawn_app_with(|settings| {
        settings.cors_allowed_origins = vec![PAGE.to_owned()];
    })
    .await;
    let allowed = preflight(
        &app,
        PAGE,
        "POST",
        "authorization,content-type,idempotency-key",
    )
    .await;
    assert_eq!(allowed.status(), 200);
    assert_eq!(header(&allowed, "access-control-allow-origin"), Some(PAGE));
    assert!(
        header(&allowed, "access-control-allow-methods")
            .unwrap()
            .contains("POST")
    );
    let allowed_headers = header(&allowed, "access-control-allow-headers").unwrap();
    assert!(
        allowed_headers.contains("idempotency-key"),
        "{allowed_headers}"
    );
    assert_eq!(header(&allowed, "access-control-max-age"), Some("3600"));
    assert_eq!(header(&allowed, "access-control-allow-credentials"), None);

    let answer = app
        .client
        .get(format!("{}/v1/rules", app.address))
        .header("origin", PAGE)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(header(&answer, "access-control-allow-origin"), Some(PAGE));
    let exposed = header(&answer, "access-control-expose-headers").unwrap();
    assert!(
        exposed.contains("etag") && exposed.contains("x-request-id"),
        "{exposed}"
    );

    let elsewhere = preflight(&app, "https://evil.example", "POST", "authorization").await;
    assert_problem(elsewhere, 400, "cors_not_allowed").await;
    let unknown_header = preflight(&app, PAGE, "POST", "x-secret-header").await;
    assert_problem(unknown_header, 400, "cors_not_allowed").await;
    let answer = app
        .client
        .get(format!("{}/v1/rules", app.address))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(
        answer.status(),
        200,
        "answered; the browser keeps the page from reading it"
    );
    assert_eq!(header(&answer, "access-control-allow-origin"), None);

    let any = spawn_app_with(|settings| settings.cors_allowed_origins = vec!["*".to_owned()]).await;
    let from_anywhere = preflight(&any, "https://anywhere.example", "GET", "authorization").await;
    assert_eq!(
        header(&from_anywhere, "access-control-allow-origin"),
        Some("*")
    );

    let closed = spawn_app().await;
    let none = preflight(&closed, PAGE, "POST", "authorization").await;
    assert_eq!(header(&none, "access-control-allow-origin"), None);
}

/// A stream ticket opens one stream, once, for reading, and nothing else.
#[tokio::test]
async fn a_stream_ticket_opens_one_stream_once() {
    let app = spawn_app().await;
    let (players, id) = standard_match(&app).await;
    let issue = || async {
        let issued = app
            .post_as(&players[0], "/v1/me/stream-tickets", &json!({}))
            .await;
        assert_eq!(issued.status(), 201);
        assert_eq!(header(&issued, "cache-control"), Some("no-store"));
        let issued: Value = issued.json().await.unwrap();
        let expires =
            kings_corner::time_source::parse_rfc3339(issued["expires_at"].as_str().unwrap());
        assert!(expires.is_some(), "{issued}");
        issued["ticket"].as_str().unwrap().to_owned()
    };

    // The match's stream, from its first event, without an Authorization header.
    let ticket = issue().await;
    assert!(ticket.starts_with("kct_"));
    let path = format!("/v1/matches/{id}/stream?ticket={ticket}&after=0");
    let mut stream = app.get(&path, None).await;
    assert_eq!(stream.status(), 200);
    assert_eq!(header(&stream, "content-type"), Some("text/event-stream"));
    let first = stream.chunk().await.unwrap().unwrap();
    assert!(
        String::from_utf8_lossy(&first).contains("id: 1\n"),
        "{first:?}"
    );
    drop(stream);
    let again = app.get(&path, None).await;
    assert_problem(again, 401, "invalid_stream_ticket").await;

    // The account's stream too; a ticket is nothing anywhere else.
    let ticket = issue().await;
    let account = app
        .get(&format!("/v1/me/stream?ticket={ticket}"), None)
        .await;
    assert_eq!(account.status(), 200);
    drop(account);
    let ticket = issue().await;
    // Elsewhere a ticket is no parameter at all (Hardening II refuses unknown ones).
    let elsewhere = app
        .get(&format!("/v1/me/events?after=0&ticket={ticket}"), None)
        .await;
    assert_problem(elsewhere, 400, "malformed_query").await;
    let without = app.get("/v1/me/events?after=0", None).await;
    assert_problem(without, 401, "missing_token").await;
    let forged = app
        .get(
            &format!("/v1/me/stream?ticket=kct_{}", "A".repeat(43)),
            None,
        )
        .await;
    assert_problem(forged, 401, "invalid_stream_ticket").await;

    // A ticket older than a minute is refused (asked of the store at a later time).
    let ticket = issue().await;
    let hash = kings_corner::auth::refresh::hash(&ticket);
    let later = app.clock.now() + 61;
    assert_eq!(
        app.db.redeem_stream_ticket(&hash, later).await.unwrap(),
        None
    );

    // A personal token that cannot read cannot ask for one.
    let player = &players[1];
    let created = app
        .post_as(
            player,
            "/v1/me/tokens",
            &json!({"name": "player only", "scopes": ["play"]}),
        )
        .await;
    let play_only = created.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = app
        .client
        .post(format!("{}/v1/me/stream-tickets", app.address))
        .bearer_auth(play_only)
        .send()
        .await
        .unwrap();
    assert_problem(refused, 403, "insufficient_scope").await;
}

/// Anybody may watch a public match without an account: its summary, the table (never a hand),
/// the feed (nobody's drawn cards), the stream and replays. A private match stays invisible,
/// and a token sent and refused is refused, not taken for nobody.
#[tokio::test]
async fn spectators_need_no_account_for_public_matches() {
    let app = spawn_app().await;
    let (players, id) = standard_match(&app).await;
    let app = &app;
    let anonymous = |path: String| async move { app.get(&path, None).await };
    let summary = anonymous(format!("/v1/matches/{id}")).await;
    assert_eq!(summary.status(), 200);
    let view: Value = anonymous(format!("/v1/matches/{id}/view"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(view["your_seat"], Value::Null);
    assert_eq!(view["hand"], Value::Null);
    assert_eq!(view["legal_actions"], json!([]));
    let feed: Value = anonymous(format!("/v1/matches/{id}/events?after=0"))
        .await
        .json()
        .await
        .unwrap();
    let dealt = &feed["events"][0]["event"];
    assert_eq!(dealt["type"], "hand_dealt");
    assert!(
        dealt["hands"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_null),
        "no hand in a spectator's feed: {dealt}"
    );
    assert!(dealt.get("stock").is_none_or(Value::is_null), "{dealt}");
    let replay = anonymous(format!("/v1/matches/{id}/replay?at=1")).await;
    assert_eq!(replay.status(), 200);
    let stream = anonymous(format!("/v1/matches/{id}/stream")).await;
    assert_eq!(stream.status(), 200);
    drop(stream);
    // Acting still needs an account.
    let moved = app
        .client
        .post(format!("{}/v1/matches/{id}/moves", app.address))
        .json(&json!({"expected_version": view["version"], "action": {"type": "end_turn"}}))
        .send()
        .await
        .unwrap();
    assert_problem(moved, 401, "missing_token").await;
    let forged = app
        .get(&format!("/v1/matches/{id}/view"), Some("not-a-token"))
        .await;
    assert_problem(forged, 401, "invalid_token").await;

    let private = app
        .post_as(
            &players[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let private = private.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in ["", "/events?after=0"] {
        let hidden = anonymous(format!("/v1/matches/{private}{path}")).await;
        assert_problem(hidden, 404, "not_found").await;
    }
}

/// The public listings answer anybody: the lobby of open tables and, with `status=playing`,
/// the tables being played (to watch), never a private one; a player's own matches and inbox
/// need a token.
#[tokio::test]
async fn the_public_listings_answer_anybody_and_never_show_a_private_match() {
    let app = spawn_app().await;
    let (players, playing) = standard_match(&app).await;
    let private = private_match(&app, &players).await;
    let open = created_id(
        app.post_as(&players[0], "/v1/matches", &json!({"seats": 3}))
            .await,
    )
    .await;
    let ids = |page: Value| -> Vec<String> {
        page["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|summary| summary["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let anonymous = |path: &'static str| async { app.get(path, None).await };
    let lobby = anonymous("/v1/matches").await;
    assert_eq!(lobby.status(), 200);
    assert_eq!(ids(lobby.json().await.unwrap()), [open]);
    let watched = anonymous("/v1/matches?status=playing").await;
    assert_eq!(watched.status(), 200);
    let watched = ids(watched.json().await.unwrap());
    assert_eq!(watched, std::slice::from_ref(&playing));
    assert!(
        !watched.iter().any(|id| private["id"] == id.as_str()),
        "the private match being played is not listed"
    );
    let as_player = app.json_as(&players[1], "/v1/matches?status=playing").await;
    assert_eq!(ids(as_player), [playing]);
    for needs_account in ["/v1/matches?mine=true", "/v1/matches?turn=mine"] {
        assert_problem(anonymous(needs_account).await, 401, "missing_token").await;
    }
    let forged = app.get("/v1/matches", Some("not-a-token")).await;
    assert_problem(forged, 401, "invalid_token").await;
}

/// A private match's players share its spectator code: with `?watch=<code>` anybody (with an
/// account or without) watches it as a spectator, never a hand; without it, or with another
/// code, the match stays invisible; nobody acts with a code.
#[tokio::test]
async fn a_spectator_code_opens_a_private_match_to_watchers() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let created = private_match(&app, &people).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let code = created["spectator_code"]
        .as_str()
        .expect("players see the code")
        .to_owned();
    let app = &app;
    let anonymous = |path: String| async move { app.get(&path, None).await };
    for path in ["", "/view", "/events?after=0", "/replay?at=1"] {
        let hidden = anonymous(format!("/v1/matches/{id}{path}")).await;
        assert_problem(hidden, 404, "not_found").await;
        let separator = if path.contains('?') { '&' } else { '?' };
        let wrong = anonymous(format!(
            "/v1/matches/{id}{path}{separator}watch=not-the-code"
        ))
        .await;
        assert_problem(wrong, 404, "not_found").await;
        let watched = anonymous(format!("/v1/matches/{id}{path}{separator}watch={code}")).await;
        assert_eq!(watched.status(), 200, "{path}");
        let body: Value = watched.json().await.unwrap();
        assert!(
            body.get("spectator_code").is_none_or(Value::is_null),
            "{body}"
        );
        assert!(body.get("invite_code").is_none_or(Value::is_null), "{body}");
    }
    let view: Value = anonymous(format!("/v1/matches/{id}/view?watch={code}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(view["your_seat"], Value::Null);
    assert_eq!(view["hand"], Value::Null);
    let feed: Value = anonymous(format!("/v1/matches/{id}/events?after=0&watch={code}"))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        feed["events"][0]["event"]["hands"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_null)
    );
    let stream = anonymous(format!("/v1/matches/{id}/stream?watch={code}")).await;
    assert_eq!(stream.status(), 200);
    drop(stream);
    // An account outside the match watches with the code too, and still cannot act.
    let outsider = &people[2];
    let watched = app
        .get_as(outsider, &format!("/v1/matches/{id}/view?watch={code}"))
        .await;
    assert_eq!(watched.status(), 200);
    // A move takes no spectator code (refused as an unknown parameter), and without one the
    // outsider cannot see the match at all.
    let moved = app
        .post_as(
            outsider,
            &format!("/v1/matches/{id}/moves?watch={code}"),
            &json!({"expected_version": view["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_problem(moved, 400, "malformed_query").await;
    let moved = app
        .post_as(
            outsider,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "end_turn"}}),
        )
        .await;
    assert_problem(moved, 404, "not_found").await;
    // The players see the code in their summary; a public match has none.
    let summary = app.json_as(&people[1], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary["spectator_code"], code.as_str());
    let public = app
        .post_as(&people[0], "/v1/matches", &json!({"seats": 2}))
        .await;
    assert_eq!(
        public.json::<Value>().await.unwrap()["spectator_code"],
        Value::Null
    );
}

/// A player's page counts what the player played, won, resigned and is playing, overall and by
/// preset, for anybody; an unknown name is `404 player_not_found`.
#[tokio::test]
async fn a_player_page_counts_matches_by_preset() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    // A standard match that player0 wins when player1 resigns, and a custom one still on.
    let won = full_match(&app, &people, json!({"preset": "standard"})).await;
    let view = app
        .json_as(&people[1], &format!("/v1/matches/{won}/view"))
        .await;
    let resigned = app
        .post_as(
            &people[1],
            &format!("/v1/matches/{won}/moves"),
            &json!({"expected_version": view["version"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200);
    full_match(
        &app,
        &people,
        json!({"preset": "standard", "must_play": true}),
    )
    .await;

    let page = app.get("/v1/players/PLAYER0", None).await;
    assert_eq!(page.status(), 200);
    let page: Value = page.json().await.unwrap();
    assert_eq!(page["username"], "player0");
    assert!(
        kings_corner::time_source::parse_rfc3339(page["member_since"].as_str().unwrap()).is_some()
    );
    assert_eq!(
        page["matches"],
        json!({"played": 1, "won": 1, "resigned": 0, "timed_out": 0, "aborted": 0, "playing": 1})
    );
    let by_preset: Vec<&str> = page["by_preset"]
        .as_array()
        .unwrap()
        .iter()
        .map(|each| each["preset"].as_str().unwrap())
        .collect();
    assert_eq!(by_preset.len(), 2, "{page}");
    assert!(by_preset.contains(&"standard") && by_preset.contains(&"custom"));
    let loser = app.json_as(&people[1], "/v1/players/player1").await;
    assert_eq!(loser["matches"]["won"], 0);
    assert_eq!(loser["matches"]["resigned"], 1);
    let nobody = app.get("/v1/players/nobody-here", None).await;
    assert_problem(nobody, 404, "player_not_found").await;
}
