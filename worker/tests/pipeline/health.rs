//! The worker's liveness: `/healthz` beside `/metrics` reports each loop's last heartbeat, and
//! answers 200 only once every loop has come round (PostHog's `rust/common/health` pattern).

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::*;
use crate::support::*;

#[tokio::test]
async fn healthz_reports_every_loop_once_it_has_come_round() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bind = format!("127.0.0.1:{port}");
    let app = spawn_app().await;
    let _worker = start_worker(&app, &["--metrics-bind", &bind]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let body: Value = loop {
        if let Ok(res) = reqwest::get(format!("http://{bind}/healthz")).await {
            let ok = res.status() == reqwest::StatusCode::OK;
            let body: Value = res.json().await.unwrap_or_default();
            if ok {
                break body;
            }
            // Before every loop has reported: 503, naming the ones still starting.
            assert_eq!(body["healthy"], false, "{body}");
        }
        assert!(Instant::now() < deadline, "the worker never became healthy");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(body["healthy"], true);
    for name in ["embed", "events", "upkeep", "schedules", "deliveries"] {
        let loop_ = &body["components"][name];
        assert_eq!(loop_["state"], "healthy", "{name}: {body}");
        assert!(loop_["last_heartbeat"].as_str().is_some(), "{name}: {body}");
    }
}
