//! Provider ingestion at volume: a worker keeps several calls in flight to a slow provider, and
//! when the provider throttles it halves them and waits out `Retry-After` (AIMD).

use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::fakes::FakeProvider;
use crate::helpers::*;
use crate::support::*;

const DOCUMENTS: usize = 600;

/// An app and a provider A index holding `DOCUMENTS` one-chunk documents, no worker yet (so the
/// first claim finds them all waiting).
async fn pending_corpus(fake: &FakeProvider, slug: &str) -> (TestApp, String, Value, Vec<String>) {
    let flags: Vec<&str> = vec![
        "--provider-a-url",
        Box::leak(fake.url.clone().into_boxed_str()),
        "--provider-a-key",
        "key-a",
    ];
    let app = spawn_app_with(&flags).await;
    let (_, k, index) = project_with_index(&app, slug, "provider-a-4").await;
    let mut ids = Vec::new();
    for part in 0..DOCUMENTS / 100 {
        let documents: Vec<Value> = (0..100)
            .map(|i| json!({"content": format!("Note {part}-{i}: invoices, refunds and passwords.")}))
            .collect();
        let (status, stored) = app
            .call(
                Method::POST,
                &format!("/v1/indexes/{}/documents/batch", id(&index)),
                Auth::Key(&k),
                Some(json!({ "documents": documents })),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{stored}");
        ids.extend(
            stored["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| id(d).to_owned()),
        );
    }
    (app, k, index, ids)
}

fn worker_flags(fake: &FakeProvider) -> Vec<&'static str> {
    vec![
        "--provider-a-url",
        Box::leak(fake.url.clone().into_boxed_str()),
        "--provider-a-key",
        "key-a",
        "--embed-provider-concurrency",
        "8",
    ]
}

/// Polls until every document of the index is `ready` (deadline: 60 s).
async fn wait_all_ready(app: &TestApp, key: &str, index: &Value, ids: &[String]) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut waiting: Vec<&String> = ids.iter().collect();
    while let Some(doc) = waiting.last() {
        let (_, d) = app
            .call(
                Method::GET,
                &format!("/v1/indexes/{}/documents/{doc}", id(index)),
                Auth::Key(key),
                None,
            )
            .await;
        match d["status"].as_str() {
            Some("ready") => {
                waiting.pop();
            }
            Some("pending") if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            _ => panic!("{} documents not ready; one is {d}", waiting.len()),
        }
    }
}

#[tokio::test]
async fn a_worker_keeps_several_provider_calls_in_flight() {
    let fake = FakeProvider::start().await;
    fake.counters.delay_ms.store(300, Ordering::SeqCst);
    let (app, k, index, ids) = pending_corpus(&fake, "kb-in-flight").await;
    let _worker = start_worker(&app, &worker_flags(&fake));
    wait_all_ready(&app, &k, &index, &ids).await;
    // 600 chunks are five calls of up to 128; the first claim takes 512 documents, four calls,
    // sent together rather than one after another.
    let most = fake.counters.max_in_flight.load(Ordering::SeqCst);
    assert!(most >= 4, "at most {most} calls were in flight");
    assert!(most <= 8, "{most} calls in flight, over the setting");
}

#[tokio::test]
async fn a_throttling_provider_gets_fewer_calls_and_its_retry_after_respected() {
    let fake = FakeProvider::start().await;
    fake.counters.delay_ms.store(200, Ordering::SeqCst);
    // The provider serves two calls at a time and answers 429 (Retry-After: 1) beyond that.
    fake.counters.cap.store(2, Ordering::SeqCst);
    let (app, k, index, ids) = pending_corpus(&fake, "kb-throttled").await;
    let _worker = start_worker(&app, &worker_flags(&fake));
    wait_all_ready(&app, &k, &index, &ids).await;
    let arrivals = fake.counters.arrivals.lock().unwrap().clone();
    let throttled: Vec<_> = arrivals
        .iter()
        .filter(|(_, t)| *t)
        .map(|(at, _)| *at)
        .collect();
    assert!(
        !throttled.is_empty(),
        "four calls at once met the cap of two"
    );
    // Halving the calls in flight (4, then 2) stops the 429s quickly instead of retrying into them.
    assert!(
        throttled.len() <= 6,
        "{} calls were throttled",
        throttled.len()
    );
    // Retry-After: 1 holds every call of the worker, not only the refused one. Calls already on
    // their way when the 429 was sent (a few milliseconds) are not held.
    for t in &throttled {
        let early = arrivals
            .iter()
            .filter(|(at, _)| {
                *at > *t + Duration::from_millis(100) && *at < *t + Duration::from_millis(900)
            })
            .count();
        assert_eq!(early, 0, "{early} calls arrived during a Retry-After pause");
    }
}
