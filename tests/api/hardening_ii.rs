//! Hardening II (issue 16): the surface added for clocks, bots, notifications, tokens and
//! browsers, tried as a hostile client would. One test per finding, named after it; each failed
//! on the code before its fix.

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, created_id, full_match, players, spawn_app, spawn_app_with,
};

/// A match between `people` that ended by everyone but the last resigning.
async fn ended_match(app: &TestApp, people: &[Player]) -> String {
    let id = full_match(app, people, json!({"preset": "standard"})).await;
    for person in &people[..people.len() - 1] {
        let left = app
            .post_as(person, &format!("/v1/matches/{id}/leave"), &json!({}))
            .await;
        assert_eq!(left.status(), 204, "{}", left.text().await.unwrap());
    }
    id
}

#[tokio::test]
async fn finding_01_a_bot_cannot_take_a_rematch_seat_kept_for_a_player() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let ended = ended_match(&app, &people).await;
    let offered = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{ended}/rematch"),
            &json!({}),
        )
        .await;
    let rematch = created_id(offered).await;

    let bot = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{rematch}/bots"),
            &json!({"level": "random"}),
        )
        .await;
    assert_problem(bot, 409, "seats_kept").await;

    // Nothing changed: the match still waits for B, and reads as it did.
    let summary = app
        .json_as(&people[0], &format!("/v1/matches/{rematch}"))
        .await;
    assert_eq!(summary["status"], "open");
    assert_eq!(summary["seats"].as_array().unwrap().len(), 1);
    app.json_as(&people[0], "/v1/matches?mine=true").await;
    let joined = app
        .post_as(
            &people[1],
            &format!("/v1/matches/{rematch}/join"),
            &json!({}),
        )
        .await;
    assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    let started: Value = joined.json().await.unwrap();
    assert_eq!(started["status"], "playing");
    let seats: Vec<u64> = started["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["seat"].as_u64().unwrap())
        .collect();
    assert_eq!(seats, vec![0, 1]);
    for seat in started["seats"].as_array().unwrap() {
        assert_eq!(seat["bot"], Value::Null, "{started}");
    }
    let view = app
        .json_as(&people[1], &format!("/v1/matches/{rematch}/view"))
        .await;
    assert!(view["turn"].as_u64().unwrap() < 2);
}

#[tokio::test]
async fn finding_02_a_nul_character_anywhere_is_a_400_on_both_databases() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    let nul = "a\u{0}b";

    let mut anonymous = vec![format!("/v1/players/a%00b")];
    for part in ["", "/view", "/events", "/replay", "/stream"] {
        anonymous.push(format!("/v1/matches/{id}{part}?watch=%00"));
    }
    for path in &anonymous {
        let answer = app.get(path, None).await;
        assert_problem(answer, 400, "invalid_text").await;
    }
    for path in ["/v1/me/webhooks/a%00b", "/v1/me/webhooks/a%00b/deliveries"] {
        let answer = app.get_as(&people[0], path).await;
        assert_problem(answer, 400, "invalid_text").await;
    }
    let revoke = app
        .client
        .delete(format!("{}/v1/me/tokens/a%00b", app.address))
        .bearer_auth(&people[0].token)
        .send()
        .await
        .unwrap();
    assert_problem(revoke, 400, "invalid_text").await;

    let bodies = [
        ("/v1/me/tokens", json!({"name": nul, "scopes": ["read"]})),
        ("/v1/matches", json!({"seats": 2, "client_seed": nul})),
        (
            "/v1/auth/login",
            json!({"username": nul, "password": "correct horse"}),
        ),
    ];
    for (path, body) in &bodies {
        let answer = app.post_as(&people[0], path, body).await;
        assert_problem(answer, 400, "invalid_text").await;
    }
    let private = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let private = created_id(private).await;
    let invited = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{private}/invitations"),
            &json!({"username": nul}),
        )
        .await;
    assert_problem(invited, 400, "invalid_text").await;

    // The six characters `\u0000` are text like any other.
    let named = app
        .post_as(
            &people[0],
            "/v1/me/tokens",
            &json!({"name": "a\\u0000b", "scopes": ["read"]}),
        )
        .await;
    assert_eq!(named.status(), 201, "{}", named.text().await.unwrap());
    assert_eq!(named.json::<Value>().await.unwrap()["name"], "a\\u0000b");
}

