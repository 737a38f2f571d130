//! Snapshots of a match's state (issue 19): a match past a few hundred events is kept beside
//! its log as a snapshot, and a process that has to read it again (its cache let the match
//! go, or it just started) begins there. What it then shows and accepts is exactly what the
//! log says; a snapshot that disagrees with the log or the table is refused, the log folded
//! from its first event instead, and a good snapshot taken in its place.

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, player, players, seated_match, spawn_app_with, start, view_at, view_of_turn,
};
use crate::metrics::{scrape, value};

/// The version past which the server has taken a snapshot (`SNAPSHOT_EVERY` is 256).
const PAST_A_SNAPSHOT: i64 = 300;

/// The seat to move plays its first legal action; the match's version after it.
async fn play(app: &TestApp, people: &[Player], id: &str) -> i64 {
    let (turn, view) = view_of_turn(app, people, id).await;
    let moved = app
        .post_as(
            &people[turn],
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": view["version"], "action": view["legal_actions"][0]}),
        )
        .await;
    assert_eq!(moved.status(), 200, "{}", moved.text().await.unwrap());
    moved.json::<Value>().await.unwrap()["version"]
        .as_i64()
        .unwrap()
}

/// Every seat's view of the match.
async fn views(app: &TestApp, people: &[Player], id: &str) -> Vec<Value> {
    let mut all = Vec::new();
    for person in people {
        all.push(app.json_as(person, &format!("/v1/matches/{id}/view")).await);
    }
    all
}

/// The kept snapshot's version and hash, and the log's hash at that version.
async fn kept(app: &TestApp, id: &str) -> (i64, String, String) {
    let row: (i64, String, String) = sqlx::query_as(
        "SELECT s.version, s.hash, e.hash FROM match_snapshots s \
         JOIN match_events e ON e.match_id = s.match_id AND e.seq = s.version \
         WHERE s.match_id = $1",
    )
    .bind(id)
    .fetch_one(app.sql())
    .await
    .expect("a snapshot is kept");
    row
}

/// The snapshot counter's value for `outcome`.
async fn snapshots(app: &TestApp, outcome: &str) -> f64 {
    value(
        &scrape(app).await,
        &format!("kings_corner_state_snapshots_total{{outcome=\"{outcome}\"}}"),
    )
}

/// Another match's view read, so that the server's one-match cache lets `id` go.
async fn evict(app: &TestApp, other: &(Vec<Player>, String)) {
    views(app, &other.0, &other.1).await;
}

#[tokio::test]
async fn a_long_match_is_read_again_from_its_snapshot_and_a_bad_one_is_refused() {
    let app = spawn_app_with(|settings| settings.match_cache_capacity = 1).await;
    let people = players(&app, 2).await;
    // A clock, so that the clock's part of the snapshot is exercised too.
    let body = json!({"rules": {"preset": "standard"}, "seats": 2,
                      "clock": "correspondence_1d", "auto_end_turn": false});
    let id = seated_match(&app, &people, body.clone()).await;
    let other_people = vec![player(&app, "other0").await, player(&app, "other1").await];
    let other_id = seated_match(&app, &other_people, body).await;
    let other = (other_people, other_id);

    let mut version = 0;
    while version < PAST_A_SNAPSHOT {
        version = play(&app, &people, &id).await;
    }
    let (taken_at, hash, log_hash) = kept(&app, &id).await;
    assert!(
        (256..=version).contains(&taken_at),
        "snapshot at {taken_at}"
    );
    assert_eq!(hash, log_hash, "the snapshot carries its event's hash");

    // Read again after the cache let it go: from the snapshot, the same as from the cache.
    let cached = views(&app, &people, &id).await;
    let resumed = snapshots(&app, "resumed").await;
    evict(&app, &other).await;
    assert_eq!(views(&app, &people, &id).await, cached);
    assert!(snapshots(&app, "resumed").await > resumed);
    // And a move decided on it is accepted.
    evict(&app, &other).await;
    version = play(&app, &people, &id).await;
    let after_move = views(&app, &people, &id).await;

    // A snapshot whose event no longer has its hash, and one with a card too many: each is
    // refused, the log answers the same, and a good snapshot replaces it.
    let edits = [
        "UPDATE match_snapshots SET hash = 'ab' WHERE match_id = $1",
        "UPDATE match_snapshots SET state = REPLACE(state, '\"stock\":[', '\"stock\":[\"AS\",') \
         WHERE match_id = $1",
    ];
    for edit in edits {
        sqlx::query(edit)
            .bind(&id)
            .execute(app.sql())
            .await
            .unwrap();
        let refused = snapshots(&app, "refused").await;
        evict(&app, &other).await;
        assert_eq!(views(&app, &people, &id).await, after_move, "{edit}");
        assert!(snapshots(&app, "refused").await > refused, "{edit}");
        let (taken_at, hash, log_hash) = kept(&app, &id).await;
        assert_eq!((taken_at, &hash), (version, &log_hash), "{edit}");
    }

    // A snapshot of an older layout (2: before the seats' first turns were kept) is passed
    // over, not refused, and replaced.
    sqlx::query("UPDATE match_snapshots SET format = 2, version = version - 1 WHERE match_id = $1")
        .bind(&id)
        .execute(app.sql())
        .await
        .unwrap();
    evict(&app, &other).await;
    assert_eq!(views(&app, &people, &id).await, after_move);
    let format: (i64, i64) =
        sqlx::query_as("SELECT format, version FROM match_snapshots WHERE match_id = $1")
            .bind(&id)
            .fetch_one(app.sql())
            .await
            .unwrap();
    assert_eq!(format, (3, version));

    // A process just started on the same PostgreSQL (SQLite files have one process each) reads
    // the long match from the snapshot too.
    if app.database.postgres_name().is_some() {
        let (_, address) = start(app.settings.clone()).await;
        for (person, seen) in people.iter().zip(&after_move) {
            assert_eq!(&view_at(&app, &address, person, &id).await, seen);
        }
    }
}
