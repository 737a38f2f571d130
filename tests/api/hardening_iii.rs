//! Hardening III (issue 35): the surface of seeks, vacations, ratings, nudges, `/metrics`, the
//! web client and the commands, tried from outside as an attacker would. One test per finding,
//! named after it; each failed on the code before its fix. They run on both databases.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use kings_corner::matches::export::MatchExport;
use kings_corner::matches::log::Entry;
use kings_corner::rules::Event;
use kings_corner::time_source::parse_rfc3339;

use crate::helpers::{
    Player, TestApp, assert_problem, every_seat_takes_a_turn, players, seated_match,
    shift_times_from, spawn_app, spawn_app_with,
};

/// A rated `standard` table for two with a one-day turn whose late seats are claimed.
fn rated_for_two() -> Value {
    json!({"seats": 2, "rated": true, "clock": {"turn_seconds": 86_400, "bank_seconds": 0}})
}

/// `player` resigns at once (whoever is to move).
async fn resign(app: &TestApp, player: &Player, id: &str) {
    let seen = app.json_as(player, &format!("/v1/matches/{id}/view")).await;
    let resigned = app
        .post_as(
            player,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": seen["version"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200, "{}", resigned.text().await.unwrap());
}

#[tokio::test]
async fn finding_01_a_forged_cursor_is_a_clear_422_and_never_reaches_the_database() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let id = "0b6f3c4e-8d3a-4c53-9a8e-3f1f0a7f2b11";
    let forged = [
        // The finding: a leaderboard cursor whose id is a NUL.
        "M2ZmMDAwMDAwMDAwMDAwMDoA".to_owned(),
        URL_SAFE_NO_PAD.encode(format!("3ff0000000000000:{id}\0")),
        URL_SAFE_NO_PAD.encode("3ff0000000000000:bob"),
        URL_SAFE_NO_PAD.encode(format!("3FF0000000000000:{id}")),
        URL_SAFE_NO_PAD.encode(format!("7ff8000000000000:{id}")),
        "A".repeat(300),
    ];
    for cursor in &forged {
        for board in ["provisional=true", "provisional=false"] {
            let path = format!("/v1/leaderboards/standard?{board}&cursor={cursor}");
            let answer = app.get_as(&people[0], &path).await;
            assert_problem(answer, 422, "invalid_query").await;
        }
    }
    let listing = [
        URL_SAFE_NO_PAD.encode(format!("1:{id}\0")),
        URL_SAFE_NO_PAD.encode("1:\0"),
        URL_SAFE_NO_PAD.encode(format!("01:{id}")),
        URL_SAFE_NO_PAD.encode(format!("1:{}", id.to_uppercase())),
    ];
    for cursor in &listing {
        for query in ["", "mine=true&", "mine=true&turn=mine&"] {
            let path = format!("/v1/matches?{query}cursor={cursor}");
            let answer = app.get_as(&people[0], &path).await;
            assert_problem(answer, 422, "invalid_query").await;
        }
    }
    // A cursor the server wrote still pages.
    for _ in 0..3 {
        seated_match(&app, &people, json!({"seats": 2})).await;
    }
    let first = app
        .json_as(&people[0], "/v1/matches?mine=true&limit=2")
        .await;
    let next = first["next_cursor"].as_str().unwrap();
    let second = app
        .json_as(
            &people[0],
            &format!("/v1/matches?mine=true&limit=2&cursor={next}"),
        )
        .await;
    assert_eq!(second["matches"].as_array().unwrap().len(), 1, "{second}");
}

