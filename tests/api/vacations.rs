//! Vacations for correspondence clocks (issue 21): days held and earned, a vacation that stops
//! the clocks of its seats (deadlines moved, the view and the other players told, the log
//! recording start and end), an early return that gives unspent days back, a match that
//! starts while its player is away, refusals, and the round that records a vacation in each
//! log doing so once however many processes run it.

use serde_json::{Value, json};

use kings_corner::matches::export::{MatchExport, verify};
use kings_corner::store::vacations::{week_of, week_start};
use kings_corner::time_source::{Clock, parse_rfc3339, rfc3339};

use crate::helpers::{
    Player, TestApp, assert_problem, keep_as_fixture, play_first_action, players, seated_match,
    spawn_app, start_process, view_of_turn,
};
use crate::notifications::notifications_after;

const DAY: i64 = 86_400;

async fn vacation(app: &TestApp, player: &Player) -> Value {
    app.json_as(player, "/v1/me/vacation").await
}

async fn go_away(app: &TestApp, player: &Player, until: i64) -> reqwest::Response {
    app.post_as(player, "/v1/me/vacation", &json!({"until": rfc3339(until)}))
        .await
}

async fn come_back(app: &TestApp, player: &Player) -> Value {
    let back = app
        .client
        .delete(format!("{}/v1/me/vacation", app.address))
        .bearer_auth(&player.token)
        .send()
        .await
        .unwrap();
    assert_eq!(back.status(), 200, "{}", back.text().await.unwrap());
    back.json().await.unwrap()
}

