//! Rematches (issue 11): offered by a player once a match has ended; the same table with every
//! player one seat on and the deal moved on; seats kept for those players, who accept by
//! joining; the ended match points to it; a second offer answers the first.

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, full_match, player, players, private_match, spawn_app,
};
use crate::matches::export_and_verify;

async fn first_dealer(app: &TestApp, player: &Player, id: &str) -> u64 {
    let feed = app
        .json_as(player, &format!("/v1/matches/{id}/events"))
        .await;
    assert_eq!(feed["events"][0]["event"]["type"], "hand_dealt");
    feed["events"][0]["event"]["dealer"].as_u64().unwrap()
}

async fn resign(app: &TestApp, player: &Player, id: &str) {
    let left = app
        .post_as(player, &format!("/v1/matches/{id}/leave"), &json!({}))
        .await;
    assert_eq!(left.status(), 204, "{}", left.text().await.unwrap());
}

fn usernames(summary: &Value) -> Vec<(u64, String)> {
    summary["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            (
                seat["seat"].as_u64().unwrap(),
                seat["username"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_rematch_moves_every_player_one_seat_on_and_the_deal_with_them() {
    let app = spawn_app().await;
    let people = players(&app, 3).await;
    let id = full_match(
        &app,
        &people,
        json!({"preset": "standard", "must_play": true}),
    )
    .await;
    let dealer = first_dealer(&app, &people[0], &id).await;
    let early = app
        .post_as(&people[2], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_problem(early, 409, "match_not_over").await;
    resign(&app, &people[0], &id).await;
    resign(&app, &people[1], &id).await;

    let offered = app
        .post_as(&people[2], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_eq!(offered.status(), 201, "{}", offered.text().await.unwrap());
    let location = offered.headers()["location"].to_str().unwrap().to_owned();
    let rematch: Value = offered.json().await.unwrap();
    let next = rematch["id"].as_str().unwrap().to_owned();
    assert_eq!(location, format!("/v1/matches/{next}"));
    assert_eq!(rematch["rematch_of"], id.as_str());
    assert_eq!(rematch["status"], "open");
    assert_eq!(rematch["rules"]["must_play"], true);
    assert_eq!(usernames(&rematch), vec![(0, "player2".to_owned())]);
    let ended = app.json_as(&people[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(ended["next_match_id"], next.as_str());
    let again = app
        .post_as(&people[0], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap()["id"], next.as_str());

    // The others are told where they will sit; nobody else may take a seat, or find it.
    // Notifications are numbered into the stream by the relay, a moment after the offer.
    let mut offer = None;
    for _ in 0..100 {
        let told = app.json_as(&people[0], "/v1/me/events").await;
        offer = told["notifications"]
            .as_array()
            .unwrap()
            .iter()
            .find(|notification| notification["type"] == "rematch_offered")
            .cloned();
        if offer.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let offer = offer.expect("a rematch_offered notification within 5 s");
    assert_eq!(offer["data"]["match_id"], next.as_str());
    assert_eq!(offer["data"]["previous_match_id"], id.as_str());
    assert_eq!(offer["data"]["offered_by"], "player2");
    assert_eq!(offer["data"]["seat"], 2);
    let outsider = player(&app, "outsider").await;
    let lobby = app.json_as(&outsider, "/v1/matches").await;
    assert!(lobby["matches"].as_array().unwrap().is_empty(), "{lobby}");
    let stranger = app
        .post_as(&outsider, &format!("/v1/matches/{next}/join"), &json!({}))
        .await;
    assert_problem(stranger, 403, "not_in_rematch").await;

    for player in &people[..2] {
        let joined = app
            .post_as(player, &format!("/v1/matches/{next}/join"), &json!({}))
            .await;
        assert_eq!(joined.status(), 200, "{}", joined.text().await.unwrap());
    }
    let started = app
        .json_as(&people[0], &format!("/v1/matches/{next}"))
        .await;
    assert_eq!(started["status"], "playing");
    assert_eq!(
        usernames(&started),
        vec![
            (0, "player1".to_owned()),
            (1, "player2".to_owned()),
            (2, "player0".to_owned()),
        ]
    );
    assert_eq!(first_dealer(&app, &people[0], &next).await, dealer);

    // Played out, it verifies with its dealer in the export.
    resign(&app, &people[0], &next).await;
    resign(&app, &people[1], &next).await;
    let export = app
        .json_as(&people[2], &format!("/v1/matches/{next}/export"))
        .await;
    assert_eq!(export["first_dealer"], dealer);
    export_and_verify(&app, &people[2], &next).await;
}

#[tokio::test]
async fn a_rematch_against_bots_starts_at_once() {
    let app = spawn_app().await;
    let people = players(&app, 1).await;
    let created = app
        .post_as(
            &people[0],
            "/v1/matches",
            &json!({"seats": 2, "bots": [{"level": "basic"}]}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let dealer = first_dealer(&app, &people[0], &id).await;
    resign(&app, &people[0], &id).await;
    let offered = app
        .post_as(&people[0], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_eq!(offered.status(), 201, "{}", offered.text().await.unwrap());
    let rematch: Value = offered.json().await.unwrap();
    let next = rematch["id"].as_str().unwrap();
    assert_eq!(rematch["status"], "playing");
    assert_eq!(rematch["seats"][0]["bot"], "basic");
    assert_eq!(rematch["seats"][1]["username"], "player0");
    assert_eq!(first_dealer(&app, &people[0], next).await, dealer);
}

/// The players a private rematch keeps seats for see it before they join; a rematch everyone
/// left before it started is gone, and offering again makes a new one.
#[tokio::test]
async fn a_private_rematch_is_seen_by_its_players_and_can_be_offered_again() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let created = private_match(&app, &people).await;
    let id = created["id"].as_str().unwrap().to_owned();
    resign(&app, &people[1], &id).await;

    let offered = app
        .post_as(&people[0], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_eq!(offered.status(), 201);
    let first = offered.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let seen = app
        .json_as(&people[1], &format!("/v1/matches/{first}"))
        .await;
    assert_eq!(seen["visibility"], "private");
    assert_eq!(seen["rematch_of"], id.as_str());
    let anonymous = app.get(&format!("/v1/matches/{first}"), None).await;
    assert_problem(anonymous, 404, "not_found").await;

    resign(&app, &people[0], &first).await;
    assert_problem(
        app.get_as(&people[0], &format!("/v1/matches/{first}"))
            .await,
        404,
        "not_found",
    )
    .await;
    let again = app
        .post_as(&people[1], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_eq!(again.status(), 201, "{}", again.text().await.unwrap());
    let second = again.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(second, first);
    let ended = app.json_as(&people[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(ended["next_match_id"], second.as_str());
}

/// A match one of whose players has deleted their account offers no rematch: it could never
/// fill.
#[tokio::test]
async fn no_rematch_once_a_player_has_deleted_their_account() {
    let app = spawn_app().await;
    let people = players(&app, 2).await;
    let id = full_match(&app, &people, json!({"preset": "standard"})).await;
    resign(&app, &people[1], &id).await;
    let deleted = app
        .client
        .delete(format!("{}/v1/me", app.address))
        .bearer_auth(&people[1].token)
        .json(&json!({"password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let offered = app
        .post_as(&people[0], &format!("/v1/matches/{id}/rematch"), &json!({}))
        .await;
    assert_problem(offered, 409, "player_gone").await;
    let ended = app.json_as(&people[0], &format!("/v1/matches/{id}")).await;
    assert_eq!(ended["next_match_id"], Value::Null);
}