#[tokio::test]
async fn finding_02_a_seat_that_leaves_before_its_first_turn_mints_no_rating() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    // The finding: the second account resigns at once, match after match.
    for _ in 0..3 {
        let id = seated_match(&app, &people, rated_for_two()).await;
        resign(&app, &people[1], &id).await;
        let summary = app.json_as(&people[0], &format!("/v1/matches/{id}")).await;
        assert_eq!(summary["status"], "finished", "{summary}");
    }
    for name in ["player0", "player1"] {
        let page = app
            .json_as(&people[0], &format!("/v1/players/{name}"))
            .await;
        assert_eq!(page["ratings"], json!([]), "{name} is unrated: {page}");
    }
    let board = app
        .json_as(&people[0], "/v1/leaderboards/standard?provisional=true")
        .await;
    assert_eq!(board["players"], json!([]), "{board}");

    // `verify --rate` says why such an end is not rated.
    let id = seated_match(&app, &people, rated_for_two()).await;
    resign(&app, &people[0], &id).await;
    let export = app
        .json_as(&people[1], &format!("/v1/matches/{id}/export"))
        .await;
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), export.to_string()).unwrap();
    let (ok, said) = crate::helpers::kings_corner(vec![
        "verify".into(),
        file.path().display().to_string(),
        "--rate".into(),
    ])
    .await;
    assert!(!ok, "{said}");
    assert!(
        said.contains("seat 0 left before taking a turn of its own"),
        "{said}"
    );

    // Once both have taken a turn, a resignation is rated, and the rebuild agrees with all.
    let id = seated_match(&app, &people, rated_for_two()).await;
    every_seat_takes_a_turn(&app, &people, &id).await;
    resign(&app, &people[1], &id).await;
    let page = app.json_as(&people[0], "/v1/players/player0").await;
    let standard = &page["ratings"][0];
    assert_eq!(standard["history"].as_array().unwrap().len(), 1, "{page}");
    assert!(standard["rating"].as_i64().unwrap() > 1000, "{page}");
    let report = app.matches.rebuild_ratings().await.unwrap().to_string();
    assert!(report.starts_with("ok: 1 rated matches"), "{report}");
}

#[tokio::test]
async fn finding_03_a_private_rated_match_is_on_its_players_pages_only_for_its_players() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let mut private = rated_for_two();
    private["visibility"] = json!("private");
    let created: Value = app
        .post_as(&people[0], "/v1/matches", &private)
        .await
        .json()
        .await
        .unwrap();
    let hidden = created["id"].as_str().unwrap().to_owned();
    let joined = app
        .post_as(
            &people[1],
            &format!("/v1/matches/{hidden}/join"),
            &json!({"invite_code": created["invite_code"]}),
        )
        .await;
    assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    every_seat_takes_a_turn(&app, &people[..2], &hidden).await;
    resign(&app, &people[1], &hidden).await;
    let shown = seated_match(&app, &[&people[0], &people[2]], rated_for_two()).await;
    every_seat_takes_a_turn(&app, &[&people[0], &people[2]], &shown).await;
    resign(&app, &people[2], &shown).await;

    let history = |page: &Value| -> Vec<String> {
        page["ratings"][0]["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|change| change["match_id"].as_str().unwrap().to_owned())
            .collect()
    };
    // Its players see it, on either page.
    for reader in &people[..2] {
        let page = app.json_as(reader, "/v1/players/player0").await;
        assert_eq!(history(&page), [shown.clone(), hidden.clone()], "{page}");
        let page = app.json_as(reader, "/v1/players/player1").await;
        assert_eq!(history(&page), vec![hidden.clone()], "{page}");
    }
    // A stranger, signed in or not, sees nothing of it: no row, no time, no place.
    let anonymous = |path: &str| {
        let app = &app;
        let path = path.to_owned();
        async move { app.get(&path, None).await.json::<Value>().await.unwrap() }
    };
    for page in [
        app.json_as(&people[2], "/v1/players/player0").await,
        anonymous("/v1/players/player0").await,
    ] {
        assert_eq!(history(&page), vec![shown.clone()], "{page}");
    }
    for page in [
        app.json_as(&people[2], "/v1/players/player1").await,
        anonymous("/v1/players/player1").await,
    ] {
        assert_eq!(history(&page), Vec::<String>::new(), "{page}");
    }
}

#[tokio::test]
async fn finding_06_an_unknown_field_inside_a_nested_object_is_refused() {
    let app = spawn_app().await;
    let people = players(&app, 1).await;
    let evil_clock = json!({"turn_seconds": 60, "bank_seconds": 0, "evil": 1});
    let seek = app
        .post_as(
            &people[0],
            "/v1/seeks",
            &json!({"preset": "standard", "clock": evil_clock}),
        )
        .await;
    let problem = assert_problem(seek, 422, "invalid_body").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("evil"),
        "{problem}"
    );
    let created = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "clock": evil_clock}),
        )
        .await;
    let problem = assert_problem(created, 422, "invalid_body").await;
    assert!(
        problem["detail"].as_str().unwrap().contains("evil"),
        "{problem}"
    );
    // Nothing was made.
    let mine = app.json_as(&people[0], "/v1/matches?mine=true").await;
    assert_eq!(mine["matches"], json!([]), "{mine}");
    let seeks = app.json_as(&people[0], "/v1/me/seeks").await;
    assert!(!seeks.to_string().contains("standard"), "{seeks}");
    // The same clock without the stray field is taken.
    let fine = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "clock": {"turn_seconds": 60, "bank_seconds": 0}}),
        )
        .await;
    assert_eq!(fine.status(), 201, "{}", fine.text().await.unwrap());
}

