//! Rated tables and ratings (issue 21): what may be rated, the ratings a rated match's end
//! writes with it, the player page, and `ratings rebuild` reproducing every rating from the
//! logs (docs/ratings.md).

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde_json::{Value, json};

use kings_corner::ratings::{Model, Rating, START};

use crate::helpers::{
    Player, TestApp, assert_problem, every_seat_takes_a_turn, kings_corner, players, seated_match,
    spawn_app,
};
use crate::notifications::wait_for_notifications;

/// A rated `standard` table of `seats` with a one-day turn (no bank) whose late seats are
/// claimed.
fn rated_table(seats: usize) -> Value {
    json!({"seats": seats, "rated": true, "clock": {"turn_seconds": DAY, "bank_seconds": 0}})
}

const DAY: i64 = 86_400;

/// A number in `low..=high`.
fn between(rng: &mut ChaCha8Rng, low: usize, high: usize) -> usize {
    low + (rng.next_u32() as usize) % (high - low + 1)
}

/// A rated match created by the first of `players` and joined by the others, in which every
/// seat has taken a turn of its own (so that however it ends, it is rated); its id.
async fn rated_match(app: &TestApp, players: &[&Player]) -> String {
    let id = seated_match(app, players, rated_table(players.len())).await;
    every_seat_takes_a_turn(app, players, &id).await;
    id
}

async fn view(app: &TestApp, player: &Player, id: &str) -> Value {
    app.json_as(player, &format!("/v1/matches/{id}/view")).await
}

/// `player` resigns from the match.
async fn resign(app: &TestApp, player: &Player, id: &str) {
    let seen = view(app, player, id).await;
    let resigned = app
        .post_as(
            player,
            &format!("/v1/matches/{id}/moves"),
            &json!({"expected_version": seen["version"], "action": {"type": "resign"}}),
        )
        .await;
    if resigned.status() != 200 {
        let feed = app
            .json_as(player, &format!("/v1/matches/{id}/events?after=0"))
            .await;
        panic!("{} {feed}", resigned.text().await.unwrap());
    }
}

/// Every rating the rebuild recomputes, compared: the service's report, and on PostgreSQL the
/// command's too (a SQLite file is held by its server alone).
async fn rebuild(app: &TestApp) -> String {
    let report = app.matches.rebuild_ratings().await.unwrap().to_string();
    if app.database.postgres_name().is_some() {
        let mut args = vec!["--database-url".into(), app.settings.database.url.clone()];
        // The server's own database settings, as an operator would pass them.
        if app.settings.database.behind_transaction_pooler() {
            args.extend(["--database-pooler".into(), "transaction".into()]);
        }
        if let Some(listen) = &app.settings.database.listen_url {
            args.extend(["--database-listen-url".into(), listen.clone()]);
        }
        args.extend(["ratings".into(), "rebuild".into()]);
        let (ok, said) = kings_corner(args).await;
        assert_eq!(
            said.trim(),
            report,
            "the command says what the service found"
        );
        assert_eq!(ok, report.starts_with("ok"), "exit status of: {said}");
    }
    report
}

