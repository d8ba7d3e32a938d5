//! Reads on a PostgreSQL streaming replica (`DATABASE_READ_URLS`): a primary and a replica started
//! for the test on free ports (`pg_pair`).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::pg_pair::PgPair;

async fn titles(app: &TestApp, slug: &str, cookie: Option<&str>) -> (StatusCode, Vec<String>) {
    let mut req = app
        .client
        .get(app.url(&format!("/v1/feedback/by-project/{slug}")));
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    let res = req.send().await.unwrap();
    let status = res.status();
    let body: Value = res.json().await.unwrap_or_default();
    let titles = body["data"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|e| e["title"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default();
    (status, titles)
}

async fn ready(app: &TestApp) -> (StatusCode, Value) {
    let res = app.client.get(app.url("/readyz")).send().await.unwrap();
    (res.status(), res.json().await.unwrap())
}

/// Polls `/readyz` until the replica count healthy is `n`.
async fn wait_healthy(app: &TestApp, n: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, body) = ready(app).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if body["replicas"]["healthy"] == n {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "never {n} healthy replicas: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn submit(app: &TestApp, key: &str, title: &str) -> Value {
    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key),
            Some(json!({"title": title, "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    entry
}

#[tokio::test]
async fn public_reads_come_from_a_replica_until_it_lags_or_stops_and_a_session_reads_its_own_writes(
) {
    let pair = PgPair::start();
    let db = "shipmate_replicas";
    let app = spawn_app_on(
        PgPair::url(pair.primary, db),
        &[
            "--database-read-urls",
            &PgPair::url(pair.replica, db),
            "--replica-max-lag-seconds",
            "2",
        ],
    )
    .await;
    let body = wait_healthy(&app, 1).await;
    assert_eq!(body["replicas"]["configured"], 1);
    assert_eq!(body["redis_cluster"], Value::Null);
    let (_, project) = app.owner_with_project("replicated").await;
    let key = project["api_key"].as_str().unwrap().to_owned();
    submit(&app, &key, "First").await;
    // The replica replays it within moments.
    let deadline = Instant::now() + Duration::from_secs(10);
    while titles(&app, "replicated", None).await.1 != ["First"] {
        assert!(
            Instant::now() < deadline,
            "the replica never showed the first entry"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let metrics = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("shipmate_replica_lag_seconds{replica="),
        "{metrics}"
    );

    // Replay paused: the replica falls behind. Right after a write, an anonymous read still
    // comes from the replica (without the entry) ...
    let replica = sqlx::PgPool::connect(&PgPair::url(pair.replica, db))
        .await
        .unwrap();
    sqlx::query("select pg_wal_replay_pause()")
        .execute(&replica)
        .await
        .unwrap();
    // The pause is only requested by then: wait until replay has stopped (a CI run saw the next
    // write replayed before it had).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state: String = sqlx::query_scalar("select pg_get_wal_replay_pause_state()")
            .fetch_one(&replica)
            .await
            .unwrap();
        if state == "paused" {
            break;
        }
        assert!(Instant::now() < deadline, "replay never paused: {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let voter = app.login("voter@example.com").await;
    let first = titles(&app, "replicated", None).await;
    submit(&app, &key, "Second").await;
    let (status, seen) = titles(&app, "replicated", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        seen, first.1,
        "an anonymous read right after a write came from the primary"
    );
    // ... while a session that has just written reads from the primary: its vote shows.
    let entry = submit(&app, &key, "Third").await;
    let res = app
        .client
        .post(app.url(&format!("/v1/feedback/{}/upvote", id(&entry))))
        .header("Cookie", format!("shipmate_session={voter}"))
        .header("Origin", &app.base)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let wrote = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("shipmate_wrote="))
        .expect("a write by a cookie session sets the read-your-writes cookie")
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let (_, own) = titles(&app, "replicated", Some(&wrote)).await;
    assert!(
        own.contains(&"Third".to_owned()),
        "the session did not read its own write: {own:?}"
    );
    assert!(!titles(&app, "replicated", None)
        .await
        .1
        .contains(&"Third".to_owned()));

    // Past the limit (2 s) the replica is skipped: every read is the primary's.
    let body = wait_healthy(&app, 0).await;
    assert_eq!(body["replicas"]["configured"], 1);
    let (_, all) = titles(&app, "replicated", None).await;
    assert_eq!(all.len(), 3, "{all:?}");
    sqlx::query("select pg_wal_replay_resume()")
        .execute(&replica)
        .await
        .unwrap();
    replica.close().await;
    wait_healthy(&app, 1).await;

    // The replica stopped: reads fall back at once, never a 5xx, and readiness stays 200.
    pair.stop_replica();
    for _ in 0..20 {
        let (status, all) = titles(&app, "replicated", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(all.len(), 3);
    }
    let (status, body) = ready(&app).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    wait_healthy(&app, 0).await;
}
