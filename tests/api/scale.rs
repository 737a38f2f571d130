//! What must not grow with the number of matches ever played (issue 19): a move's commit on
//! PostgreSQL finds the matches it updates through their key. Joined to the batch alone, which
//! PostgreSQL takes for 100 rows whatever it holds, the planner scanned the whole table in
//! every commit up to a few thousand matches (found while looking into the bench's
//! 10,000-match phase, whose plans already used the key: it does not explain that phase).
//! SQLite updates one row by its key per move, so only PostgreSQL is asked.

use kings_corner::store::append::POSTGRES_BATCH_STATEMENT;
use serde_json::json;

use crate::helpers::{spawn_app, standard_match};

#[tokio::test]
async fn a_commit_finds_its_matches_by_key_however_many_there_are() {
    let app = spawn_app().await;
    if app.database.postgres_name().is_none() {
        return;
    }
    let (_, id) = standard_match(&app).await;
    // A thousand more matches, copies of this one under other ids, and fresh statistics.
    sqlx::query(
        "INSERT INTO matches SELECT (jsonb_populate_record(m, \
         jsonb_build_object('id', md5(i::text)))).* \
         FROM matches m, generate_series(1, 1000) i WHERE m.id = $1",
    )
    .bind(&id)
    .execute(app.sql())
    .await
    .unwrap();
    sqlx::query("ANALYZE matches")
        .execute(app.sql())
        .await
        .unwrap();

    let moves = json!([{"id": id, "expected": 1, "version": 2, "status": "playing",
                        "turn_seat": 0, "turn_changed": true, "bot_turn": false, "now": 1}]);
    let lines: Vec<(String,)> = sqlx::query_as(&format!("EXPLAIN {POSTGRES_BATCH_STATEMENT}"))
        .bind(moves.to_string())
        .bind("[]")
        .bind("[]")
        .fetch_all(app.sql())
        .await
        .unwrap();
    let plan: Vec<&str> = lines.iter().map(|(line,)| line.as_str()).collect();
    let plan = plan.join("\n");
    // Text plans name each read as "<node> on <relation>" (or "… using <index> on …").
    let reads: Vec<&str> = plan
        .lines()
        .filter(|line| line.contains(" on matches "))
        .collect();
    assert!(!reads.is_empty(), "the plan reads matches:\n{plan}");
    assert!(
        reads
            .iter()
            .all(|line| !line.contains("Seq Scan on matches")),
        "a commit scans every match:\n{plan}"
    );
}

/// The batch statement writes a notification only with its account's counter: one for an
/// account without a row fails the whole statement (PostgreSQL dropped the foreign key that
/// checked it row by row, migration 0023), and nothing of the batch is written. The same
/// batch told to an account that exists is written and returns that account's counter.
#[tokio::test]
async fn a_batch_telling_an_account_without_a_row_writes_nothing() {
    let app = spawn_app().await;
    if app.database.postgres_name().is_none() {
        return;
    }
    let (_, id) = standard_match(&app).await;
    let version = app.db.match_by_id(&id).await.unwrap().unwrap().version;
    let account: String = sqlx::query_scalar(
        "SELECT account_id FROM match_seats WHERE match_id = $1 ORDER BY seat LIMIT 1",
    )
    .bind(&id)
    .fetch_one(app.sql())
    .await
    .unwrap();
    let batch = |told: &str| {
        let moves = json!([{"id": id, "expected": version, "version": version, "status": "playing",
                            "turn_seat": 0, "turn_changed": false, "bot_turn": false, "now": 1}]);
        let notifications = json!([{"match_id": id, "ord": 0, "message_id": format!("msg_{told}"),
                                    "account_id": told, "kind": "your_turn", "data": "{}"}]);
        (moves.to_string(), notifications.to_string())
    };
    let notifications_of = async |account: &str| -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM notifications WHERE account_id = $1")
            .bind(account)
            .fetch_one(app.sql())
            .await
            .unwrap()
    };

    let (moves, notifications) = batch("nobody");
    let refused = sqlx::query(POSTGRES_BATCH_STATEMENT)
        .bind(moves)
        .bind("[]")
        .bind(notifications)
        .execute(app.sql())
        .await;
    assert!(
        refused.is_err(),
        "a notification for no account was written"
    );
    assert_eq!(notifications_of("nobody").await, 0);
    let told_before = notifications_of(&account).await;

    let (moves, notifications) = batch(&account);
    let written: Vec<(String, String, Option<i64>)> = sqlx::query_as(POSTGRES_BATCH_STATEMENT)
        .bind(moves)
        .bind("[]")
        .bind(notifications)
        .fetch_all(app.sql())
        .await
        .unwrap();
    assert_eq!(notifications_of(&account).await, told_before + 1);
    assert!(
        written.contains(&("match".to_owned(), id.clone(), None)),
        "{written:?}"
    );
    assert!(
        written.contains(&("account".to_owned(), account.clone(), Some(told_before + 1))),
        "{written:?}"
    );
}
