//! `GET /v1/rules`.

use serde_json::{Value, json};

use crate::helpers::{header, spawn_app};

#[tokio::test]
async fn the_rules_endpoint_lists_every_option_and_preset() {
    let app = spawn_app().await;
    let response = app.get("/v1/rules", None).await;
    assert_eq!(response.status(), 200);
    let catalog: Value = response.json().await.unwrap();
    let options = catalog["options"].as_array().unwrap();
    // One entry for each option a new match's `rules` take (all but `preset`), in the book's order.
    let api: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let request = api["components"]["schemas"]["RulesRequest"]["properties"]
        .as_object()
        .unwrap();
    assert_eq!(options.len(), request.len() - 1);
    assert!(
        options
            .iter()
            .all(|option| request.contains_key(option["name"].as_str().unwrap()))
    );
    let option = |name: &str| {
        options
            .iter()
            .find(|option| option["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(option("draw")["default"], "end");
    assert_eq!(
        option("game_end")["default"],
        serde_json::json!({"target": 50})
    );
    assert!(
        option("empty_side")["description"]
            .as_str()
            .unwrap()
            .contains("stock")
    );
    let presets = catalog["presets"].as_array().unwrap();
    let names: Vec<&str> = presets
        .iter()
        .map(|preset| preset["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["standard", "draw-first", "foundations", "night-one"]
    );
    let night_one = &presets[3]["rules"];
    assert_eq!(night_one["hand_size_5_plus"], 5);
    assert_eq!(night_one["empty_side"], "from_stock");
    assert_eq!(presets[2]["rules"]["scoring"], "pip");
    assert!(
        catalog["rule_error_codes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|code| code == "not_your_turn")
    );
    let readings = catalog["readings"].as_array().unwrap();
    // The latest readings, cited by docs/rules.md's own sections.
    for section in ["§6.16", "§6.17", "§6.18", "§6.19", "§4"] {
        assert!(
            readings
                .iter()
                .any(|text| text.as_str().unwrap().starts_with(&format!("{section} "))),
            "{section} is cited: {readings:?}"
        );
    }
    assert!(
        readings
            .iter()
            .all(|text| !text.as_str().unwrap().contains("RULES.md")),
        "only the repository's own rule book is cited"
    );
}

/// The rule book is served as it is in the repository, and names every option and preset the
/// catalog lists (a new option fails this until docs/rules.md explains it).
#[tokio::test]
async fn the_rule_book_is_served_and_covers_every_option_and_preset() {
    let app = spawn_app().await;
    let book = app.get("/v1/rules/book", None).await;
    assert_eq!(book.status(), 200);
    assert!(
        book.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/markdown")
    );
    let book = book.text().await.unwrap();
    assert_eq!(book, include_str!("../../docs/rules.md"));
    let catalog: Value = app.get("/v1/rules", None).await.json().await.unwrap();
    for option in catalog["options"].as_array().unwrap() {
        let name = option["name"].as_str().unwrap();
        assert!(
            book.contains(&format!("| `{name}` |")),
            "the book lacks the option {name}"
        );
    }
    for preset in catalog["presets"].as_array().unwrap() {
        let name = preset["name"].as_str().unwrap();
        assert!(
            book.contains(&format!("`{name}`")),
            "the book lacks the preset {name}"
        );
    }
}

/// Asked for HTML, the rule book comes as a fragment a client shows as it is: every section's
/// heading carries the id the book's own links name, nothing but the book's words, and an
/// `Accept` that does not rank HTML first (none, `*/*`, HTML refused with `q=0`) keeps Markdown.
#[tokio::test]
async fn the_rule_book_is_served_as_html_to_a_client_that_asks() {
    let app = spawn_app().await;
    let book = |accept: &'static str| {
        app.client
            .get(format!("{}/v1/rules/book", app.address))
            .header("accept", accept)
            .send()
    };
    let html = book("text/html").await.unwrap();
    assert_eq!(html.status(), 200);
    assert_eq!(header(&html, "vary"), Some("Accept"));
    assert_eq!(
        header(&html, "content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = html.text().await.unwrap();
    let markdown = include_str!("../../docs/rules.md");
    for link in markdown.split("](#").skip(1) {
        let id = &link[..link.find(')').unwrap()];
        assert!(html.contains(&format!(" id=\"{id}\"")), "no heading {id}");
    }
    assert!(html.contains("<table>") && html.contains("<td><code>draw_count</code></td>"));
    assert!(!html.contains("<script") && !html.contains("style="));
    for accept in [
        "*/*",
        "text/markdown, text/html;q=0.9",
        "text/html;q=0",
        "text/html;q=0, */*",
        "application/json",
    ] {
        let answer = book(accept).await.unwrap();
        assert!(
            header(&answer, "content-type")
                .unwrap()
                .starts_with("text/markdown"),
            "{accept}"
        );
        assert_eq!(answer.text().await.unwrap(), markdown, "{accept}");
    }
    let preferred = book("text/markdown;q=0.5, text/html").await.unwrap();
    assert!(
        header(&preferred, "content-type")
            .unwrap()
            .starts_with("text/html")
    );
}

/// The catalog's clocks, `on_timeout` choices, bot levels and options are the ones a new match takes:
/// a client offers them from the catalog (the web client does) and each is accepted as listed,
/// the clock with the seconds it says.
#[tokio::test]
async fn the_catalogs_choices_are_what_a_new_match_takes() {
    let app = spawn_app().await;
    let catalog: Value = app.get("/v1/rules", None).await.json().await.unwrap();
    let player = crate::helpers::players(&app, 1).await.remove(0);
    let names = |field: &str| -> Vec<String> {
        catalog[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|choice| choice["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names("clocks"),
        [
            "fast_5m",
            "correspondence_1d",
            "correspondence_3d",
            "correspondence_7d"
        ]
    );
    assert_eq!(names("on_timeout"), ["claim", "forfeit", "bot"]);
    assert_eq!(names("bot_levels"), ["random", "basic", "expert"]);
    for clock in catalog["clocks"].as_array().unwrap() {
        for on_timeout in names("on_timeout") {
            let created = app
                .post_as(
                    &player,
                    "/v1/matches",
                    &json!({"seats": 2, "clock": clock["name"], "on_timeout": on_timeout}),
                )
                .await;
            assert_eq!(created.status(), 201, "{clock} {on_timeout}");
            let summary: Value = created.json().await.unwrap();
            assert_eq!(summary["clock"]["turn_seconds"], clock["turn_seconds"]);
            assert_eq!(summary["clock"]["bank_seconds"], clock["bank_seconds"]);
            assert_eq!(summary["clock"]["on_timeout"], on_timeout.as_str());
        }
    }
    for level in names("bot_levels") {
        let created = app
            .post_as(
                &player,
                "/v1/matches",
                &json!({"seats": 2, "bots": [{"level": level}]}),
            )
            .await;
        let status = created.status();
        assert_eq!(status, 201, "{level}: {}", created.text().await.unwrap());
    }
    for choice in ["on_timeout", "bot_levels"] {
        for listed in catalog[choice].as_array().unwrap() {
            assert!(!listed["description"].as_str().unwrap().is_empty());
        }
    }
    // Every option the catalog lists is taken by name by a new match, at its default (also
    // an option written only when it is not its default).
    for option in catalog["options"].as_array().unwrap() {
        let name = option["name"].as_str().unwrap();
        let value = option["default"].clone();
        let created = app
            .post_as(
                &player,
                "/v1/matches",
                &json!({"rules": {"preset": "standard", name: value}}),
            )
            .await;
        let status = created.status();
        assert_eq!(status, 201, "{name}: {}", created.text().await.unwrap());
    }
    let created = app
        .post_as(
            &player,
            "/v1/matches",
            &json!({"seats": 2, "rules": {"next_deal": "winner"}}),
        )
        .await;
    assert_eq!(created.status(), 201);
    let summary: Value = created.json().await.unwrap();
    assert_eq!(summary["rules"]["next_deal"], "winner");
}
