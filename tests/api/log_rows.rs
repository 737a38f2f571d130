//! The log's rows (issue 40): a move's events share one row of `match_events`
//! (`src/store/log_rows.rs`), and a log written before that, a row per event as every database
//! before migration 0022 holds it, reads exactly as the same log does now: the feed from every
//! point, the replay at every version, the export (which `kings-corner verify` accepts) and
//! the player's record, read by processes that never held the match in memory.

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, every_seat_takes_a_turn, spawn_app, standard_match, start};

/// What a player can read of a match's log, through the server at `address`.
async fn reading(app: &TestApp, address: &str, player: &Player, id: &str) -> Vec<Value> {
    let get = async |path: String| -> Value {
        let response = app
            .client
            .get(format!("{address}{path}"))
            .bearer_auth(&player.token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        response.json().await.unwrap()
    };
    let export = get(format!("/v1/matches/{id}/export")).await;
    let version = export["events"].as_array().unwrap().len();
    let mut read = vec![export, get("/v1/players/player0".into()).await];
    for at in 0..=version {
        read.push(get(format!("/v1/matches/{id}/events?after={at}")).await);
        read.push(get(format!("/v1/matches/{id}/replay?at={at}")).await);
    }
    read
}

/// Rewrites the match's log as a server before migration 0022 wrote it: a row per event.
async fn one_row_per_event(app: &TestApp, id: &str) {
    let rows: Vec<(i64, String, String, Option<String>, i64)> = sqlx::query_as(
        "SELECT seq, event, hash, earlier, created_at FROM match_events WHERE match_id = $1",
    )
    .bind(id)
    .fetch_all(app.sql())
    .await
    .unwrap();
    let mut events = Vec::new();
    for (seq, event, hash, earlier, at) in rows {
        // Read here with serde alone, as the layout's comment describes it.
        let earlier: Vec<(String, Box<RawValue>)> =
            serde_json::from_str(earlier.as_deref().unwrap_or("[]")).unwrap();
        let first = seq - earlier.len() as i64;
        for (offset, (hash, event)) in earlier.into_iter().enumerate() {
            events.push((first + offset as i64, event.get().to_owned(), hash, at));
        }
        events.push((seq, event, hash, at));
    }
    let mut transaction = app.sql().begin().await.unwrap();
    sqlx::query("DELETE FROM match_events WHERE match_id = $1")
        .bind(id)
        .execute(&mut *transaction)
        .await
        .unwrap();
    for (seq, event, hash, at) in events {
        sqlx::query(
            "INSERT INTO match_events (match_id, seq, event, hash, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(seq)
        .bind(event)
        .bind(hash)
        .bind(at)
        .execute(&mut *transaction)
        .await
        .unwrap();
    }
    transaction.commit().await.unwrap();
}

/// The match's log rows and its version.
async fn rows_and_version(app: &TestApp, id: &str) -> (i64, i64) {
    sqlx::query_as("SELECT count(*), max(seq) FROM match_events WHERE match_id = $1")
        .bind(id)
        .fetch_one(app.sql())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_log_of_a_row_per_event_reads_as_the_same_log_of_a_row_per_move() {
    let app = spawn_app().await;
    let (people, id) = standard_match(&app).await;
    every_seat_takes_a_turn(&app, &people, &id).await;
    let seen = app
        .json_as(&people[0], &format!("/v1/matches/{id}/view"))
        .await;
    let resigned = app
        .post_as(
            &people[0],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": seen["version"], "action": {"type": "resign"}}),
        )
        .await;
    assert_eq!(resigned.status(), 200, "{}", resigned.text().await.unwrap());

    let (rows, version) = rows_and_version(&app, &id).await;
    assert!(
        rows < version,
        "{rows} rows hold {version} events: a row per move"
    );
    let written = reading(&app, &app.address, &people[1], &id).await;

    // A process that reads the new layout from the database.
    let (_, fresh) = start(app.settings.clone()).await;
    assert_eq!(reading(&app, &fresh, &people[1], &id).await, written);

    // The same log as an older server wrote it, read by another process.
    one_row_per_event(&app, &id).await;
    assert_eq!(rows_and_version(&app, &id).await, (version, version));
    let (_, older) = start(app.settings.clone()).await;
    assert_eq!(reading(&app, &older, &people[1], &id).await, written);

    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), written[0].to_string()).unwrap();
    let (ok, said) =
        crate::helpers::kings_corner(vec!["verify".into(), file.path().display().to_string()])
            .await;
    assert!(ok, "{said}");
}
