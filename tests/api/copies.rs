//! `kings-corner copy`: a SQLite database the API filled, with a row in every table, moves to
//! PostgreSQL; killed in the middle of a table, the command resumes; then a server on
//! PostgreSQL plays on with the same tokens, passwords and webhooks. Runs where the suite runs on PostgreSQL (it needs both).

use std::process::{Command, Stdio};

use serde_json::{Value, json};
use sqlx::Row;

use crate::helpers::{
    self, BINARY, Player, TestApp, TestDatabase, created_id, every_seat_takes_a_turn, full_match,
    kings_corner, migrate, play_on, players, spawn_app, spawn_app_with, view_of_turn,
};
use crate::smtp_sink::SmtpSink;
use kings_corner::store::transfer::COPIED_TABLES;

/// The PostgreSQL server the suite runs on, if it runs on one.
fn postgres_admin_url() -> Option<String> {
    std::env::var("DATABASE_URL")
        .ok()
        .filter(|url| url.starts_with("postgres"))
}

fn copy_args(from: &str, to: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "copy".to_owned(),
        "--from".to_owned(),
        from.to_owned(),
        "--to".to_owned(),
        to.to_owned(),
    ];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

/// Starts a copy one row per transaction and kills it (SIGKILL) in the middle of a table. A
/// gate in the target stops the copy at the second row of `match_events` (a trigger that waits
/// for an advisory lock the test holds), so the kill never races the copy's end, however fast
/// or loaded the machine. `target` watches the copy's progress.
async fn interrupted_copy(from: &str, to: &str, target: &sqlx::AnyPool) {
    let (migrated, said) = migrate(to).await;
    assert!(migrated, "{said}");
    let mut gate = target.acquire().await.unwrap();
    sqlx::raw_sql(
        "DO $$ BEGIN PERFORM pg_advisory_lock(4242); END $$; \
         CREATE FUNCTION copy_gate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF EXISTS (SELECT 1 FROM match_events) THEN PERFORM pg_advisory_xact_lock(4242); END IF; \
             RETURN NEW; \
         END $$; \
         CREATE TRIGGER copy_gate BEFORE INSERT ON match_events \
             FOR EACH ROW EXECUTE FUNCTION copy_gate();",
    )
    .execute(&mut *gate)
    .await
    .unwrap();

    let mut child = Command::new(BINARY)
        .args(copy_args(from, to, &["--batch-rows", "1"]))
        .env("LOG_LEVEL", "warn")
        .env_remove("DATABASE_URL")
        .stdout(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let partly = "SELECT COUNT(*) AS n FROM kings_corner_copy \
                  WHERE table_name = 'match_events' AND done = 0 AND copied > 0";
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the copy ended before it was stopped"
        );
        // The table appears when the copy begins.
        if let Ok(row) = sqlx::query(partly).fetch_one(target).await
            && row.get::<i64, _>("n") > 0
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The killed copy's last insert, waiting at the gate, is rolled back once it passes.
    sqlx::raw_sql(
        "DO $$ BEGIN PERFORM pg_advisory_unlock(4242); END $$; \
         DROP TRIGGER copy_gate ON match_events; \
         DROP FUNCTION copy_gate();",
    )
    .execute(&mut *gate)
    .await
    .unwrap();
    let held: i64 = sqlx::query("SELECT COUNT(*) AS n FROM match_events")
        .fetch_one(target)
        .await
        .unwrap()
        .get("n");
    assert_eq!(held, 1, "the copy stopped at the gate");
}

/// One player's login: the access token and the refresh token.
async fn login(app: &TestApp, username: &str) -> (Player, String) {
    let tokens = app.login(username, "correct horse").await;
    (
        Player {
            token: tokens["access_token"].as_str().unwrap().to_owned(),
        },
        tokens["refresh_token"].as_str().unwrap().to_owned(),
    )
}

/// The rows of every copied table in `pool`.
async fn row_counts(pool: &sqlx::AnyPool) -> Vec<(String, i64)> {
    let mut counts = Vec::new();
    for table in COPIED_TABLES {
        let row = sqlx::query(&format!("SELECT COUNT(*) AS n FROM {table}"))
            .fetch_one(pool)
            .await
            .unwrap();
        counts.push(((*table).to_owned(), row.get::<i64, _>("n")));
    }
    counts
}