/// Sends the requests at once; how many answered 201.
async fn created_at_once(requests: Vec<reqwest::RequestBuilder>) -> usize {
    let answers =
        futures_util::future::join_all(requests.into_iter().map(|request| request.send())).await;
    answers
        .into_iter()
        .filter(|answer| answer.as_ref().unwrap().status() == 201)
        .count()
}

#[tokio::test]
async fn finding_03_caps_hold_under_concurrent_creations() {
    let app = spawn_app_with(|settings| {
        settings.webhook_allowed_networks = vec!["127.0.0.1/32".parse().unwrap()];
        // The race is on the database's caps, not on the per-account bound of
        // requests in flight, which would refuse most of the crowd first.
        settings.max_requests_per_account = 100;
    })
    .await;
    let people = players(&app, 1).await;
    let owner = &people[0];

    let tokens = (0..70)
        .map(|index| {
            app.client
                .post(format!("{}/v1/me/tokens", app.address))
                .bearer_auth(&owner.token)
                .json(&json!({"name": format!("t{index}"), "scopes": ["read"]}))
        })
        .collect();
    assert_eq!(created_at_once(tokens).await, 50);
    let listed = app.json_as(owner, "/v1/me/tokens").await;
    assert_eq!(listed["tokens"].as_array().unwrap().len(), 50, "{listed}");

    let webhooks = (0..25)
        .map(|index| {
            app.client
                .post(format!("{}/v1/me/webhooks", app.address))
                .bearer_auth(&owner.token)
                .json(
                    &json!({"url": format!("http://127.0.0.1:9/{index}"), "types": ["your_turn"]}),
                )
        })
        .collect();
    assert_eq!(created_at_once(webhooks).await, 10);
    let listed = app.json_as(owner, "/v1/me/webhooks").await;
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 10, "{listed}");

    for index in 0..30 {
        app.register(&format!("guest{index}"), "correct horse")
            .await;
    }
    let created = app
        .post_as(
            owner,
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let id = created_id(created).await;
    let invitations = (0..30)
        .map(|index| {
            app.client
                .post(format!("{}/v1/matches/{id}/invitations", app.address))
                .bearer_auth(&owner.token)
                .json(&json!({"username": format!("guest{index}")}))
        })
        .collect();
    assert_eq!(created_at_once(invitations).await, 20);
}