#[tokio::test]
async fn a_rated_table_refuses_what_a_rating_cannot_be_fair_under() {
    let app = spawn_app().await;
    let players = players(&app, 2).await;
    let create = async |body: Value| app.post_as(&players[0], "/v1/matches", &body).await;
    let refusals = [
        (json!({"seats": 2, "rated": true}), "rated_needs_clock"),
        (
            json!({"seats": 2, "rated": true, "clock": "fast_5m", "on_timeout": "bot"}),
            "rated_needs_claim_or_forfeit",
        ),
        (
            json!({"seats": 2, "rated": true, "clock": "fast_5m", "bots": [{"level": "basic"}]}),
            "rated_needs_people",
        ),
        (
            json!({"seats": 2, "rated": true, "clock": "fast_5m", "rules": {"preset": "standard", "must_play": true}}),
            "rated_needs_preset_rules",
        ),
        (
            json!({"seats": 2, "rated": true, "clock": "fast_5m", "hints": true}),
            "rated_without_hints",
        ),
    ];
    for (body, code) in refusals {
        let problem = assert_problem(create(body.clone()).await, 422, code).await;
        assert!(problem["detail"].as_str().unwrap().contains("rated table"));
    }
    // Nothing was created.
    let mine = app.json_as(&players[0], "/v1/matches?mine=true").await;
    assert_eq!(mine["matches"].as_array().unwrap().len(), 0, "{mine}");

    // A preset at any number of seats is rated in its pool, without hints.
    let created = create(
        json!({"seats": 2, "rated": true, "clock": "fast_5m", "on_timeout": "forfeit",
                                "rules": {"preset": "night-one"}}),
    )
    .await;
    assert_eq!(created.status(), 201);
    let summary: Value = created.json().await.unwrap();
    assert_eq!(summary["rating_pool"], "night-one");
    assert_eq!(summary["hints"], false);
    // No bot takes a seat later either.
    let id = summary["id"].as_str().unwrap();
    let bot = app
        .post_as(
            &players[0],
            &format!("/v1/matches/{id}/bots"),
            &json!({"level": "basic"}),
        )
        .await;
    assert_problem(bot, 422, "rated_needs_people").await;
    // An unrated table says so.
    let unrated: Value = create(json!({"seats": 2})).await.json().await.unwrap();
    assert_eq!(unrated["rating_pool"], Value::Null);
    assert_eq!(unrated["hints"], true);
}