/// Fills the server's database through the API until every copied table has rows: players
/// with refresh tokens, a personal token, a stream ticket, a match under way with a kept
/// (idempotent) move, a private match with an invitation, a finished match with a rematch
/// whose seats are reserved, a rated match, seeks (seated and open), notifications, a
/// webhook with a failed delivery attempt, a block, a follow, a muted table, notes and a
/// resolved report.
/// Returns the players (logged in once more), their refresh tokens, the personal token, and
/// the match under way.
async fn fill(app: &TestApp) -> (Vec<Player>, Vec<String>, String, String) {
    players(app, 3).await;
    let mut people = Vec::new();
    let mut refresh = Vec::new();
    for index in 0..3 {
        let (player, token) = login(app, &format!("player{index}")).await;
        people.push(player);
        refresh.push(token);
    }
    let created = app
        .post_as(
            &people[0],
            "/v1/me/tokens",
            &json!({"name": "cli", "scopes": ["read", "play"]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let personal = created.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let ticket = app
        .post_as(&people[0], "/v1/me/stream-tickets", &json!({}))
        .await;
    assert_eq!(ticket.status(), 201, "{}", ticket.text().await.unwrap());
    let webhook = app
        .post_as(
            &people[0],
            "/v1/me/webhooks",
            &json!({"url": "http://127.0.0.1:9/hook", "types": ["match_started", "your_turn"]}),
        )
        .await;
    let webhook = created_id(webhook).await;

    // A match under way, with a move kept under an idempotency key.
    let under_way = full_match(app, &people[..2], json!({"preset": "standard"})).await;
    let (turn, view) = view_of_turn(app, &people[..2], &under_way).await;
    let moved = app
        .client
        .post(format!("{}/v1/matches/{under_way}/moves", app.address))
        .bearer_auth(&people[turn].token)
        .header("Idempotency-Key", "copy-1")
        .json(&json!({"expected_version": view["version"], "action": view["legal_actions"][0]}))
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());

    // A private match with an invitation.
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
            &json!({"username": "player2"}),
        )
        .await;
    assert!(invited.status().is_success(), "{}", invited.status());

    // A finished match, and its rematch with seats kept for the others.
    let ended = full_match(app, &people, json!({"preset": "standard"})).await;
    for player in &people[..2] {
        let left = app
            .post_as(player, &format!("/v1/matches/{ended}/leave"), &json!({}))
            .await;
        assert_eq!(left.status(), 204);
    }
    let rematch = app
        .post_as(
            &people[2],
            &format!("/v1/matches/{ended}/rematch"),
            &json!({}),
        )
        .await;
    assert_eq!(rematch.status(), 201);

    // A rated match, ended: its players' ratings and their changes.
    let rated = app
        .post_as(
            &people[1],
            "/v1/matches",
            &json!({"seats": 2, "rated": true, "clock": "correspondence_1d"}),
        )
        .await;
    let rated = created_id(rated).await;
    let joined = app
        .post_as(&people[2], &format!("/v1/matches/{rated}/join"), &json!({}))
        .await;
    assert_eq!(joined.status(), 200);
    every_seat_takes_a_turn(app, &[&people[1], &people[2]], &rated).await;
    let left = app
        .post_as(
            &people[1],
            &format!("/v1/matches/{rated}/leave"),
            &json!({}),
        )
        .await;
    assert_eq!(left.status(), 204);

    // Quick pairing: two seeks seated together (each naming its match) and one still open.
    let table = json!({"preset": "standard", "seats": 2, "clock": "correspondence_1d"});
    for (player, status) in [(&people[1], "open"), (&people[2], "matched")] {
        let sought = app.post_as(player, "/v1/seeks", &table).await;
        assert_eq!(sought.status(), 201);
        assert_eq!(sought.json::<Value>().await.unwrap()["status"], status);
    }
    let open = app
        .post_as(&people[0], "/v1/seeks", &json!({"preset": "night-one"}))
        .await;
    assert_eq!(open.json::<Value>().await.unwrap()["status"], "open");

    // The webhook's first delivery was tried (and failed: nothing listens on port 9).
    let deliveries = format!("/v1/me/webhooks/{webhook}/deliveries");
    let mut tried = false;
    for _ in 0..200 {
        let list = app.json_as(&people[0], &deliveries).await;
        let deliveries = list["deliveries"].as_array().unwrap();
        if deliveries
            .iter()
            .any(|delivery| delivery["attempts"][0]["error"].is_string())
        {
            tried = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(tried, "a delivery was attempted");

    // A block and a muted table (issue 39).
    let blocked = app
        .post_as(&people[1], "/v1/me/blocks/player2", &json!({}))
        .await;
    assert_eq!(blocked.status(), 201);
    let followed = app
        .post_as(&people[0], "/v1/me/follows/player1", &json!({}))
        .await;
    assert_eq!(followed.status(), 201);
    let muted = app
        .client
        .put(format!("{}/v1/matches/{under_way}/mute", app.address))
        .bearer_auth(&people[0].token)
        .send()
        .await
        .unwrap();
    assert_eq!(muted.status(), 200);
    let noted = app
        .client
        .put(format!("{}/v1/matches/{under_way}/notes", app.address))
        .bearer_auth(&people[0].token)
        .json(&json!({"text": "kings early"}))
        .send()
        .await
        .unwrap();
    assert_eq!(noted.status(), 200);
    let reported = app
        .post_as(
            &people[2],
            "/v1/reports",
            &json!({"about": "match", "match_id": under_way, "reason": "other"}),
        )
        .await;
    assert_eq!(reported.status(), 201, "{}", reported.text().await.unwrap());
    // Resolved by an operator (`kings-corner admin resolve`, on the server's own service here:
    // the server holds its SQLite file), which writes the audit log.
    let report_id = reported.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.matches
        .resolve_report(&report_id, "no action", "sam")
        .await
        .unwrap();
    (people, refresh, personal, under_way)
}

/// Fills the tables of issue 36: two players with verified addresses (their spent tokens and
/// sent letters), one told of invitations by email at once and on a device (an alert letter
/// with its unsubscribe token, a push message still being retried: nothing listens on port 9),
/// the other by a daily letter (its alert waits in its queue).
async fn reach(app: &TestApp, sink: &SmtpSink, people: &[Player]) {
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    for (index, digest) in [(1, "each"), (2, "daily")] {
        let address = format!("player{index}@example.com");
        let set = app
            .client
            .put(format!("{}/v1/me/email", app.address))
            .bearer_auth(&people[index].token)
            .json(&json!({"email": address, "password": "correct horse"}))
            .send()
            .await
            .unwrap();
        assert_eq!(set.status(), 202);
        let link = sink.wait_for(&address, 1).await[0].token("verify-email=");
        let verified = app
            .post("/v1/auth/email-verification", &json!({"token": link}))
            .await;
        assert_eq!(verified.status(), 204);
        let alerts = json!({"email": ["invited"], "push": ["invited"], "digest": digest, "digest_hour": 8, "quiet_hours": null, "time_zone": "UTC"});
        let put = app
            .client
            .put(format!("{}/v1/me/alerts", app.address))
            .bearer_auth(&people[index].token)
            .json(&alerts)
            .send()
            .await
            .unwrap();
        assert_eq!(put.status(), 200);
    }
    let key = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let p256dh =
        base64::Engine::encode(&engine, key.public_key().to_encoded_point(false).as_bytes());
    let device = json!({"name": "phone", "endpoint": "http://127.0.0.1:9/push", "keys": {"p256dh": p256dh, "auth": "AAAAAAAAAAAAAAAAAAAAAA"}});
    let subscribed = app
        .post_as(&people[1], "/v1/me/push-subscriptions", &device)
        .await;
    assert_eq!(subscribed.status(), 201);
    for guest in ["player1", "player2"] {
        let created = app
            .post_as(
                &people[0],
                "/v1/matches",
                &json!({"seats": 2, "visibility": "private"}),
            )
            .await;
        let id = created_id(created).await;
        let invited = app
            .post_as(
                &people[0],
                &format!("/v1/matches/{id}/invitations"),
                &json!({"username": guest}),
            )
            .await;
        assert_eq!(invited.status(), 201);
    }
    for _ in 0..200 {
        let counts = row_counts(app.db.pool()).await;
        let has = |table: &str| counts.iter().any(|(name, rows)| name == table && *rows > 0);
        if ["unsubscribe_tokens", "outgoing_pushes", "pending_alerts"]
            .into_iter()
            .all(has)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the alerts were not written");
}

#[tokio::test]
async fn a_sqlite_database_moves_to_postgres_resumably_and_plays_on_with_the_same_tokens() {
    let Some(admin_url) = postgres_admin_url() else {
        return; // The copy needs a PostgreSQL server.
    };
    let directory = tempfile::tempdir().unwrap();
    let live = format!("sqlite://{}", directory.path().join("live.db").display());
    let sink = SmtpSink::start().await;
    let smtp = sink.url.clone();
    let app = spawn_app_with(|settings| {
        settings.database.url = live.clone();
        settings.webhook_allowed_networks = vec!["127.0.0.1/32".parse().unwrap()];
        settings.smtp_url = Some(smtp);
        settings.mail_from = Some("Kings Corner <kings@example.test>".to_owned());
        settings.public_url = Some("https://kings.example.test".parse().unwrap());
    })
    .await;
    let (people, refresh, personal, under_way) = fill(&app).await;
    reach(&app, &sink, &people).await;
    let live_counts = row_counts(app.db.pool()).await;
    let notified_before = app
        .json_as(&people[1], "/v1/me/events?after=0&limit=500")
        .await["notifications"]
        .as_array()
        .unwrap()
        .len();
    // The relay's queue is emptied within moments of each write, so it is seldom caught with
    // rows; it is copied as every table is (the copy has no code of its own for any table).
    for (table, rows) in live_counts
        .iter()
        .filter(|(table, _)| table != "notification_fanout")
    {
        assert!(*rows > 0, "the API wrote no row to {table}");
    }

    // The server holds its file: the copy refuses it, and is made from a backup instead (the
    // server is stopped in a real move; here it serves on, unused).
    let (target, to) = TestDatabase::postgres(&admin_url).await;
    let (copied, said) = kings_corner(copy_args(&live, &to, &[])).await;
    assert!(
        !copied && said.contains("in use by a running server"),
        "{said}"
    );
    let backup = directory.path().join("old.db");
    let (made, said) = helpers::backup(&live, &backup).await;
    assert!(made, "{said}");
    let from = format!("sqlite://{}", backup.display());
    // What is copied is the backup: the live server's background work (the relay fanning a
    // notification out to a webhook) may have written more since the counts above.
    sqlx::any::install_default_drivers();
    let source = sqlx::AnyPool::connect(&format!("{from}?mode=ro"))
        .await
        .unwrap();
    let source_counts = row_counts(&source).await;
    source.close().await;

    // Killed in the middle of a table, the copy leaves whole batches and its progress behind.
    let pool = sqlx::AnyPool::connect(&to).await.unwrap();
    interrupted_copy(&from, &to, &pool).await;

    let (copied, said) = kings_corner(copy_args(&from, &to, &[])).await;
    assert!(copied, "{said}");
    assert!(said.contains("resuming the copy begun earlier"), "{said}");
    assert!(said.contains("the rest by an earlier one"), "{said}");
    assert!(said.contains("hash chains included"), "{said}");
    assert!(said.contains("ok: 2 ended matches verify"), "{said}");
    assert_eq!(
        row_counts(&pool).await,
        source_counts,
        "every row arrived once"
    );
    let (again, said) = kings_corner(copy_args(&from, &to, &[])).await;
    assert!(again && said.contains("complete already"), "{said}");
    // The next serial id is past the copied ones. (A server would not say otherwise: a unique
    // key refusing an append reads as a lost race, which the writes that retry get past.)
    for table in ["notifications", "webhook_deliveries", "webhook_attempts"] {
        let past: bool = sqlx::query(&format!(
            "SELECT nextval(pg_get_serial_sequence('{table}', 'id')) > MAX(id) AS past \
             FROM {table}"
        ))
        .fetch_one(&pool)
        .await
        .unwrap()
        .get("past");
        assert!(past, "{table}'s sequence is past its copied ids");
    }

    // A target changed since the copy fails its checks; another source is refused.
    sqlx::query("UPDATE matches SET updated_at = updated_at + 1 WHERE id = $1")
        .bind(&under_way)
        .execute(&pool)
        .await
        .unwrap();
    let (checked, said) = kings_corner(copy_args(&from, &to, &[])).await;
    assert!(
        !checked && said.contains("matches: the same") && said.contains("not in content"),
        "{said}"
    );
    sqlx::query("UPDATE matches SET updated_at = updated_at - 1 WHERE id = $1")
        .bind(&under_way)
        .execute(&pool)
        .await
        .unwrap();
    let other = directory.path().join("other.db");
    let (made, said) = migrate(&format!("sqlite://{}", other.display())).await;
    assert!(made, "{said}");
    let (refused, said) = kings_corner(copy_args(
        &format!("sqlite://{}", other.display()),
        &to,
        &[],
    ))
    .await;
    assert!(
        !refused && said.contains("the source has changed"),
        "{said}"
    );
    pool.close().await;

    // A server on PostgreSQL: the same access, refresh and personal tokens, and passwords.
    let mut settings = app.settings.clone();
    settings.database.url = to.clone();
    let (_, address) = crate::helpers::start(settings).await;
    let client = &app.client;
    let me = client
        .get(format!("{address}/v1/me"))
        .bearer_auth(&personal)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200, "the personal token works after the move");
    let refreshed = client
        .post(format!("{address}/v1/auth/refresh"))
        .json(&json!({"refresh_token": refresh[1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(refreshed.status(), 200, "the refresh token works");
    let login = client
        .post(format!("{address}/v1/auth/login"))
        .json(&json!({"username": "player2", "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 200, "the password works");

    // Play goes on where it stood: the notifications and deliveries it writes get new ids.
    for _ in 0..3 {
        play_on(&app, &address, &people[..2], &under_way).await;
    }
    // Notifications written on PostgreSQL (the end of the match tells both players) are
    // numbered on after the copied ones.
    let left = client
        .post(format!("{address}/v1/matches/{under_way}/leave"))
        .bearer_auth(&people[0].token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(left.status(), 204);
    let notifications = |address: String, token: String| async move {
        let page: Value = reqwest::Client::new()
            .get(format!("{address}/v1/me/events?after=0&limit=500"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        page["notifications"].as_array().unwrap().len()
    };
    let mut told = 0;
    for _ in 0..100 {
        told = notifications(address.clone(), people[1].token.clone()).await;
        if told > notified_before {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        told > notified_before,
        "{told} notifications, {notified_before} before"
    );
    drop(target);
}

#[tokio::test]
async fn copy_refuses_what_it_cannot_carry() {
    let directory = tempfile::tempdir().unwrap();
    let missing = format!("sqlite://{}", directory.path().join("none.db").display());
    let postgres = "postgres://postgres@127.0.0.1:5432/postgres";
    let (done, said) = kings_corner(copy_args(postgres, postgres, &[])).await;
    assert!(
        !done && said.contains("--from must name a SQLite"),
        "{said}"
    );
    let (done, said) = kings_corner(copy_args(&missing, &missing, &[])).await;
    assert!(
        !done && said.contains("--to must name a PostgreSQL"),
        "{said}"
    );
    let (done, said) = kings_corner(copy_args(&missing, postgres, &[])).await;
    assert!(!done && said.contains("there is no database"), "{said}");
    assert!(
        !directory.path().join("none.db").exists(),
        "nothing created"
    );

    let Some(_) = postgres_admin_url() else {
        return;
    };
    // A database no migration made, and a target in use.
    let stranger = directory.path().join("stranger.db");
    std::fs::write(&stranger, b"").unwrap();
    let stranger = format!("sqlite://{}", stranger.display());
    let app = spawn_app().await;
    let name = app.database.postgres_name().unwrap();
    let TestDatabase::Postgres { admin_url, .. } = &app.database else {
        unreachable!()
    };
    let used = format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0);
    let (done, said) = kings_corner(copy_args(&stranger, &used, &[])).await;
    assert!(
        !done && said.contains("not a kings-corner database"),
        "{said}"
    );
    let old = directory.path().join("old.db");
    let old = format!("sqlite://{}", old.display());
    let (made, said) = migrate(&old).await;
    assert!(made, "{said}");
    players(&app, 1).await;
    let (done, said) = kings_corner(copy_args(&old, &used, &[])).await;
    assert!(
        !done && said.contains("the target already holds data (accounts has rows)"),
        "{said}"
    );
}

#[tokio::test]
async fn a_new_empty_database_is_migrated_by_the_copy() {
    // The resumable copy's target is migrated before the copy, for its gate; the usual target,
    // a database just created, is migrated by the copy itself.
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let directory = tempfile::tempdir().unwrap();
    let live = format!("sqlite://{}", directory.path().join("live.db").display());
    let app = spawn_app_with(|settings| settings.database.url = live.clone()).await;
    players(&app, 2).await;
    // The server holds its file: the copy is made from a backup.
    let backup = directory.path().join("small.db");
    let (made, said) = helpers::backup(&live, &backup).await;
    assert!(made, "{said}");
    let source = format!("sqlite://{}", backup.display());
    let (_target, to) = TestDatabase::postgres(&admin_url).await;
    let (copied, said) = kings_corner(copy_args(&source, &to, &[])).await;
    assert!(copied, "{said}");
    assert!(said.contains("all by this run"), "{said}");
    let pool = sqlx::AnyPool::connect(&to).await.unwrap();
    let usernames: Vec<String> = sqlx::query_scalar(
        "SELECT username FROM accounts WHERE username LIKE 'player%' ORDER BY username",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(usernames, ["player0", "player1"]);
    pool.close().await;
}

#[tokio::test]
async fn the_copy_knows_every_table_of_the_schema() {
    let app = spawn_app().await;
    let mut tables = app.db.table_names().await.unwrap();
    tables.sort();
    let mut copied: Vec<String> = COPIED_TABLES.iter().map(|t| (*t).to_owned()).collect();
    copied.sort();
    assert_eq!(
        tables, copied,
        "a new table is added to COPIED_TABLES, parents first"
    );
}