/// Plays the seat to move's first legal action; `false` once the match has no move to make.
async fn one_move(app: &TestApp, people: &[Player], id: &str) -> bool {
    let view = app
        .json_as(&people[0], &format!("/v1/matches/{id}/view"))
        .await;
    let Some(turn) = view["turn"].as_u64() else {
        return false;
    };
    let view = app
        .json_as(&people[turn as usize], &format!("/v1/matches/{id}/view"))
        .await;
    let Some(action) = view["legal_actions"].as_array().and_then(|a| a.first()) else {
        return false;
    };
    let moved = app
        .post_as(
            &people[turn as usize],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": action}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    true
}

fn retry_after(response: &reqwest::Response) -> i64 {
    response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

async fn say(app: &TestApp, player: &Player, id: &str, text: &str) -> reqwest::Response {
    let path = format!("/v1/matches/{id}/messages");
    app.post_as(player, &path, &json!({ "text": text })).await
}

#[tokio::test]
async fn finding_04_talk_is_paced_by_the_minute_however_busy_the_table() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    for index in 0..10 {
        let said = say(&app, &people[0], &id, &format!("message {index}")).await;
        assert_eq!(said.status(), 201);
    }
    // A busy table: more than 200 events within the same minute.
    let start = app.db.match_by_id(&id).await.unwrap().unwrap().version;
    while app.db.match_by_id(&id).await.unwrap().unwrap().version < start + 220 {
        assert!(
            one_move(&app, &people, &id).await,
            "the match ended too soon"
        );
    }
    // Time passes as usual besides the jumps, so the waits are checked within a few seconds.
    app.clock.advance(20);
    let refused = say(&app, &people[0], &id, "one too many").await;
    // At most 40 s: the first message was said at least 20 s ago (less, by as long as the moves
    // took).
    let wait = retry_after(&refused);
    assert!((1..=40).contains(&wait), "Retry-After: {wait}");
    assert_problem(refused, 429, "too_many_messages").await;
    if wait > 5 {
        app.clock.advance(wait - 5);
        let refused = say(&app, &people[0], &id, "one too many").await;
        assert!((1..=5).contains(&retry_after(&refused)));
        app.clock.advance(5);
    } else {
        app.clock.advance(wait);
    }
    let said = say(&app, &people[0], &id, "now").await;
    assert_eq!(said.status(), 201, "{}", said.text().await.unwrap());
}

/// A personal token of `player` with these scopes: its id and secret.
async fn personal_token(app: &TestApp, player: &Player, scopes: Value) -> (String, String) {
    let created = app
        .post_as(
            player,
            "/v1/me/tokens",
            &json!({"name": "t", "scopes": scopes}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    (
        created["id"].as_str().unwrap().to_owned(),
        created["token"].as_str().unwrap().to_owned(),
    )
}

/// A stream ticket asked for with `token`.
async fn stream_ticket(app: &TestApp, token: &str) -> String {
    let issued = app
        .client
        .post(format!("{}/v1/me/stream-tickets", app.address))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(issued.status(), 201);
    issued.json::<Value>().await.unwrap()["ticket"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn finding_05_a_revoked_token_and_its_tickets_stop_at_once() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let owner = &people[0];

    // A first use racing the revocation must not bring the token back.
    for _ in 0..100 {
        let (id, token) = personal_token(&app, owner, json!(["read"])).await;
        let uses = (0..4).map(|_| app.get("/v1/me", Some(&token)));
        let revoke = app
            .client
            .delete(format!("{}/v1/me/tokens/{id}", app.address))
            .bearer_auth(&owner.token)
            .send();
        let (revoked, _) = tokio::join!(revoke, futures_util::future::join_all(uses));
        assert_eq!(revoked.unwrap().status(), 204);
        let after = app.get("/v1/me", Some(&token)).await;
        assert_problem(after, 401, "invalid_token").await;
    }

    // A ticket minted by a token goes with the token.
    let (id, token) = personal_token(&app, owner, json!(["read"])).await;
    let ticket = stream_ticket(&app, &token).await;
    let revoked = app
        .client
        .delete(format!("{}/v1/me/tokens/{id}", app.address))
        .bearer_auth(&owner.token)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 204);
    let opened = app
        .get(&format!("/v1/me/stream?ticket={ticket}"), None)
        .await;
    assert_problem(opened, 401, "invalid_stream_ticket").await;

    // A ticket of a deleted account goes with the account.
    let deleted = &people[1];
    let ticket = stream_ticket(&app, &deleted.token).await;
    let gone = app
        .client
        .delete(format!("{}/v1/me", app.address))
        .bearer_auth(&deleted.token)
        .json(&json!({"password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 204);
    let opened = app
        .get(&format!("/v1/me/stream?ticket={ticket}"), None)
        .await;
    assert_problem(opened, 401, "invalid_stream_ticket").await;
}

#[tokio::test]
async fn finding_06_bot_accounts_are_not_players() {
    let app = spawn_app().await;
    let people = players(&app, 1).await;
    // A bot sat in a match, so its account has something to count.
    let solo = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "bots": [{"level": "random"}]}),
        )
        .await;
    assert_eq!(solo.status(), 201, "{}", solo.text().await.unwrap());
    let created = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "visibility": "private"}),
        )
        .await;
    let private = created_id(created).await;
    for number in 1..=8 {
        let name = format!("[bot]:{number}");
        let page = app
            .get(&format!("/v1/players/%5Bbot%5D:{number}"), None)
            .await;
        assert_problem(page, 404, "player_not_found").await;
        let invited = app
            .post_as(
                &people[0],
                &format!("/v1/matches/{private}/invitations"),
                &json!({"username": name}),
            )
            .await;
        assert_problem(invited, 422, "unknown_username").await;
    }
    // Logins are limited per address: two tries say enough.
    for password in ["", "correct horse"] {
        let login = app
            .post(
                "/v1/auth/login",
                &json!({"username": "[bot]:1", "password": password}),
            )
            .await;
        assert_problem(login, 401, "invalid_credentials").await;
    }
    let page = app.get("/v1/players/%5Bbot%5D", None).await;
    assert_problem(page, 404, "player_not_found").await;
}

