//! `/metrics`: Prometheus text with the contract's names, only for loopback and allowed CIDRs.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

async fn scrape(app: &TestApp, forwarded_for: Option<&str>) -> (StatusCode, String) {
    let mut req = app.client.get(app.url("/metrics"));
    if let Some(ip) = forwarded_for {
        req = req.header("x-forwarded-for", ip);
    }
    let res = req.send().await.unwrap();
    (res.status(), res.text().await.unwrap())
}

#[tokio::test]
async fn metrics_name_routes_events_and_queues() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("metrics-a").await;
    app.call(Method::GET, "/v1/webhooks/events", Auth::None, None)
        .await;
    // A browser's user agent: without one the request counts as a bot's.
    let res = app
        .client
        .post(app.url("/v1/analytics/events"))
        .header("x-project-key", key(&project))
        .header("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36")
        .json(&json!({"name": "pageview", "url": "https://example.com/"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let (status, text) = scrape(&app, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        text.lines().any(
            |l| l.starts_with("shipmate_http_request_duration_seconds_bucket")
                && l.contains("route=\"/v1/webhooks/events\"")
                && l.contains("method=\"GET\"")
                && l.contains("status=\"200\"")
        ),
        "{text}"
    );
    // Route templates, never raw paths.
    assert!(!text.contains(id(&project)), "a raw id leaked into a label");
    for name in [
        "shipmate_events_accepted_total",
        "shipmate_queue_backlog{queue=\"jobs:events\"}",
        "shipmate_queue_backlog{queue=\"jobs:embed\"}",
        "shipmate_queue_backlog{queue=\"deliveries\"}",
    ] {
        assert!(text.contains(name), "{name} missing: {text}");
    }
}

#[tokio::test]
async fn only_loopback_and_allowed_networks_may_read_metrics() {
    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1"]).await;
    let (status, _) = scrape(&app, Some("203.0.113.7")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let app = spawn_app_with(&[
        "--trusted-proxies",
        "127.0.0.1",
        "--metrics-allow",
        "203.0.113.0/24",
    ])
    .await;
    let (status, _) = scrape(&app, Some("203.0.113.7")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = scrape(&app, Some("198.51.100.9")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
