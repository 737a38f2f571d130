//! The reference web client at `/play` (issue 18): its files come from the binary with a
//! strict content security policy, revalidated by `ETag`; an operator may switch it off. What
//! it does in a browser is tested by `tests/play/run.py`.

use crate::helpers::{assert_problem, header, spawn_app, spawn_app_with};

#[tokio::test]
async fn the_web_client_is_served_at_play_with_a_strict_policy() {
    let app = spawn_app().await;
    let bare = app.get("/play", None).await;
    assert_eq!(bare.status(), 308);
    assert_eq!(header(&bare, "location"), Some("/play/"));

    let page = app.get("/play/", None).await;
    assert_eq!(page.status(), 200);
    assert_eq!(
        header(&page, "content-type"),
        Some("text/html; charset=utf-8")
    );
    let policy = header(&page, "content-security-policy").unwrap().to_owned();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(directive), "{policy}");
    }
    assert!(!policy.contains("unsafe"), "{policy}");
    assert_eq!(header(&page, "x-frame-options"), Some("DENY"));
    let etag = header(&page, "etag").unwrap().to_owned();
    let html = page.text().await.unwrap();
    assert!(
        html.contains(r#"<script type="module" src="app.js">"#),
        "{html}"
    );

    // Everything the page names is served, with its type.
    for (file, content_type) in [
        ("app.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        assert!(html.contains(&format!("\"{file}\"")), "{file}");
        let served = app.get(&format!("/play/{file}"), None).await;
        assert_eq!(served.status(), 200, "{file}");
        assert_eq!(
            header(&served, "content-type"),
            Some(content_type),
            "{file}"
        );
    }

    let again = app
        .client
        .get(format!("{}/play/", app.address))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert!(again.bytes().await.unwrap().is_empty());

    let head = app
        .client
        .head(format!("{}/play/app.js", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), 200);
    assert!(header(&head, "etag").is_some());

    assert_problem(app.get("/play/nothing.js", None).await, 404, "not_found").await;
    assert_problem(app.get("/play/../Cargo.toml", None).await, 404, "not_found").await;
}

#[tokio::test]
async fn an_operator_may_switch_the_web_client_off() {
    let app = spawn_app_with(|settings| settings.web_client = false).await;
    assert_problem(app.get("/play/", None).await, 404, "not_found").await;
    assert_eq!(app.get("/v1/rules", None).await.status(), 200);
}