#[tokio::test]
async fn finding_07_a_public_page_counts_public_matches_only() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    crate::helpers::private_match(&app, &people).await;
    let page = app.get("/v1/players/player0", None).await;
    let page: Value = page.json().await.unwrap();
    assert_eq!(page["matches"]["playing"], 0, "{page}");
    assert_eq!(page["private_included"], false);
    assert_eq!(page["by_preset"], json!([]));
    let other = app.json_as(&people[1], "/v1/players/player0").await;
    assert_eq!(other["matches"]["playing"], 0);

    // The player sees their own private results.
    let own = app.json_as(&people[0], "/v1/players/player0").await;
    assert_eq!(own["matches"]["playing"], 1, "{own}");
    assert_eq!(own["private_included"], true);

    full_match(&app, &people, json!({"preset": "standard"})).await;
    let page: Value = app
        .get("/v1/players/player0", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["matches"]["playing"], 1, "{page}");
}

#[tokio::test]
async fn finding_08_a_position_is_hinted_once_and_new_hints_are_paced() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    let view = app
        .json_as(&people[0], &format!("/v1/matches/{id}/view"))
        .await;
    let turn = view["turn"].as_u64().unwrap() as usize;
    let (mover, waiting) = (&people[turn], &people[1 - turn]);
    let path = format!("/v1/matches/{id}/hint");

    // The same position, asked for many times, is computed once: all within the pace.
    let first = app.json_as(mover, &path).await;
    for _ in 0..30 {
        assert_eq!(app.json_as(mover, &path).await, first);
    }
    // Each word of the other seat makes a new position (a new version): new hints, paced.
    for new in 2..=10 {
        app.clock.advance(61);
        assert_eq!(say(&app, waiting, &id, "hm").await.status(), 201);
        let hint = app.json_as(mover, &path).await;
        assert!(
            hint["version"].as_i64() > first["version"].as_i64(),
            "hint {new}"
        );
    }
    app.clock.advance(61);
    assert_eq!(say(&app, waiting, &id, "hm").await.status(), 201);
    let refused = app.get_as(mover, &path).await;
    let wait = retry_after(&refused);
    assert!((1..=60).contains(&wait), "Retry-After: {wait}");
    assert_problem(refused, 429, "too_many_hints").await;
}