/// Waits until one of `player`'s notifications is of type `kind` about match `id` (the relay
/// numbers them a moment after the write); that notification.
async fn told(app: &TestApp, player: &Player, kind: &str, id: &str) -> Value {
    for _ in 0..100 {
        let found = notifications_after(app, player, 0)
            .await
            .into_iter()
            .find(|notice| notice["type"] == kind && notice["data"]["match_id"] == id);
        if let Some(notice) = found {
            return notice;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{kind} about {id} was never told");
}

async fn view(app: &TestApp, player: &Player, id: &str) -> Value {
    app.json_as(player, &format!("/v1/matches/{id}/view")).await
}

fn deadline(view: &Value) -> i64 {
    parse_rfc3339(view["clock"]["deadline"].as_str().unwrap()).unwrap()
}

/// The entries of the match's log of these types, as `player` reads them.
async fn logged(app: &TestApp, player: &Player, id: &str, types: &[&str]) -> Vec<Value> {
    app.json_as(player, &format!("/v1/matches/{id}/events?after=0"))
        .await["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|logged| logged["event"].clone())
        .filter(|event| types.contains(&event["type"].as_str().unwrap()))
        .collect()
}

/// Plays the seat to move of a two-player match (`players` in seat order) until the turn
/// passes to the other seat (ending its turn where it may, drawing where it must).
async fn pass_turn(app: &TestApp, players: &[&Player], id: &str) {
    let people: Vec<Player> = players
        .iter()
        .map(|player| Player {
            token: player.token.clone(),
        })
        .collect();
    let (turn, _) = view_of_turn(app, &people, id).await;
    for _ in 0..60 {
        let (now, seen) = view_of_turn(app, &people, id).await;
        if now != turn {
            return;
        }
        play_first_action(app, &people[turn], id, &seen).await;
    }
    panic!("the turn did not pass");
}

/// Passes turns until `player` (seated at the two-player match, `players` in seat order) is
/// to move.
async fn turn_to(app: &TestApp, players: &[&Player], id: &str, player: &Player) {
    for _ in 0..3 {
        if view(app, player, id).await["turn"] == view(app, player, id).await["your_seat"] {
            return;
        }
        pass_turn(app, players, id).await;
    }
    panic!("the turn never came to the player");
}

#[tokio::test]
async fn a_vacation_stops_the_clocks_of_its_seats_and_the_logs_record_it() {
    let app = spawn_app().await;
    app.clock.freeze();
    let people = players(&app, 3).await;
    let (away, other, third) = (&people[0], &people[1], &people[2]);
    assert_eq!(
        vacation(&app, away).await,
        json!({"days": 10, "most_days": 30, "first_days": 10, "vacation": null})
    );
    let correspondence = json!({"seats": 2, "clock": "correspondence_1d"});
    let stopped = seated_match(&app, &[away, other], correspondence).await;
    let without = json!({"seats": 2, "clock": "correspondence_1d", "vacations": false});
    let refused = seated_match(&app, &[away, third], without).await;
    let fast = json!({"seats": 2, "clock": "fast_5m"});
    let fast = seated_match(&app, &[away, third], fast).await;
    turn_to(&app, &[away, other], &stopped, away).await;
    turn_to(&app, &[away, third], &refused, away).await;

    // Ending a turn of a correspondence match this week may have earned a day already.
    let held = vacation(&app, away).await["days"].as_i64().unwrap();
    assert!((10..=11).contains(&held));
    let seen = view(&app, other, &stopped).await;
    assert_eq!(seen["clock"]["vacations"], true);
    assert_eq!(seen["clock"]["away"], json!([]));
    let seat = seen["turn"].clone();
    let before = deadline(&seen);
    let refused_before = deadline(&view(&app, third, &refused).await);
    assert_eq!(
        view(&app, third, &refused).await["clock"]["vacations"],
        false
    );
    assert_eq!(view(&app, third, &fast).await["clock"]["vacations"], false);
    let seek = app
        .post_as(
            away,
            "/v1/seeks",
            &json!({"preset": "standard", "seats": 4}),
        )
        .await;
    let seek: Value = seek.json().await.unwrap();

    // Away for three days and an hour: four days begun.
    let now = app.clock.now();
    let until = now + 3 * DAY + 3_600;
    let gone = go_away(&app, away, until).await;
    assert_eq!(gone.status(), 200, "{}", gone.text().await.unwrap());
    let gone: Value = gone.json().await.unwrap();
    assert_eq!(gone["days"], held - 4);
    assert_eq!(gone["vacation"]["from"], rfc3339(now));
    assert_eq!(gone["vacation"]["until"], rfc3339(until));
    let seen = view(&app, other, &stopped).await;
    assert_eq!(
        seen["clock"]["away"],
        json!([{"seat": seat, "until": rfc3339(until)}])
    );
    assert_eq!(
        deadline(&seen),
        before + (until - now),
        "the deadline moved"
    );
    assert_eq!(
        logged(&app, other, &stopped, &["vacation_started"]).await,
        vec![json!({"type": "vacation_started", "seat": seat, "until": rfc3339(until)})]
    );
    // Tables that do not stop for vacations do not.
    let seen = view(&app, third, &refused).await;
    assert_eq!(seen["clock"]["away"], json!([]));
    assert_eq!(deadline(&seen), refused_before);
    assert!(
        logged(&app, third, &fast, &["vacation_started"])
            .await
            .is_empty()
    );
    let notice = told(&app, other, "vacation_started", &stopped).await;
    assert_eq!(notice["data"]["until"], rfc3339(until));
    assert_eq!(notice["data"]["seat"], seat);
    let seek = app
        .get_as(away, &format!("/v1/seeks/{}", seek["id"].as_str().unwrap()))
        .await;
    // Withdrawn: nobody away is seated at a new table.
    assert_problem(seek, 404, "seek_not_found").await;
    let again = go_away(&app, away, until + DAY).await;
    assert_problem(again, 409, "already_on_vacation").await;

    // Back after a day: two whole days were not begun and come back.
    app.clock.advance(DAY);
    let back = come_back(&app, away).await;
    assert_eq!(back["days"], held - 2);
    assert_eq!(back["vacation"], Value::Null);
    let seen = view(&app, other, &stopped).await;
    assert_eq!(seen["clock"]["away"], json!([]));
    assert_eq!(deadline(&seen), before + DAY, "a day away, a day later");
    assert_eq!(
        logged(&app, other, &stopped, &["vacation_ended"]).await,
        vec![json!({"type": "vacation_ended", "seat": seat})]
    );
    let notice = told(&app, other, "vacation_ended", &stopped).await;
    assert_eq!(notice["data"]["until"], Value::Null);
    let own = notifications_after(&app, away, 0).await;
    assert!(
        own.iter()
            .all(|notice| !notice["type"].as_str().unwrap().starts_with("vacation")),
        "the one away is not told of their own vacation: {own:?}"
    );
    assert_eq!(
        come_back(&app, away).await["days"],
        held - 2,
        "nothing to end"
    );

    // Refusals, each changing nothing.
    let now = app.clock.now();
    for until in [now, now - 10, now + 30 * DAY + 1] {
        let refused = go_away(&app, away, until).await;
        let problem = assert_problem(refused, 422, "invalid_vacation").await;
        assert_eq!(problem["field"], "until");
    }
    let unreadable = app
        .post_as(away, "/v1/me/vacation", &json!({"until": "tomorrow"}))
        .await;
    assert_problem(unreadable, 422, "invalid_vacation").await;
    let too_long = go_away(&app, away, now + (held - 2) * DAY + 1).await;
    let problem = assert_problem(too_long, 409, "not_enough_vacation_days").await;
    let takes = format!("takes {} days", held - 1);
    assert!(
        problem["detail"].as_str().unwrap().contains(&takes),
        "{problem}"
    );
    let no_vacations = app
        .post_as(
            other,
            "/v1/matches",
            &json!({"seats": 2, "clock": "fast_5m", "vacations": true}),
        )
        .await;
    assert_problem(no_vacations, 422, "invalid_clock").await;
    assert_eq!(vacation(&app, away).await["days"], held - 2);

    // Once its moved deadline has passed, the seat is claimed; the export verifies every
    // deadline from the log's times, the vacation counted in.
    app.clock.advance(before + DAY - 1 - app.clock.now());
    let early = app
        .post_as(other, &format!("/v1/matches/{stopped}/claim"), &json!({}))
        .await;
    assert_problem(early, 409, "not_claimable").await;
    app.clock.advance(1);
    let claimed = app
        .post_as(other, &format!("/v1/matches/{stopped}/claim"), &json!({}))
        .await;
    assert_eq!(claimed.status(), 200, "{}", claimed.text().await.unwrap());
    let export = app
        .json_as(other, &format!("/v1/matches/{stopped}/export"))
        .await;
    assert_eq!(export["clock"]["vacations"], true);
    keep_as_fixture("vacation", &export);
    let export: MatchExport = serde_json::from_value(export).unwrap();
    verify(&export).expect("the export verifies");
}

#[tokio::test]
async fn a_match_that_starts_while_its_player_is_away_waits_for_them() {
    let app = spawn_app().await;
    app.clock.freeze();
    let people = players(&app, 2).await;
    let (away, other) = (&people[0], &people[1]);
    let until = app.clock.now() + 5 * DAY;
    let gone = go_away(&app, away, until).await;
    assert_eq!(gone.status(), 200);
    // The one away sits down at a table another opened; it starts with them away.
    let id = seated_match(
        &app,
        &[other, away],
        json!({"seats": 2, "clock": "correspondence_3d"}),
    )
    .await;
    app.matches.note_vacations().await.unwrap();
    let seat = view(&app, away, &id).await["your_seat"].clone();
    assert_eq!(
        logged(&app, other, &id, &["vacation_started"]).await,
        vec![json!({"type": "vacation_started", "seat": seat, "until": rfc3339(until)})]
    );
    turn_to(&app, &[other, away], &id, away).await;
    let seen = view(&app, other, &id).await;
    assert_eq!(
        deadline(&seen),
        until + 6 * DAY,
        "its turn begins at its return"
    );
    assert_eq!(
        seen["clock"]["away"],
        json!([{"seat": seat, "until": rfc3339(until)}])
    );
    // A vacation that runs to its end needs no note: the clock runs again by itself.
    app.clock.advance(5 * DAY);
    let seen = view(&app, other, &id).await;
    assert_eq!(seen["clock"]["away"], json!([]));
    assert_eq!(
        seen["clock"]["banks"][seat.as_u64().unwrap() as usize],
        3 * DAY
    );
    assert!(
        logged(&app, other, &id, &["vacation_ended"])
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn each_week_played_at_a_correspondence_clock_earns_a_day_up_to_thirty() {
    let app = spawn_app().await;
    app.clock.freeze();
    // Begin an hour into a week, so that no week ends while a step is played.
    let now = app.clock.now();
    app.clock
        .advance(week_start(week_of(now) + 1) + 3_600 - now);
    let people = players(&app, 2).await;
    let both = [&people[0], &people[1]];
    let id = seated_match(
        &app,
        &both,
        json!({"seats": 2, "clock": "correspondence_7d"}),
    )
    .await;
    let minutes = seated_match(&app, &both, json!({"seats": 2, "clock": "fast_5m"})).await;
    // A week in which each ends a turn, then one more, then two without play.
    for _ in 0..2 {
        pass_turn(&app, &both, &id).await;
        pass_turn(&app, &both, &id).await;
        app.clock.advance(7 * DAY);
    }
    app.clock.advance(7 * DAY);
    // Turns at a clock of minutes earn nothing.
    pass_turn(&app, &both, &minutes).await;
    pass_turn(&app, &both, &minutes).await;
    for person in &people {
        assert_eq!(vacation(&app, person).await["days"], 12);
    }
    // Counted once: spending and reading again do not count the same weeks twice.
    let gone = go_away(&app, &people[0], app.clock.now() + 2 * DAY).await;
    assert_eq!(gone.json::<Value>().await.unwrap()["days"], 10);
    app.clock.advance(3_600);
    assert_eq!(
        come_back(&app, &people[0]).await["days"],
        11,
        "one day not begun"
    );

    // At most 30.
    sqlx::query("UPDATE accounts SET vacation_days = 29 WHERE username = 'player1'")
        .execute(app.sql())
        .await
        .unwrap();
    for _ in 0..2 {
        app.clock.advance(7 * DAY);
        pass_turn(&app, &both, &id).await;
        pass_turn(&app, &both, &id).await;
        assert_eq!(vacation(&app, &people[1]).await["days"], 30);
    }
}

/// Runs rounds in the test's process until no match is marked for a vacation or claimed by a
/// round. Each process also runs rounds of its own every 2 s: a match one of them has claimed
/// is skipped by every other round until it lets go, so a single round of ours may return
/// before another process's round has written that match's notes.
async fn rounds_settled(app: &TestApp) {
    for _ in 0..400 {
        app.matches.note_vacations().await.unwrap();
        let unsettled: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM matches \
             WHERE vacation_due IS NOT NULL OR vacation_lease IS NOT NULL",
        )
        .fetch_one(app.sql())
        .await
        .unwrap();
        if unsettled == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("vacation rounds still hold marked or claimed matches after 10 s");
}

/// A vacation whose record in the logs was lost (here: written to the account alone) is
/// recorded by the round, once per match however many rounds run at once, in one process or
/// (on PostgreSQL) two, and however often a match is looked at.
#[tokio::test]
async fn the_round_records_each_vacation_once_however_many_run() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let both = [&people[0], &people[1]];
    let mut ids = Vec::new();
    for _ in 0..6 {
        let body = json!({"seats": 2, "clock": "correspondence_1d"});
        ids.push(seated_match(&app, &both, body).await);
    }
    let until = app.clock.now() + 2 * DAY;
    sqlx::query("UPDATE accounts SET away_from = $1, away_until = $2 WHERE username = 'player0'")
        .bind(app.clock.now())
        .bind(until)
        .execute(app.sql())
        .await
        .unwrap();
    sqlx::query("UPDATE matches SET vacation_due = 1")
        .execute(app.sql())
        .await
        .unwrap();
    let second = if app.database.postgres_name().is_some() {
        let (_, _, matches) = start_process(app.settings.clone(), app.clock.clone()).await;
        matches
    } else {
        app.matches.clone()
    };
    let (first, other) = tokio::join!(app.matches.note_vacations(), second.note_vacations());
    first.unwrap();
    other.unwrap();
    // Whatever the two rounds left is done by the next. Marked again (as if a process had died
    // between writing the notes and clearing its marks), the logs are looked at again and
    // found up to date.
    rounds_settled(&app).await;
    sqlx::query("UPDATE matches SET vacation_due = 7")
        .execute(app.sql())
        .await
        .unwrap();
    rounds_settled(&app).await;
    for id in &ids {
        let notes = logged(&app, &people[1], id, &["vacation_started"]).await;
        assert_eq!(notes.len(), 1, "{id}: {notes:?}");
        assert_eq!(notes[0]["until"], rfc3339(until));
    }
}
