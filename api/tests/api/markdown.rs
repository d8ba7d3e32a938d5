use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

const PREVIEW: &str = "/v1/markdown/preview";

#[tokio::test]
async fn preview_renders_markdown_as_the_public_changelog_does() {
    let app = spawn_app().await;
    let token = app.login("writer@example.com").await;
    let (status, body) = app
        .call(
            Method::POST,
            PREVIEW,
            Auth::Session(&token),
            Some(json!({"markdown": "## Highlights\n\nNow **b** and [docs](https://example.com/docs)."})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let html = body["html"].as_str().unwrap();
    assert!(html.contains("<strong>b</strong>"), "{html}");
    assert!(html.contains("<h2>Highlights</h2>"), "{html}");
    assert!(
        html.contains(
            r#"<a href="https://example.com/docs" rel="noopener noreferrer nofollow">docs</a>"#
        ),
        "{html}"
    );
}

#[tokio::test]
async fn preview_never_lets_script_through() {
    let app = spawn_app().await;
    let token = app.login("writer@example.com").await;
    let markdown =
        "<script>alert(1)</script>\n\nText with `<script>` in code, [a](javascript:alert(2)) \
                    and <img src=x onerror=\"alert(3)\">";
    let (status, body) = app
        .call(
            Method::POST,
            PREVIEW,
            Auth::Session(&token),
            Some(json!({ "markdown": markdown })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let html = body["html"].as_str().unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(
        !html.contains("alert(1)"),
        "a script's content is dropped: {html}"
    );
    assert!(html.contains("<code>&lt;script&gt;</code>"), "{html}");
    assert!(!html.contains("javascript:"), "{html}");
    assert!(!html.contains("onerror"), "{html}");
}

#[tokio::test]
async fn preview_needs_a_session() {
    let app = spawn_app().await;
    app.refused(
        (Method::POST, PREVIEW),
        Auth::None,
        Some(json!({"markdown": "**b**"})),
        (StatusCode::UNAUTHORIZED, "unauthorized"),
    )
    .await;
}

#[tokio::test]
async fn preview_returns_422_when_markdown_is_missing_empty_or_too_long() {
    let app = spawn_app().await;
    let token = app.login("writer@example.com").await;
    let too_long = "a".repeat(100_001);
    for (body, message) in [
        (json!({}), "is required"),
        (json!({"markdown": "   "}), "is required"),
        (json!({"markdown": 7}), "must be a string"),
        (
            json!({ "markdown": too_long }),
            "must be at most 100000 characters",
        ),
    ] {
        let problem = app
            .refused(
                (Method::POST, PREVIEW),
                Auth::Session(&token),
                Some(body),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await;
        assert_eq!(problem["errors"][0]["field"], "markdown", "{problem}");
        assert_eq!(problem["errors"][0]["message"], message, "{problem}");
    }
    let exactly = "a".repeat(100_000);
    let (status, _) = app
        .call(
            Method::POST,
            PREVIEW,
            Auth::Session(&token),
            Some(json!({ "markdown": exactly })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "100,000 characters are allowed");
}