/// Three players; two resign in turn, so the places are the last one in, then the later
/// leaver, then the first: their ratings are the model's, on every page and notification.
#[tokio::test]
async fn a_rated_match_rates_its_players_with_its_end() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let id = rated_match(&app, &[&players[0], &players[1], &players[2]]).await;
    // Newcomers to the pool show 1000, provisional, beside their names.
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    for seat in summary["seats"].as_array().unwrap() {
        assert_eq!(seat["rating"]["rating"], 1000, "{summary}");
        assert_eq!(seat["rating"]["provisional"], true);
    }
    resign(&app, &players[1], &id).await;
    resign(&app, &players[0], &id).await;

    let expected = Model::SERVER.rate(&[(START, 2), (START, 3), (START, 1)]);
    // The summary and the listings show the ratings now.
    let summary = app.json_as(&players[0], &format!("/v1/matches/{id}")).await;
    let mine = app.json_as(&players[0], "/v1/matches?mine=true").await;
    for shown in [&summary, &mine["matches"][0]] {
        for (seat, rating) in expected.iter().enumerate() {
            assert_eq!(
                shown["seats"][seat]["rating"]["mu"].as_f64().unwrap(),
                rating.mu
            );
            assert_eq!(shown["seats"][seat]["rating"]["rating"], rating.displayed());
        }
    }
    // An unrated table shows no ratings.
    let unrated = app
        .post_as(&players[0], "/v1/matches", &json!({"seats": 2}))
        .await;
    let unrated: Value = unrated.json().await.unwrap();
    assert!(unrated["seats"][0].get("rating").is_none(), "{unrated}");
    for (seat, player) in players.iter().enumerate() {
        let page = app
            .json_as(player, &format!("/v1/players/player{seat}"))
            .await;
        let ratings = page["ratings"].as_array().unwrap();
        assert_eq!(ratings.len(), 1, "{page}");
        let standard = &ratings[0];
        assert_eq!(standard["pool"], "standard");
        assert_eq!(standard["matches"], 1);
        assert_eq!(
            standard["mu"].as_f64().unwrap(),
            expected[seat].mu,
            "exactly"
        );
        assert_eq!(standard["sigma"].as_f64().unwrap(), expected[seat].sigma);
        assert_eq!(standard["rating"], expected[seat].displayed());
        assert_eq!(standard["provisional"], true);
        let history = standard["history"].as_array().unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0]["match_id"], id.as_str());
        assert_eq!(history[0]["place"], [2, 3, 1][seat]);
        assert_eq!(history[0]["before"]["rating"], 1000);
        assert_eq!(
            history[0]["change"],
            expected[seat].displayed() - START.displayed()
        );
    }
    let winner = &expected[2];
    assert!(winner.mu > START.mu && expected[1].mu < expected[0].mu);

    // The end tells each player their change.
    let told = wait_for_notifications(&app, &players[2], 2).await;
    let finished = told
        .iter()
        .find(|notice| notice["type"] == "match_finished")
        .expect("match_finished");
    let rating = &finished["data"]["rating"];
    assert_eq!(rating["pool"], "standard");
    assert_eq!(rating["place"], 1);
    assert_eq!(rating["after"]["mu"].as_f64().unwrap(), winner.mu);
    assert_eq!(rating["change"], winner.displayed() - 1000);

    // New players are provisional: the established board is empty, the provisional one has
    // them all, the winner first.
    let board = app.json_as(&players[0], "/v1/leaderboards/standard").await;
    assert_eq!(board["players"], json!([]), "{board}");
    let board = app
        .json_as(&players[0], "/v1/leaderboards/standard?provisional=true")
        .await;
    let names: Vec<&str> = board["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["player2", "player0", "player1"], "{board}");
    assert_eq!(board["players"][0]["place"], 1);
    assert_eq!(board["players"][0]["rating"], winner.displayed());
    let unknown = app.get_as(&players[0], "/v1/leaderboards/chess").await;
    assert_problem(unknown, 404, "pool_not_found").await;
    let forged = app
        .get_as(
            &players[0],
            "/v1/leaderboards/standard?cursor=bm90LWEtY3Vyc29y",
        )
        .await;
    assert_problem(forged, 422, "invalid_query").await;

    // `verify --rate` on the export prints the same change, to the last digit.
    let export = app
        .json_as(&players[0], &format!("/v1/matches/{id}/export"))
        .await;
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), export.to_string()).unwrap();
    let path = file.path().display().to_string();
    let (ok, said) = kings_corner(vec!["verify".into(), path.clone(), "--rate".into()]).await;
    assert!(ok, "{said}");
    let line = format!(
        "seat 2 (player2), place 1: 1000 -> {} ({:+}); mu 25 -> {}, sigma {} -> {}",
        winner.displayed(),
        winner.displayed() - 1000,
        winner.mu,
        START.sigma,
        winner.sigma
    );
    assert!(said.contains(&line), "{said}\nlacks {line}");
    // From ratings of their own: the model's answer for them.
    let prior = [
        (START, 2),
        (START, 3),
        (
            Rating {
                mu: 30.5,
                sigma: 4.25,
            },
            1,
        ),
    ];
    let (ok, said) = kings_corner(vec![
        "verify".into(),
        path.clone(),
        "--prior".into(),
        "2=30.5,4.25".into(),
    ])
    .await;
    assert!(ok, "{said}");
    let after = Model::SERVER.rate(&prior)[2];
    assert!(
        said.contains(&format!(
            "mu 30.5 -> {}, sigma 4.25 -> {}",
            after.mu, after.sigma
        )),
        "{said}"
    );
    let (ok, said) = kings_corner(vec![
        "verify".into(),
        path,
        "--prior".into(),
        "7=1,1".into(),
    ])
    .await;
    assert!(!ok && said.contains("--prior 7=1,1"), "{said}");

    let report = rebuild(&app).await;
    assert!(report.starts_with("ok: 1 rated matches"), "{report}");

    // A stored rating nobody's matches give is found.
    sqlx::query("UPDATE ratings SET mu = mu + 0.000001 WHERE pool = 'standard'")
        .execute(app.sql())
        .await
        .unwrap();
    let report = rebuild(&app).await;
    assert!(report.starts_with("DIFFERENT"), "{report}");
    assert!(report.contains("FAILED"), "{report}");
}