/// The error of the first delivery attempt to a webhook at `url`, once it was made.
async fn first_delivery_error(app: &TestApp, people: &[Player], url: &str) -> String {
    // One type only: a webhook's deliveries go out one at a time, so the first failed one
    // (retried later) would hold back any other.
    let created = app
        .post_as(
            &people[0],
            "/v1/me/webhooks",
            &json!({"url": url, "types": ["match_started"]}),
        )
        .await;
    let webhook = created_id(created).await;
    full_match(app, people, json!({"preset": "standard"})).await;
    let path = format!("/v1/me/webhooks/{webhook}/deliveries");
    for _ in 0..200 {
        let list = app.json_as(&people[0], &path).await;
        if let Some(error) = list["deliveries"][0]["attempts"][0]["error"].as_str() {
            return error.to_owned();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no delivery was attempted to {url}");
}

#[tokio::test]
async fn finding_09_small_leaks_and_sharp_edges() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;

    // A delivery's error says an address was not allowed, never which it was, nor whether
    // the name resolved at all.
    let internal = first_delivery_error(&app, &people, "https://localhost:9/hook").await;
    assert!(
        internal.ends_with("localhost resolves to no address a webhook may reach"),
        "{internal}"
    );
    assert!(!internal.contains("127.0.0.1"), "{internal}");
    let unknown = first_delivery_error(&app, &people, "https://no-such-host.invalid/hook").await;
    assert_eq!(
        unknown.replace("no-such-host.invalid", "localhost"),
        internal,
        "an unknown name reads as one that resolves to a private address"
    );

    // A stream ticket is taken by the two stream routes only.
    let issued = app
        .client
        .post(format!("{}/v1/me/stream-tickets", app.address))
        .bearer_auth(&people[0].token)
        .send()
        .await
        .unwrap();
    let ticket = issued.json::<Value>().await.unwrap()["ticket"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in [
        "/v1/players/stream",
        "/v1/me/webhooks/x/stream",
        "/v1/matches/a/b/stream",
    ] {
        app.get(&format!("{path}?ticket={ticket}"), None).await;
    }
    let opened = app
        .get(&format!("/v1/me/stream?ticket={ticket}"), None)
        .await;
    assert_eq!(opened.status(), 200, "the ticket is still unused");

    // Talk refuses bidirectional embeddings, overrides and isolates.
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    for control in [
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
        '\u{2068}', '\u{2069}',
    ] {
        let said = say(&app, &people[0], &id, &format!("gg{control}kcap")).await;
        assert_problem(said, 422, "invalid_message").await;
    }
}

/// Makes a file immutable (`chattr +i`), or says why not; `false` when it could not.
fn make_immutable(path: &std::path::Path, immutable: bool) -> bool {
    let flag = if immutable { "+i" } else { "-i" };
    let done = std::process::Command::new("chattr")
        .arg(flag)
        .arg(path)
        .status()
        .is_ok_and(|status| status.success());
    if !done && immutable {
        eprintln!("cannot make a file immutable here (not root?): this test does not run");
    }
    done
}

/// A write of `server`'s (a match created, then left); its status.
async fn server_write(
    server: &crate::hardening::ServerProcess,
    client: &reqwest::Client,
    token: &str,
) -> u16 {
    let created = client
        .post(format!("{}/v1/matches", server.address))
        .bearer_auth(token)
        .json(&json!({"seats": 2}))
        .send()
        .await;
    let Ok(created) = created else { return 0 };
    let status = created.status().as_u16();
    if status == 201 {
        let id = created_id(created).await;
        let _ = client
            .post(format!("{}/v1/matches/{id}/leave", server.address))
            .bearer_auth(token)
            .json(&json!({}))
            .send()
            .await;
    }
    status
}

#[tokio::test]
async fn finding_10_sqlite_recovers_by_itself_once_its_wal_file_is_writable_again() {
    let server = crate::hardening::ServerProcess::start(&[], &[]).await;
    let client = reqwest::Client::new();
    let token = server.player(&client, "maya").await;
    assert_eq!(server_write(&server, &client, &token).await, 201);
    let wal = server._dir.path().join("kc.db-wal");
    if !make_immutable(&wal, true) {
        return;
    }
    // Writes fail meanwhile (and the pool opens new connections, which find the file
    // read-only).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
    let mut refused = 0;
    while std::time::Instant::now() < until {
        if server_write(&server, &client, &token).await == 503 {
            refused += 1;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    make_immutable(&wal, false);
    assert!(refused > 0, "writes to an immutable -wal file are refused");
    let mut statuses = Vec::new();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::time::Instant::now() < until {
        statuses.push(server_write(&server, &client, &token).await);
        if statuses.ends_with(&[201, 201, 201, 201, 201]) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("not recovered 5 s after: {statuses:?}\n{}", server.log());
}

#[tokio::test]
async fn finding_11_sqlite_maps_no_shm_file_that_could_stop_a_running_server() {
    let mut server = crate::hardening::ServerProcess::start(&[], &[]).await;
    let client = reqwest::Client::new();
    let token = server.player(&client, "maya").await;
    for _ in 0..20 {
        assert_eq!(server_write(&server, &client, &token).await, 201);
    }
    let shm = server._dir.path().join("kc.db-shm");
    let mapped = shm.exists();
    // The finding: an -shm file made unwritable under load. Without one, a stray file is
    // made so.
    if !mapped {
        std::fs::write(&shm, b"").unwrap();
    }
    if !make_immutable(&shm, true) {
        return;
    }
    let mut statuses = Vec::new();
    for _ in 0..100 {
        statuses.push(server_write(&server, &client, &token).await);
    }
    make_immutable(&shm, false);
    let exited = server.child.try_wait().unwrap();
    assert!(
        exited.is_none(),
        "the server stopped: {exited:?}\n{}",
        server.log()
    );
    assert!(!mapped, "the server used an -shm file");
    assert!(statuses.iter().all(|status| *status == 201), "{statuses:?}");

    // The file is this process's: a second server on it stops at start, saying why.
    let second = std::process::Command::new(env!("CARGO_BIN_EXE_kings-corner"))
        .env(
            "DATABASE_URL",
            format!("sqlite://{}/kc.db", server._dir.path().display()),
        )
        .env("BIND_ADDRESS", "127.0.0.1:0")
        .output()
        .unwrap();
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("in use by another process"), "{said}");
}

#[tokio::test]
async fn finding_13_a_deletion_cut_short_is_finished_by_the_next_process() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let created = app
        .post_as(&people[0], "/v1/matches", &json!({"seats": 3}))
        .await;
    let id = created_id(created).await;
    let joined = app
        .post_as(&people[1], &format!("/v1/matches/{id}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200);
    let leaving = app.json_as(&people[1], "/v1/me").await["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // The state a process leaves when it stops right after the deletion's transaction: the
    // account is gone, its seat still taken.
    app.db.tombstone_account(&leaving, 0).await.unwrap();
    let summary = app.json_as(&people[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(summary["seats"].as_array().unwrap().len(), 2);

    // The next process to start finishes it.
    let clock = std::sync::Arc::new(kings_corner::time_source::ManualClock::default());
    let (_, second) = crate::helpers::start_with_clock(app.settings.clone(), clock).await;
    for _ in 0..100 {
        let summary: Value = app
            .client
            .get(format!("{second}/v1/matches/{id}"))
            .bearer_auth(&people[0].token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if summary["seats"].as_array().unwrap().len() == 1 {
            assert_eq!(summary["seats"][0]["username"], "player0");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the deleted account still holds its seat");
}

#[tokio::test]
async fn finding_12_the_description_says_what_the_server_checks() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let api: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let schemas = &api["components"]["schemas"];

    // A password's bounds, and the enums of scopes and notification types.
    assert_eq!(
        schemas["NewAccount"]["properties"]["password"]["minLength"],
        8
    );
    assert_eq!(
        schemas["NewAccount"]["properties"]["password"]["maxLength"],
        256
    );
    let short = app
        .post(
            "/v1/accounts",
            &json!({"username": "shorty", "password": "1234567"}),
        )
        .await;
    assert_problem(short, 422, "weak_password").await;
    assert_eq!(
        schemas["Scope"]["enum"],
        json!(["play", "read", "webhooks", "account"])
    );
    let empty = app
        .post_as(
            &people[0],
            "/v1/me/tokens",
            &json!({"name": "t", "scopes": [""]}),
        )
        .await;
    assert_problem(empty, 422, "invalid_token_request").await;
    assert!(
        schemas["NotificationType"]["enum"]
            .as_array()
            .unwrap()
            .len()
            >= 9
    );

    // An integer written as 30.0 is the integer JSON Schema says it is.
    let token = app
        .post_as(
            &people[0],
            "/v1/me/tokens",
            &json!({"name": "t", "scopes": ["read"], "expires_in_days": 30.0}),
        )
        .await;
    assert_eq!(token.status(), 201, "{}", token.text().await.unwrap());

    // A join may leave its body out, as described.
    let join = &api["paths"]["/v1/matches/{id}/join"]["post"]["requestBody"];
    assert_eq!(join["required"], false);
    let created = app
        .post_as(&people[0], "/v1/matches", &json!({"seats": 2}))
        .await;
    let id = created_id(created).await;
    let joined = app
        .client
        .post(format!("{}/v1/matches/{id}/join", app.address))
        .bearer_auth(&people[1].token)
        .send()
        .await
        .unwrap();
    assert_eq!(joined.status(), 200);

    // Streams refuse a start below 0 however it is sent, and describe their events.
    for (query, last) in [
        ("?after=-1", None),
        ("?after=-1", Some("0")),
        ("", Some("9223372036854775808")),
        ("", Some("")),
    ] {
        let mut request = app
            .client
            .get(format!("{}/v1/me/stream{query}", app.address))
            .bearer_auth(&people[0].token);
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last);
        }
        assert_problem(request.send().await.unwrap(), 422, "invalid_query").await;
    }
    let item = &api["paths"]["/v1/me/stream"]["get"]["responses"]["200"]["content"]["text/event-stream"]
        ["schema"];
    assert_eq!(
        item["properties"]["data"]["contentSchema"]["$ref"],
        "#/components/schemas/Notification"
    );
    assert!(api["paths"]["/v1/me/stream"]["get"]["responses"]["422"].is_object());

    // A parameter the operation does not take is refused, not ignored.
    let unknown = app.get_as(&people[0], "/v1/me?afterr=3").await;
    assert_problem(unknown, 400, "malformed_query").await;
    let bounded = &api["paths"]["/v1/matches/{id}/replay"]["get"]["parameters"];
    let at = bounded
        .as_array()
        .unwrap()
        .iter()
        .find(|parameter| parameter["name"] == "at")
        .unwrap();
    assert_eq!(at["schema"]["maximum"], i64::MAX);
}
