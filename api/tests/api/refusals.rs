//! Refusals name their fix (contract part 3, "The first hour").

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn a_webhook_url_refused_as_internal_names_the_setting_that_lets_it_through() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("refuse-hook").await;
    let base = format!("/v1/projects/{}/webhooks", id(&project));
    for (url, host) in [
        ("http://127.0.0.1:9000/hook", "127.0.0.1"),
        ("http://192.168.1.10/hook", "192.168.1.10"),
        ("http://localhost:3000/hook", "localhost"),
    ] {
        let body = app
            .refused(
                (Method::POST, &base),
                Auth::Session(&owner),
                Some(json!({"url": url, "events": ["*"]})),
                (StatusCode::UNPROCESSABLE_ENTITY, "url_not_allowed"),
            )
            .await;
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains("SHIPMATE_WEBHOOK_ALLOWED_HOSTS")
                && detail.contains(&format!("SHIPMATE_WEBHOOK_ALLOWED_HOSTS={host}")),
            "{url}: {detail}"
        );
        assert_eq!(body["errors"][0]["field"], "url");
    }
    // Not http(s) at all: no host setting would help, so none is named.
    let body = app
        .refused(
            (Method::POST, &base),
            Auth::Session(&owner),
            Some(json!({"url": "ftp://example.com/x", "events": ["*"]})),
            (StatusCode::UNPROCESSABLE_ENTITY, "url_not_allowed"),
        )
        .await;
    assert!(!body["detail"]
        .as_str()
        .unwrap()
        .contains("SHIPMATE_WEBHOOK_ALLOWED_HOSTS"));
}

#[tokio::test]
async fn a_key_endpoint_called_with_a_session_alone_says_what_to_send() {
    let app = spawn_app().await;
    let (owner, _) = app.owner_with_project("refuse-key").await;
    for (method, path, body) in [
        (Method::GET, "/v1/indexes", None),
        (
            Method::POST,
            "/v1/feedback",
            Some(json!({"title": "Dark mode", "type": "feature"})),
        ),
    ] {
        let problem = app
            .refused(
                (method, path),
                Auth::Session(&owner),
                body,
                (StatusCode::UNAUTHORIZED, "unauthorized"),
            )
            .await;
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("X-Project-Key")
                && detail.contains("X-Project-Id")
                && detail.contains("member's session"),
            "{path}: {detail}"
        );
    }
}
