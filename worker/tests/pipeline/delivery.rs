//! Outbound delivery end to end: the api records webhooks and emails with their change, real
//! workers send them to a receiver and an SMTP sink on 127.0.0.1.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::receivers::*;
use crate::support::*;

/// An app and an in-process worker that may deliver to 127.0.0.1, retrying after 1 s (twice).
pub(crate) async fn stack(extra: &[&str]) -> (TestApp, Worker) {
    let mut args = vec![
        "--webhook-allowed-hosts",
        "127.0.0.1",
        "--webhook-retry-schedule",
        "1,1",
    ];
    args.extend_from_slice(extra);
    let app = spawn_app_with(&args).await;
    let worker = start_worker(&app, &args);
    (app, worker)
}

async fn add_webhook(app: &TestApp, owner: &str, pid: &str, url: &str, events: Value) -> Value {
    let (status, hook) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{pid}/webhooks"),
            Auth::Session(owner),
            Some(json!({"url": url, "events": events})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    hook
}

async fn deliveries(app: &TestApp, owner: &str, pid: &str, hook: &Value) -> Vec<Value> {
    let path = format!("/v1/projects/{pid}/webhooks/{}/deliveries", id(hook));
    let (status, body) = app
        .call(Method::GET, &path, Auth::Session(owner), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// Polls the webhook's newest delivery until its status is `want` (deadline `secs`).
async fn wait_status(
    app: &TestApp,
    owner: &str,
    pid: &str,
    hook: &Value,
    want: &str,
    secs: u64,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let list = deliveries(app, owner, pid, hook).await;
        if let Some(d) = list.first().filter(|d| d["status"] == want) {
            return d.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no {want} delivery in {secs} s: {list:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn webhooks_are_signed_retried_and_logged() {
    let (app, _worker) = stack(&[]).await;
    let (owner, project) = app.owner_with_project("hooks-a").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    receiver.script(&[Answer::Status(500)]);
    let hook = add_webhook(
        &app,
        &owner,
        pid,
        &receiver.url,
        json!(["feedback.created"]),
    )
    .await;
    let secret = hook["secret"].as_str().unwrap();

    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "Dark mode", "type": "feature", "submitter_email": "fan@example.com"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    // A testimonial is not subscribed to: it must not arrive.
    app.call(
        Method::POST,
        "/v1/testimonials",
        Auth::Key(key(&project)),
        Some(json!({"author_name": "A", "author_email": "a@example.com", "content": "Great", "rating": 5})),
    )
    .await;

    let hits = receiver.wait_for(2, 20).await;
    for hit in &hits {
        assert!(signature_valid(hit, secret), "bad signature: {hit:?}");
        let body = hit.json();
        assert_eq!(body["type"], "feedback.created");
        assert_eq!(body["data"]["id"], entry["id"]);
        // The owner's view of the resource: the submitter's address is in it.
        assert_eq!(body["data"]["submitter_email"], "fan@example.com");
        let ts: i64 = hit.header("webhook-timestamp").parse().unwrap();
        assert!((chrono::Utc::now().timestamp() - ts).abs() < 60);
    }
    assert_eq!(hits[0].header("webhook-id"), hits[1].header("webhook-id"));
    let d = wait_status(&app, &owner, pid, &hook, "delivered", 20).await;
    assert_eq!(d["attempts"], 2);
    assert_eq!(d["last_status_code"], 200);
    assert_eq!(d["id"].as_str().unwrap(), hits[0].header("webhook-id"));
    assert_eq!(deliveries(&app, &owner, pid, &hook).await.len(), 1);
    assert_eq!(receiver.hits().len(), 2, "nothing else was sent");
}

#[tokio::test]
async fn failed_deliveries_can_be_retried_by_hand() {
    let (app, _worker) = stack(&[]).await;
    let (owner, project) = app.owner_with_project("hooks-b").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    receiver.script(&[
        Answer::Status(500),
        Answer::Status(502),
        Answer::Status(503),
    ]);
    let hook = add_webhook(&app, &owner, pid, &receiver.url, json!(["*"])).await;
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{pid}/webhooks/{}/test", id(&hook)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // 1 attempt + a schedule of 2 retries, then `failed`.
    let failed = wait_status(&app, &owner, pid, &hook, "failed", 30).await;
    assert_eq!(failed["attempts"], 3);
    assert_eq!(failed["last_status_code"], 503);
    assert_eq!(failed["type"], "ping");

    let (status, again) = app
        .call(
            Method::POST,
            &format!(
                "/v1/projects/{pid}/webhooks/{}/deliveries/{}/retry",
                id(&hook),
                id(&failed)
            ),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{again}");
    let done = wait_status(&app, &owner, pid, &hook, "delivered", 20).await;
    assert_eq!(done["attempts"], 4);
    let hits = receiver.hits();
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h.header("webhook-id") == id(&failed)));
}

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_new_one_for_a_day() {
    let (app, _worker) = stack(&[]).await;
    let (owner, project) = app.owner_with_project("hooks-c").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    let hook = add_webhook(&app, &owner, pid, &receiver.url, json!(["*"])).await;
    let old = hook["secret"].as_str().unwrap().to_owned();
    let path = format!("/v1/projects/{pid}/webhooks/{}", id(&hook));
    let (_, rotated) = app
        .call(
            Method::POST,
            &format!("{path}/rotate-secret"),
            Auth::Session(&owner),
            None,
        )
        .await;
    let new = rotated["secret"].as_str().unwrap();
    assert_ne!(new, old);
    app.call(
        Method::POST,
        &format!("{path}/test"),
        Auth::Session(&owner),
        None,
    )
    .await;
    let hit = &receiver.wait_for(1, 20).await[0];
    assert_eq!(hit.header("webhook-signature").split(' ').count(), 2);
    assert!(signature_valid(hit, new) && signature_valid(hit, &old));
    assert_eq!(hit.json()["type"], "ping");
}

/// A name that resolves to a loopback address at delivery time is refused then too, even though
/// the saved URL passed (here the row is changed behind the API's back).
#[tokio::test]
async fn delivery_refuses_names_that_resolve_inward() {
    let (app, _worker) = stack(&[]).await;
    let (owner, project) = app.owner_with_project("hooks-d").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    let hook = add_webhook(&app, &owner, pid, &receiver.url, json!(["*"])).await;
    let port = receiver
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    sqlx::query("update webhooks set url = $1 where id = $2::uuid")
        .bind(format!("http://localhost:{port}/hook"))
        .bind(id(&hook))
        .execute(&db)
        .await
        .unwrap();
    let path = format!("/v1/projects/{pid}/webhooks/{}/test", id(&hook));
    app.call(Method::POST, &path, Auth::Session(&owner), None)
        .await;
    let failed = wait_status(&app, &owner, pid, &hook, "failed", 30).await;
    assert!(
        failed["last_error"].as_str().unwrap().contains("loopback"),
        "{failed}"
    );
    assert!(receiver.hits().is_empty(), "nothing reached the receiver");
}

/// A worker SIGKILLed while the receiver holds its request: the attempt's lease runs out, the
/// sweep queues the delivery again, and another worker delivers it with the same `webhook-id`
/// within the contract's 60 seconds.
#[tokio::test]
async fn a_worker_killed_mid_delivery_still_delivers() {
    let flags = ["--webhook-allowed-hosts", "127.0.0.1"];
    let app = spawn_app_with(&flags).await;
    let (owner, project) = app.owner_with_project("hooks-kill").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    receiver.script(&[Answer::Hang]);
    let hook = add_webhook(&app, &owner, pid, &receiver.url, json!(["*"])).await;
    let mut first = spawn_worker_process(&app, &flags);
    let path = format!("/v1/projects/{pid}/webhooks/{}/test", id(&hook));
    app.call(Method::POST, &path, Auth::Session(&owner), None)
        .await;
    receiver.wait_for(1, 30).await;
    first.kill().expect("kill -9");
    first.wait().unwrap();
    let killed_at = Instant::now();
    let mut second = spawn_worker_process(&app, &flags);
    let hits = receiver.wait_for(2, 90).await;
    let took = killed_at.elapsed();
    // The second worker records the outcome just after the receiver sees its request: stopping
    // it before then would leave the delivery pending with no worker to finish it.
    let d = wait_status(&app, &owner, pid, &hook, "delivered", 10).await;
    second.kill().ok();
    second.wait().ok();
    println!("a delivery cut off by SIGKILL was made again {took:?} after the kill");
    assert!(took < Duration::from_secs(60), "took {took:?}");
    assert_eq!(hits[0].header("webhook-id"), hits[1].header("webhook-id"));
    assert_eq!(d["attempts"], 2);
}

/// The worker records `document.ready` in the transaction that makes the document ready.
#[tokio::test]
async fn a_ready_document_is_announced() {
    let (app, _worker) = stack(&[]).await;
    let (owner, key, index) = project_with_index(&app, "hooks-doc", LOCAL_MODEL).await;
    let (_, projects) = app
        .call(Method::GET, "/v1/projects", Auth::Session(&owner), None)
        .await;
    let pid = id(&projects["data"][0]).to_owned();
    let receiver = Receiver::start().await;
    add_webhook(
        &app,
        &owner,
        &pid,
        &receiver.url,
        json!(["document.ready", "document.failed"]),
    )
    .await;
    let doc = upload(
        &app,
        &key,
        &index,
        "Webhooks tell your app when this is searchable.",
        json!({}),
    )
    .await;
    let hit = &receiver.wait_for(1, 60).await[0];
    let body = hit.json();
    assert_eq!(body["type"], "document.ready");
    assert_eq!(body["data"]["id"], doc["id"]);
    assert_eq!(body["data"]["status"], "ready");
}

/// apalis-redis moves every due job in one Lua `unpack`, which fails past about 8,000: a backlog
/// that large (the worker down during a burst) must not stop delivery for good.
#[tokio::test]
async fn a_backlog_of_many_thousand_jobs_is_drained() {
    let flags = ["--webhook-allowed-hosts", "127.0.0.1"];
    let app = spawn_app_with(&flags).await;
    let (owner, project) = app.owner_with_project("hooks-backlog").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    add_webhook(&app, &owner, pid, &receiver.url, json!(["*"])).await;
    load_env();
    let redis_url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let mut queue = shipmate_outbound::connect_queue(&redis_url, &app.queue_prefix)
        .await
        .unwrap();
    // Jobs for deliveries that do not exist: each is a no-op, but they fill the queue.
    let filler: Vec<_> = (0..9_000)
        .map(|_| shipmate_outbound::DeliveryJob {
            ids: vec![uuid::Uuid::new_v4()],
        })
        .collect();
    apalis::prelude::TaskSink::push_bulk(&mut queue, filler)
        .await
        .unwrap();
    let (status, _) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "After the flood", "type": "bug"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let _worker = start_worker(&app, &flags);
    let hit = &receiver.wait_for(1, 60).await[0];
    assert_eq!(hit.json()["data"]["title"], "After the flood");
}

/// A receiver that never answers is cut off after 10 seconds, and the delivery is retried.
#[tokio::test]
async fn a_hanging_receiver_is_cut_at_ten_seconds_and_retried() {
    let (app, _worker) = stack(&[]).await;
    let (owner, project) = app.owner_with_project("hooks-hang").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    receiver.script(&[Answer::Hang]);
    let hook = add_webhook(&app, &owner, pid, &receiver.url, json!(["*"])).await;
    let started = Instant::now();
    let path = format!("/v1/projects/{pid}/webhooks/{}/test", id(&hook));
    app.call(Method::POST, &path, Auth::Session(&owner), None)
        .await;
    let hits = receiver.wait_for(2, 30).await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(10),
        "retried after {took:?}, before the 10 s cut"
    );
    assert_eq!(hits[0].header("webhook-id"), hits[1].header("webhook-id"));
    let d = wait_status(&app, &owner, pid, &hook, "delivered", 10).await;
    assert_eq!(d["attempts"], 2);
}

/// The worker serves its metrics when `SHIPMATE_WORKER_METRICS_BIND` is set.
#[tokio::test]
async fn the_worker_serves_metrics_when_asked() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bind = format!("127.0.0.1:{port}");
    let sink = Receiver::start().await;
    let flags = ["--webhook-allowed-hosts", "127.0.0.1"];
    let app = spawn_app_with(&flags).await;
    let _worker = start_worker(&app, &[flags[0], flags[1], "--metrics-bind", &bind]);
    let (owner, project) = app.owner_with_project("hooks-metrics").await;
    let hook = add_webhook(&app, &owner, id(&project), &sink.url, json!(["*"])).await;
    let path = format!("/v1/projects/{}/webhooks/{}/test", id(&project), id(&hook));
    app.call(Method::POST, &path, Auth::Session(&owner), None)
        .await;
    sink.wait_for(1, 20).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = match reqwest::get(format!("http://{bind}/metrics")).await {
            Ok(res) => res.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if text.contains("shipmate_webhook_deliveries_total{outcome=\"delivered\"}")
            && text.contains("shipmate_queue_backlog{queue=\"deliveries\"}")
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "worker metrics incomplete: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
