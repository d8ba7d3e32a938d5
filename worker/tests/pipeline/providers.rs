use std::sync::atomic::Ordering;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::fakes::FakeProvider;
use crate::helpers::*;
use crate::support::*;

fn provider_flags(fake: &FakeProvider) -> Vec<String> {
    [
        "--provider-a-url",
        &fake.url,
        "--provider-a-key",
        "key-a",
        "--provider-b-url",
        &fake.url,
        "--provider-b-key",
        "key-b",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn leak(v: Vec<String>) -> Vec<&'static str> {
    v.into_iter()
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect()
}

/// Searched with the statement of the 3,072-dimension sign-bit graph and its re-ranking (the
/// exact-scan threshold at 0), as an index past 10,000 chunks is.
#[tokio::test]
async fn provider_b_serves_a_3072_dimension_index() {
    let fake = FakeProvider::start().await;
    let flags = leak(provider_flags(&fake));
    let mut api_flags = flags.clone();
    api_flags.extend(["--search-exact-below", "0"]);
    let app = spawn_app_with(&api_flags).await;
    let _worker = start_worker(&app, &flags);
    let (_, models) = app
        .call(Method::GET, "/v1/indexes/models", Auth::None, None)
        .await;
    assert!(models["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == "provider-b-embedding-001" && m["available"] == true));
    let (_, k, index) = project_with_index(&app, "kb-provider-b", "provider-b-embedding-001").await;
    assert_eq!(index["dimensions"], 3072);
    let a = upload(
        &app,
        &k,
        &index,
        "Invoices are emailed to customers on the first of each month.",
        json!({"n": 1}),
    )
    .await;
    let b = upload(
        &app,
        &k,
        &index,
        "Passwords can be reset from the login page with an emailed link.",
        json!({"n": 2}),
    )
    .await;
    for d in [&a, &b] {
        assert_eq!(wait_done(&app, &k, &index, d).await["status"], "ready");
    }
    let results = search(
        &app,
        &k,
        &index,
        "when are invoices emailed to customers",
        2,
    )
    .await;
    assert_eq!(results[0]["metadata"]["n"], 1, "{results:?}");
    let types = fake.counters.last_input_type.lock().unwrap().clone();
    assert!(
        types.contains(&"RETRIEVAL_DOCUMENT".to_owned())
            && types.contains(&"RETRIEVAL_QUERY".to_owned()),
        "{types:?}"
    );
}

#[tokio::test]
async fn provider_a_retries_throttling_and_sends_input_types() {
    let fake = FakeProvider::start().await;
    let flags = leak(provider_flags(&fake));
    let app = spawn_app_with(&flags).await;
    let _worker = start_worker(&app, &flags);
    let (_, k, index) = project_with_index(&app, "kb-provider-a", "provider-a-4").await;
    assert_eq!(index["dimensions"], 1024);
    fake.counters.throttle_first.store(2, Ordering::SeqCst);
    let doc = upload(
        &app,
        &k,
        &index,
        "Refunds are processed within five business days.",
        json!({}),
    )
    .await;
    assert_eq!(wait_done(&app, &k, &index, &doc).await["status"], "ready");
    assert!(
        fake.counters.calls.load(Ordering::SeqCst) >= 3,
        "two 429s were retried"
    );
    let results = search(&app, &k, &index, "how long do refunds take", 1).await;
    assert_eq!(results.len(), 1);
    let types = fake.counters.last_input_type.lock().unwrap().clone();
    assert_eq!(types, ["document", "query"]);
}

#[tokio::test]
async fn a_document_the_provider_keeps_refusing_ends_failed_with_an_error() {
    let fake = FakeProvider::start().await;
    let flags = leak(provider_flags(&fake));
    let app = spawn_app_with(&flags).await;
    let mut worker_flags = flags.clone();
    worker_flags.extend(["--embed-max-attempts", "2"]);
    let _worker = start_worker(&app, &worker_flags);
    let (_, k, index) = project_with_index(&app, "kb-refused", "provider-a-4").await;
    fake.counters.refuse.store(true, Ordering::SeqCst);
    let doc = upload(&app, &k, &index, "This will never embed.", json!({})).await;
    let done = wait_done(&app, &k, &index, &doc).await;
    assert_eq!(done["status"], "failed");
    assert!(done["error"].as_str().unwrap().contains("400"), "{done}");
    let res = app
        .send(
            Method::POST,
            &format!("/v1/indexes/{}/search", id(&index)),
            Auth::Key(&k),
            Some(json!({"query": "x"})),
        )
        .await;
    assert_problem(res, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
}