/// A few hundred rated matches of two to four of eight players, each ended by resignations
/// and claims of late seats in a random order, several ending at once with players in common:
/// the rebuild reproduces every rating and every change to the bit.
#[tokio::test]
async fn the_rebuild_reproduces_every_rating_after_many_random_rated_matches() {
    let app = spawn_app().await;
    let everyone = players(&app, 8).await;
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut played = 0;
    for _round in 0..25 {
        // Eight matches at once, then ended at once: the same player may end two together.
        let mut tables = Vec::new();
        for _ in 0..8 {
            let seats = between(&mut rng, 2, 4);
            let mut chosen: Vec<usize> = (0..everyone.len()).collect();
            for i in 0..seats {
                let j = between(&mut rng, i, chosen.len() - 1);
                chosen.swap(i, j);
            }
            chosen.truncate(seats);
            let at: Vec<&Player> = chosen.iter().map(|&index| &everyone[index]).collect();
            let id = rated_match(&app, &at).await;
            // The order seats leave in: a claim ends the seat to move's turn, a resignation
            // anyone's.
            let leaving: Vec<bool> = (0..seats - 1).map(|_| rng.next_u32() % 3 == 0).collect();
            tables.push((id, chosen, leaving));
        }
        let ends = tables.iter().map(|(id, chosen, leaving)| {
            let app = &app;
            let everyone = &everyone;
            async move {
                let mut still_in = chosen.clone();
                for (step, claim) in leaving.iter().enumerate() {
                    let seen = view(app, &everyone[still_in[0]], id).await;
                    let turn = seen["turn"].as_u64().unwrap() as usize;
                    if *claim && step == 0 {
                        // Late seats are claimed by another once the turn's day is over.
                        let claimer = still_in.iter().position(|seat| *seat != chosen[turn]);
                        let claimer = &everyone[still_in[claimer.unwrap()]];
                        let claimed = app
                            .post_as(claimer, &format!("/v1/matches/{id}/claim"), &json!({}))
                            .await;
                        assert_eq!(claimed.status(), 200, "{}", claimed.text().await.unwrap());
                        still_in.retain(|seat| *seat != chosen[turn]);
                    } else {
                        let leaver = still_in.remove(step % still_in.len());
                        resign(app, &everyone[leaver], id).await;
                    }
                }
            }
        });
        app.clock.advance(DAY + 1);
        futures_util::future::join_all(ends).await;
        played += tables.len();
    }
    assert_eq!(played, 200);

    // The leaderboard, three at a time, is every player by μ − 3σ, best first, as their own
    // pages say; established and provisional players apart.
    let mut expected = Vec::new();
    for index in 0..everyone.len() {
        let page = app
            .json_as(&everyone[0], &format!("/v1/players/player{index}"))
            .await;
        let standard = &page["ratings"][0];
        let ordinal = standard["mu"].as_f64().unwrap() - 3.0 * standard["sigma"].as_f64().unwrap();
        let provisional = standard["provisional"].as_bool().unwrap();
        expected.push((ordinal, format!("player{index}"), provisional));
    }
    expected.sort_by(|one, other| other.0.total_cmp(&one.0));
    for provisional in [false, true] {
        let mut listed = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut path = format!("/v1/leaderboards/standard?limit=3&provisional={provisional}");
            if let Some(cursor) = &cursor {
                path.push_str(&format!("&cursor={cursor}"));
            }
            let page = app.json_as(&everyone[0], &path).await;
            for entry in page["players"].as_array().unwrap() {
                assert_eq!(entry["place"], listed.len() + 1, "{page}");
                listed.push(entry["username"].as_str().unwrap().to_owned());
            }
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        let wanted: Vec<String> = expected
            .iter()
            .filter(|(_, _, on_trial)| *on_trial == provisional)
            .map(|(_, name, _)| name.clone())
            .collect();
        assert_eq!(listed, wanted, "provisional={provisional}");
    }

    let report = rebuild(&app).await;
    assert!(
        report.starts_with("ok: 200 rated matches replayed"),
        "{report}"
    );
}