/// `method path` as `player`, with `body` if any; the status.
async fn status_of(
    app: &TestApp,
    player: &Player,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> u16 {
    let mut request = app
        .client
        .request(method, format!("{}{path}", app.address))
        .bearer_auth(&player.token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    assert!(
        status < 500,
        "{path} answered {status}: {}",
        answer.text().await.unwrap()
    );
    status
}

/// `kings-corner verify FILE`, with `export` written to a file; whether it passed and what it said.
async fn verify_file(export: &MatchExport, extra: &[&str]) -> (bool, String) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_string(export).unwrap()).unwrap();
    let mut args = vec!["verify".to_owned(), file.path().display().to_string()];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    crate::helpers::kings_corner(args).await
}

/// `export` with event `index` dated `at` (Unix seconds) and every hash chained again from it,
/// as a forger would.
fn dated(export: &MatchExport, index: usize, at: i64) -> MatchExport {
    let mut forged: MatchExport =
        serde_json::from_value(serde_json::to_value(export).unwrap()).unwrap();
    let now = parse_rfc3339(forged.events[index].at.as_deref().unwrap()).unwrap();
    shift_times_from(&mut forged, index, at - now);
    // Only event `index` moves: the ones after it go back to their own times.
    if index + 1 < forged.events.len() {
        shift_times_from(&mut forged, index + 1, now - at);
    }
    forged
}

#[tokio::test]
async fn finding_04_verify_refuses_forged_times_versions_and_priors() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let table = json!({"seats": 2, "clock": {"turn_seconds": 3600, "bank_seconds": 0},
                       "on_timeout": "forfeit"});
    let id = seated_match(&app, &people, table).await;
    every_seat_takes_a_turn(&app, &people, &id).await;
    resign(&app, &people[1], &id).await;
    let export: MatchExport = serde_json::from_value(
        app.json_as(&people[0], &format!("/v1/matches/{id}/export"))
            .await,
    )
    .unwrap();
    let (ok, said) = verify_file(&export, &[]).await;
    assert!(ok, "the export verifies as written: {said}");
    let refused = |said: &str, ok: bool, expected: &str| {
        assert!(!ok && said.contains(expected), "{expected}: {said}");
    };

    // Times going backwards (by more than two servers' clocks may disagree).
    let last = export.events.len() - 1;
    let second_last = parse_rfc3339(export.events[last - 1].at.as_deref().unwrap()).unwrap();
    let (ok, said) = verify_file(&dated(&export, last, second_last - 3600), &[]).await;
    refused(&said, ok, "its times go backwards");
    // Dated 1970, 2000 (before the deal, before any timed log), and 9999.
    for at in [0, 946_684_800] {
        let (ok, said) = verify_file(&dated(&export, 0, at), &[]).await;
        refused(&said, ok, "before any timed log was written");
    }
    let (ok, said) = verify_file(&dated(&export, last, 253_370_764_800), &[]).await;
    refused(&said, ok, "in the future");
    // Judged at a moment of the verifier's choosing, the genuine log is in its future.
    let (ok, said) = verify_file(&export, &["--now", "2026-01-02T00:00:00Z"]).await;
    refused(&said, ok, "in the future (it is now 2026-01-02T00:00:00Z)");

    // A card played two days into a one-hour turn at a table whose timeouts forfeit, with no
    // forfeit written: the deal two days earlier, and every event from the first move on where
    // it was.
    let first_move = export
        .events
        .iter()
        .position(|logged| {
            matches!(&logged.event, Entry::Game(event)
                if !matches!(event, Event::HandDealt { .. } | Event::TurnStarted { .. }))
        })
        .expect("the log holds a move");
    let mut late: MatchExport =
        serde_json::from_value(serde_json::to_value(&export).unwrap()).unwrap();
    shift_times_from(&mut late, 0, -2 * 86_400);
    shift_times_from(&mut late, first_move, 2 * 86_400);
    let (ok, said) = verify_file(&late, &[]).await;
    refused(&said, ok, "but no timeout was written");

    // Versions this verifier does not know.
    for field in ["format", "log_format", "event_format"] {
        let mut unknown = serde_json::to_value(&export).unwrap();
        unknown[field] = json!(99);
        let unknown: MatchExport = serde_json::from_value(unknown).unwrap();
        let (ok, said) = verify_file(&unknown, &[]).await;
        refused(
            &said,
            ok,
            &format!("{field} 99 is not known to this verifier"),
        );
    }

    // Absurd priors are refused, not printed as overflowed ratings.
    for prior in [
        "0=1e308,1",
        "0=25,-1",
        "0=25,0",
        "0=25,1e308",
        "0=NaN,1",
        "1=-1e300,8",
    ] {
        let (ok, said) = verify_file(&export, &["--prior", prior]).await;
        refused(&said, ok, &format!("--prior {prior}"));
    }
    let (ok, said) = verify_file(&export, &["--prior", "0=30,4"]).await;
    assert!(ok, "{said}");
}

