//! Health checks, the OpenAPI description and Swagger UI.

use crate::helpers::{assert_problem, spawn_app};

#[tokio::test]
async fn health_and_readiness() {
    let app = spawn_app().await;
    let alive = app.get("/healthz", None).await;
    assert_eq!(alive.status(), 200);
    let request_id = alive
        .headers()
        .get("x-request-id")
        .expect("every answer carries its request id");
    assert_eq!(request_id.to_str().unwrap().len(), 36, "a UUID");
    let ready = app.get("/readyz", None).await;
    assert_eq!(ready.status(), 200);
    assert_eq!(
        ready.json::<serde_json::Value>().await.unwrap()["status"],
        "ready"
    );
}

/// On PostgreSQL the database really stops taking connections, then comes back; SQLite has no
/// server to stop, so there the pool is closed instead.
#[tokio::test]
async fn readiness_reports_a_stopped_database_and_recovers() {
    let app = spawn_app().await;
    match app.database.postgres_name() {
        Some(name) => {
            app.database
                .admin(&format!(
                    r#"ALTER DATABASE "{name}" ALLOW_CONNECTIONS false"#
                ))
                .await;
            app.database
                .admin(&format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"))
                .await;
            assert_problem(app.get("/readyz", None).await, 503, "service_unavailable").await;
            let login = app
                .post(
                    "/v1/auth/login",
                    &serde_json::json!({"username": "maya", "password": "correct horse"}),
                )
                .await;
            assert_problem(login, 503, "service_unavailable").await;
            app.database
                .admin(&format!(
                    r#"ALTER DATABASE "{name}" ALLOW_CONNECTIONS true"#
                ))
                .await;
            let status = app.ready_again().await;
            assert_eq!(status, 200, "recovers once the database is back");
        }
        None => {
            app.db.pool().close().await;
            assert_problem(app.get("/readyz", None).await, 503, "service_unavailable").await;
        }
    }
}

#[tokio::test]
async fn the_committed_openapi_matches_the_generated_one() {
    let generated = kings_corner::http::openapi_json();
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"))
            .unwrap();
    assert!(
        committed.trim() == generated.trim(),
        "openapi/openapi.json is stale: regenerate it with `cargo run -- openapi > openapi/openapi.json`"
    );
    let app = spawn_app().await;
    let served: serde_json::Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert_eq!(
        served,
        serde_json::from_str::<serde_json::Value>(&generated).unwrap()
    );
}

#[tokio::test]
async fn every_operation_is_documented() {
    let api: serde_json::Value = serde_json::from_str(&kings_corner::http::openapi_json()).unwrap();
    let paths = api["paths"].as_object().unwrap();
    for path in [
        "/v1/accounts",
        "/v1/me",
        "/v1/auth/login",
        "/v1/auth/refresh",
        "/v1/auth/logout",
        "/healthz",
        "/readyz",
    ] {
        assert!(paths.contains_key(path), "{path} is documented");
    }
    for (path, operations) in paths {
        for (method, operation) in operations.as_object().unwrap() {
            assert!(
                operation["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{method} {path} has a summary"
            );
            assert!(
                operation.get("security").is_some(),
                "{method} {path} states its security"
            );
        }
    }
    assert_eq!(
        api["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
}

#[tokio::test]
async fn swagger_ui_is_served_offline() {
    let app = spawn_app().await;
    let page = app.get("/docs/", None).await;
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("swagger"));
    assert_eq!(app.get("/docs", None).await.status(), 308);
}

/// Every time the API writes is RFC 3339: each property named like a time (`…_at`,
/// `deadline`, `timestamp`, an event's `at`) is a `date-time` string in the description, and
/// the answers hold such strings.
#[tokio::test]
async fn every_time_is_rfc_3339() {
    fn check(path: &str, schema: &serde_json::Value, found: &mut Vec<String>) {
        if let Some(properties) = schema["properties"].as_object() {
            for (name, property) in properties {
                let timely = name.ends_with("_at")
                    || ["deadline", "timestamp", "at"].contains(&name.as_str());
                if timely && property["format"] != "date-time" {
                    found.push(format!("{path}.{name}: {property}"));
                }
            }
        }
        for key in ["oneOf", "allOf", "anyOf"] {
            for (index, part) in schema[key].as_array().into_iter().flatten().enumerate() {
                check(&format!("{path}/{key}[{index}]"), part, found);
            }
        }
    }
    let api = kings_corner::http::openapi();
    let api = serde_json::to_value(&api).unwrap();
    let mut found = Vec::new();
    for (name, schema) in api["components"]["schemas"].as_object().unwrap() {
        check(name, schema, &mut found);
    }
    assert!(found.is_empty(), "times that are not RFC 3339: {found:#?}");

    let app = spawn_app().await;
    let account = app.register("timekeeper", "correct horse").await;
    let created = account["created_at"].as_str().unwrap();
    assert!(
        kings_corner::time_source::parse_rfc3339(created).is_some(),
        "{account}"
    );
}

/// One status vocabulary: a match's status reads the same in summaries and in views (and a
/// replay before the first deal says `open`, as the summary of a match waiting for players).
#[tokio::test]
async fn summaries_and_views_share_one_status_vocabulary() {
    let api = serde_json::to_value(kings_corner::http::openapi()).unwrap();
    let schemas = &api["components"]["schemas"];
    assert_eq!(schemas["Status"]["enum"], schemas["MatchStatus"]["enum"]);
    let app = spawn_app().await;
    let (players, id) = crate::helpers::standard_match(&app).await;
    let before = app
        .json_as(&players[0], &format!("/v1/matches/{id}/replay?at=0"))
        .await;
    assert_eq!(before["status"], "open");
}
