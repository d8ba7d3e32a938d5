//! ClickHouse mode end to end: the api and a worker with `--clickhouse-url` against the test's own
//! clickhouse-server. Events accepted while ClickHouse is down wait in the queue and land once it
//! is back, none lost and none counted twice; `/readyz` names ClickHouse without failing on it.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::analytics::{read, track, CHROME};
use crate::helpers::*;
use crate::support::*;

#[path = "../../../analytics/tests/support/clickhouse.rs"]
mod server;

async fn page_views(app: &TestApp, token: &str, project: &Value) -> i64 {
    read(app, token, "overview", project, "7d").await["page_views"]
        .as_i64()
        .unwrap()
}

/// Polls until the overview counts `n` page views, then checks it stays there.
async fn until_views(app: &TestApp, token: &str, project: &Value, n: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = page_views(app, token, project).await;
        if seen == n {
            break;
        }
        assert!(seen < n, "{seen} page views counted where {n} were sent");
        assert!(
            Instant::now() < deadline,
            "only {seen} of {n} page views arrived"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn readyz(app: &TestApp) -> (StatusCode, Value) {
    app.call(Method::GET, "/readyz", Auth::None, None).await
}

#[tokio::test]
async fn events_wait_while_clickhouse_is_down_and_land_once() {
    let mut ch = server::ClickHouse::start();
    let url = ch.url("shipmate_e2e");
    let app = spawn_app_with(&["--clickhouse-url", &url]).await;
    let _worker = start_worker(&app, &["--clickhouse-url", &url]);
    let (token, project) = app.owner_with_project("ch-e2e").await;
    let k = key(&project).to_owned();
    let views =
        |n: usize| json!({"events": vec![json!({"url": "https://shop.example/pricing"}); n]});
    assert_eq!(
        track(&app, &k, "81.2.69.142", CHROME, views(3)).await.0,
        StatusCode::ACCEPTED
    );
    until_views(&app, &token, &project, 3).await;
    let (status, ready) = readyz(&app).await;
    assert_eq!(
        (status, &ready["clickhouse"]),
        (StatusCode::OK, &json!(true)),
        "{ready}"
    );

    ch.kill();
    let (status, ready) = readyz(&app).await;
    assert_eq!(
        (status, &ready["clickhouse"]),
        (StatusCode::OK, &json!(false)),
        "{ready}"
    );
    // The figures wait (503, a problem naming the store); the events do not.
    let res = app
        .send(
            Method::GET,
            &format!("/v1/analytics/overview?project_id={}", id(&project)),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_problem(res, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    for _ in 0..2 {
        assert_eq!(
            track(&app, &k, "81.2.69.142", CHROME, views(2)).await.0,
            StatusCode::ACCEPTED
        );
    }
    ch.restart();
    // Every poll also checks the count never passes 7: retries stored each request once.
    until_views(&app, &token, &project, 7).await;
    let pages = read(&app, &token, "pages", &project, "7d").await;
    assert_eq!(pages["data"][0]["page"], "/pricing", "{pages}");
    assert_eq!(pages["data"][0]["views"], 7, "{pages}");
}

/// A worker killed with SIGKILL while events stream in and it stores them into ClickHouse: another
/// takes its unacknowledged entries over (`--events-stale-secs`), and every event is counted once.
#[tokio::test]
async fn a_worker_killed_mid_stream_loses_and_doubles_nothing() {
    let ch = server::ClickHouse::start();
    let url = ch.url("shipmate_kill");
    let app = std::sync::Arc::new(spawn_app_with(&["--clickhouse-url", &url]).await);
    let (token, project) = app.owner_with_project("ch-kill").await;
    let k = key(&project).to_owned();
    let flags = ["--clickhouse-url", url.as_str(), "--events-stale-secs", "2"];
    let mut first = spawn_worker_process(&app, &flags);
    // 40 requests of 25 events over about two seconds: the worker stores several blocks.
    let sender = tokio::spawn({
        let app = app.clone();
        async move {
            for i in 0..40 {
                let events: Vec<Value> = (0..25)
                    .map(|j| json!({"url": format!("https://shop.example/p{}", (i * 25 + j) % 7)}))
                    .collect();
                let body = json!({ "events": events });
                let (status, _) = track(&app, &k, "81.2.69.142", CHROME, body).await;
                assert_eq!(status, StatusCode::ACCEPTED);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });
    // Killed as soon as some events are stored, while more are in its hands or on their way.
    let deadline = Instant::now() + Duration::from_secs(60);
    let stored = loop {
        let seen = page_views(&app, &token, &project).await;
        if seen > 0 {
            break seen;
        }
        assert!(Instant::now() < deadline, "the first worker stored nothing");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    first.kill().expect("kill -9");
    first.wait().expect("reaped");
    println!("killed the worker after {stored} of 1000 events were stored");
    let _second = start_worker(&app, &flags);
    sender.await.expect("every request accepted");
    assert!(stored < 1000, "the kill came too late to test anything");
    until_views(&app, &token, &project, 1000).await;
}