#[tokio::test]
async fn finding_05_no_request_holds_a_connection_while_it_waits_for_another() {
    // With one connection in the pool, a path that holds it (a locked record, a transaction)
    // while it asks for a second waits for itself until the pool's timeout: a 503. Every
    // path a player walks answers here as with a full pool.
    let app = spawn_app_with(|settings| settings.database.max_connections = 1).await;
    let people = players(&app, 2).await;
    let (me, other) = (&people[0], &people[1]);
    use reqwest::Method;
    let until = kings_corner::time_source::rfc3339(
        kings_corner::time_source::Clock::now(&*app.clock) + 2 * 86_400,
    );
    for (method, path, body) in [
        (Method::DELETE, "/v1/me/vacation", None),
        (
            Method::POST,
            "/v1/me/vacation",
            Some(json!({"until": until})),
        ),
        (Method::GET, "/v1/me/vacation", None),
        (Method::DELETE, "/v1/me/vacation", None),
        (Method::DELETE, "/v1/me/vacation", None),
    ] {
        status_of(&app, me, method, path, body).await;
    }
    let id = seated_match(&app, &people, rated_for_two()).await;
    every_seat_takes_a_turn(&app, &people, &id).await;
    let turn = app.json_as(me, &format!("/v1/matches/{id}/view")).await["turn"]
        .as_u64()
        .unwrap() as usize;
    let waiting = &people[1 - turn];
    for (player, method, path, body) in [
        (me, Method::GET, format!("/v1/matches/{id}"), None),
        (
            waiting,
            Method::POST,
            format!("/v1/matches/{id}/nudge"),
            Some(json!({})),
        ),
        (
            me,
            Method::POST,
            format!("/v1/matches/{id}/messages"),
            Some(json!({"text": "gl"})),
        ),
        (me, Method::GET, format!("/v1/matches/{id}/events"), None),
        (me, Method::GET, format!("/v1/matches/{id}/replay"), None),
        (
            me,
            Method::POST,
            format!("/v1/matches/{id}/leave"),
            Some(json!({})),
        ),
        (
            me,
            Method::POST,
            format!("/v1/matches/{id}/rematch"),
            Some(json!({})),
        ),
        (
            other,
            Method::POST,
            format!("/v1/matches/{id}/rematch"),
            Some(json!({})),
        ),
        (
            me,
            Method::POST,
            format!("/v1/matches/{id}/rematch"),
            Some(json!({})),
        ),
        (me, Method::GET, format!("/v1/matches/{id}/export"), None),
        (me, Method::GET, "/v1/players/player1".into(), None),
        (
            me,
            Method::GET,
            "/v1/leaderboards/standard?provisional=true".into(),
            None,
        ),
        (me, Method::GET, "/v1/matches?mine=true".into(), None),
        (me, Method::GET, "/v1/me/events".into(), None),
        (
            me,
            Method::POST,
            "/v1/seeks".into(),
            Some(json!({"preset": "standard"})),
        ),
        (
            other,
            Method::POST,
            "/v1/seeks".into(),
            Some(json!({"preset": "standard"})),
        ),
        (me, Method::GET, "/v1/me/seeks".into(), None),
        (
            me,
            Method::POST,
            "/v1/me/tokens".into(),
            Some(json!({"name": "bot", "scopes": ["read"]})),
        ),
        (me, Method::GET, "/v1/me/tokens".into(), None),
        (
            me,
            Method::POST,
            "/v1/me/stream-tickets".into(),
            Some(json!({})),
        ),
        (me, Method::GET, "/v1/me".into(), None),
    ] {
        status_of(&app, player, method, &path, body).await;
    }
}

#[tokio::test]
async fn finding_05_one_account_s_crowd_of_requests_is_bounded_and_stalls_nobody_else() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let crowd = (0..20).map(|_| {
        app.client
            .delete(format!("{}/v1/me/vacation", app.address))
            .bearer_auth(&people[0].token)
            .send()
    });
    let others = (0..4).map(|_| app.get_as(&people[1], "/v1/matches"));
    let (crowd, others, ready) = tokio::join!(
        futures_util::future::join_all(crowd),
        futures_util::future::join_all(others),
        app.get("/readyz", None),
    );
    assert_eq!(ready.status(), 200);
    for answer in others {
        assert_eq!(answer.status(), 200, "another account is not held up");
    }
    let mut answered = std::collections::BTreeMap::new();
    for answer in crowd {
        let answer = answer.unwrap();
        let status = answer.status().as_u16();
        *answered.entry(status).or_insert(0) += 1;
        if status == 429 {
            let retry_after = answer.headers()["retry-after"].to_str().unwrap().to_owned();
            assert_eq!(retry_after, "1");
            assert_problem(answer, 429, "too_many_requests_in_flight").await;
        } else {
            assert_eq!(status, 200, "{}", answer.text().await.unwrap());
        }
    }
    assert!(
        answered.get(&200).is_some_and(|done| *done >= 1),
        "{answered:?}"
    );
    // Past the bound, the account is refused, never queued behind itself.
    let bounded = spawn_app_with(|settings| settings.max_requests_per_account = 1).await;
    let people = players(&bounded, 1).await;
    let crowd = (0..10).map(|_| bounded.get_as(&people[0], "/v1/me/vacation"));
    let statuses: Vec<u16> = futures_util::future::join_all(crowd)
        .await
        .iter()
        .map(|answer| answer.status().as_u16())
        .collect();
    assert!(statuses.contains(&429), "{statuses:?}");
    assert!(
        statuses.iter().all(|status| [200, 429].contains(status)),
        "{statuses:?}"
    );
    // Once answered, the account's places are free again.
    let after = bounded.get_as(&people[0], "/v1/me/vacation").await;
    assert_eq!(after.status(), 200);
}

#[tokio::test]
async fn finding_08_ratings_rebuild_on_a_database_that_does_not_exist_says_so_and_creates_nothing()
{
    let directory = tempfile::tempdir().unwrap();
    let rebuild = |url: String| {
        crate::helpers::kings_corner(vec![
            "--database-url".into(),
            url,
            "ratings".into(),
            "rebuild".into(),
        ])
    };

    let missing = directory.path().join("missing.db");
    let (ok, said) = rebuild(format!("sqlite://{}", missing.display())).await;
    assert!(!ok, "{said}");
    assert!(
        said.contains("does not exist (nothing was created)"),
        "{said}"
    );
    let left: Vec<_> = std::fs::read_dir(directory.path()).unwrap().collect();
    assert!(left.is_empty(), "the command left {left:?}");

    // A file that exists but holds no server's tables is named as such, not "no such table".
    let empty = directory.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let (ok, said) = rebuild(format!("sqlite://{}", empty.display())).await;
    assert!(!ok, "{said}");
    assert!(said.contains("holds no kings-corner tables"), "{said}");

    // A server's database rebuilds as before.
    let made = format!("sqlite://{}", directory.path().join("made.db").display());
    let (ok, said) = crate::helpers::kings_corner(vec![
        "--database-url".into(),
        made.clone(),
        "migrate".into(),
    ])
    .await;
    assert!(ok, "{said}");
    let (ok, said) = rebuild(made).await;
    assert!(ok, "{said}");
}

#[tokio::test]
async fn finding_09_the_description_declares_every_400_and_the_bounds_the_server_checks() {
    let app = spawn_app().await;
    let people = players(&app, 1).await;
    let api: Value = app.get("/openapi.json", None).await.json().await.unwrap();

    // Every operation refuses a query parameter it does not take and a NUL in its text: each
    // declares both.
    let mut operations = 0;
    for (path, item) in api["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let declared = operation["responses"]["400"]["description"]
                .as_str()
                .unwrap_or_default();
            for code in ["malformed_query", "invalid_text"] {
                assert!(
                    declared.contains(&format!("`{code}`")),
                    "{method} {path} does not declare 400 {code}: {declared:?}"
                );
            }
            operations += 1;
        }
    }
    assert!(operations > 40, "{operations} operations");
    let unknown = app.get_as(&people[0], "/v1/me?evil=1").await;
    assert_problem(unknown, 400, "malformed_query").await;
    let nul = app.get_as(&people[0], "/v1/players/a%00b").await;
    assert_problem(nul, 400, "invalid_text").await;

    // The bounds in the schemas are the ones the server keeps, to the unit.
    let schemas = &api["components"]["schemas"];
    let turn = &schemas["ClockSettings"]["properties"]["turn_seconds"];
    let most = turn["maximum"].as_u64().unwrap();
    assert_eq!(turn["minimum"], 1);
    for (seconds, status) in [(most, 201), (most + 1, 422), (0, 422)] {
        let created = app
            .post_as(
                &people[0],
                "/v1/matches",
                &json!({"clock": {"turn_seconds": seconds, "bank_seconds": 0}}),
            )
            .await;
        assert_eq!(created.status(), status, "turn_seconds {seconds}");
    }
    let seek = &schemas["NewSeek"]["properties"];
    assert_eq!(
        seek["preset"]["enum"],
        json!(["standard", "draw-first", "foundations", "night-one"])
    );
    let most_seats = seek["seats"]["maximum"].as_u64().unwrap();
    let least_wait = seek["bots_after_seconds"]["minimum"].as_u64().unwrap();
    let longest = seek["expires_in_seconds"]["maximum"].as_u64().unwrap();
    for (body, status) in [
        (json!({"preset": "standard", "seats": most_seats}), 201),
        (json!({"preset": "standard", "seats": most_seats + 1}), 422),
        (
            json!({"preset": "standard", "bots_after_seconds": least_wait}),
            201,
        ),
        (
            json!({"preset": "standard", "bots_after_seconds": least_wait - 1}),
            422,
        ),
        (
            json!({"preset": "standard", "expires_in_seconds": longest}),
            201,
        ),
        (
            json!({"preset": "standard", "expires_in_seconds": longest + 1}),
            422,
        ),
    ] {
        let made = app.post_as(&people[0], "/v1/seeks", &body).await;
        assert_eq!(made.status(), status, "{body}");
    }
    // An action or a game's end with a field of its own is refused, and the description says
    // so.
    assert_eq!(schemas["EndTurnAction"]["additionalProperties"], false);
    assert_eq!(schemas["TargetGameEnd"]["additionalProperties"], false);
}

/// Finding 10's server side: a failover or switchover cuts every pooled connection. A read that
/// meets a cut connection is run again on another and answered; a write is not run again (the
/// client retries with its `Idempotency-Key`). PostgreSQL only: SQLite has no connection to cut.
#[tokio::test]
async fn finding_10_a_read_whose_connection_was_cut_is_answered_on_another() {
    let app = spawn_app().await;
    let Some(name) = app.database.postgres_name() else {
        return;
    };
    let people = players(&app, 1).await;
    for _ in 0..3 {
        let seeks = app.get_as(&people[0], "/v1/me/seeks").await;
        assert_eq!(seeks.status(), 200);
        app.database
            .admin(&format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = '{name}' AND pid <> pg_backend_pid()"
            ))
            .await;
        for path in [
            "/v1/me/seeks",
            "/v1/players/player0",
            "/v1/leaderboards/standard",
        ] {
            let answer = app.get_as(&people[0], path).await;
            assert_eq!(
                answer.status(),
                200,
                "{path}: {}",
                answer.text().await.unwrap()
            );
        }
    }
}
