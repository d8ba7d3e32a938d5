//! Bulk loads into a 1,024-dimension index (provider A's vectors), searched through the sign-bit
//! graph and its re-ranking (the exact-scan threshold at 0): every chunk searchable exactly once,
//! the load's progress counted, a killed worker losing nothing, an upsert during the load winning
//! by version.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::fakes::FakeProvider;
use crate::helpers::*;
use crate::support::*;

const MODEL: &str = "provider-a-4";

fn provider(fake: &FakeProvider) -> Vec<&'static str> {
    let url: &'static str = Box::leak(fake.url.clone().into_boxed_str());
    vec!["--provider-a-url", url, "--provider-a-key", "key-a"]
}

/// An app whose searches always take the graph, with provider A at the fake.
async fn app_on_the_graph(fake: &FakeProvider) -> TestApp {
    let mut flags = provider(fake);
    flags.extend(["--search-exact-below", "0"]);
    spawn_app_with(&flags).await
}

/// Document `n`'s text: words of its own (so a search for it finds it first) and shared ones.
fn text(n: usize) -> String {
    format!(
        "Document alpha{n} explains topic{} and subject{} in notes{n} for readers{}.",
        n % 37,
        n % 53,
        n % 11
    )
}

/// Uploads documents `from..from + n` in batches of 100 (external ids `doc-<n>`); their ids.
async fn load(app: &TestApp, key: &str, index: &Value, from: usize, n: usize) -> Vec<String> {
    let path = format!("/v1/indexes/{}/documents/batch", id(index));
    let mut ids = Vec::new();
    for start in (from..from + n).step_by(100) {
        let documents: Vec<Value> = (start..(start + 100).min(from + n))
            .map(|i| json!({"content": text(i), "external_id": format!("doc-{i}"), "metadata": {"n": i}}))
            .collect();
        let (status, body) = app
            .call(
                Method::POST,
                &path,
                Auth::Key(key),
                Some(json!({ "documents": documents })),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        ids.extend(
            body["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| id(d).to_owned()),
        );
    }
    ids
}

async fn counts(app: &TestApp, key: &str, index: &Value) -> Value {
    let path = format!("/v1/indexes/{}", id(index));
    let (status, body) = app.call(Method::GET, &path, Auth::Key(key), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Polls the index until no document is pending (deadline: 120 s); its counts then.
async fn until_loaded(app: &TestApp, key: &str, index: &Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let c = counts(app, key, index).await;
        if c["documents_pending"] == 0 {
            return c;
        }
        assert!(Instant::now() < deadline, "still loading: {c}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every `step`th document is the first result for its own text, and no chunk comes back twice.
async fn each_found_once(app: &TestApp, key: &str, index: &Value, ids: &[String], step: usize) {
    for (n, doc) in ids.iter().enumerate().step_by(step) {
        let results = search(app, key, index, &text(n), 10).await;
        assert_eq!(
            results[0]["document_id"],
            doc.as_str(),
            "document {n} first for its text"
        );
        assert!(
            results[0]["score"].as_f64().unwrap() > 0.99,
            "{}",
            results[0]
        );
        let distinct: HashSet<(String, i64)> = results
            .iter()
            .map(|r| {
                (
                    r["document_id"].as_str().unwrap().to_owned(),
                    r["chunk_index"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            distinct.len(),
            results.len(),
            "a chunk twice in {results:?}"
        );
    }
}

#[tokio::test]
async fn a_bulk_load_is_searchable_exactly_once_and_counts_its_progress() {
    let fake = FakeProvider::start().await;
    let app = app_on_the_graph(&fake).await;
    let (_, k, index) = project_with_index(&app, "kb-bulk", MODEL).await;
    let ids = load(&app, &k, &index, 0, 600).await;
    let before = counts(&app, &k, &index).await;
    assert_eq!(
        (
            &before["document_count"],
            &before["documents_pending"],
            &before["documents_ready"]
        ),
        (&json!(600), &json!(600), &json!(0)),
        "{before}"
    );
    let _worker = start_worker(&app, &provider(&fake));
    let after = until_loaded(&app, &k, &index).await;
    assert_eq!(
        (
            &after["documents_ready"],
            &after["documents_failed"],
            &after["chunk_count"]
        ),
        (&json!(600), &json!(0), &json!(600)),
        "{after}"
    );
    each_found_once(&app, &k, &index, &ids, 7).await;
    // A broad query meets many documents, each once.
    let broad = search(&app, &k, &index, "topic3 subject5 readers2", 20).await;
    let docs: HashSet<&str> = broad
        .iter()
        .map(|r| r["document_id"].as_str().unwrap())
        .collect();
    assert_eq!((broad.len(), docs.len()), (20, 20));
}

/// SIGKILL mid-load leaves claimed documents leased; when the lease runs out another worker
/// finishes them, and no chunk is stored twice.
#[tokio::test]
async fn a_worker_killed_mid_bulk_load_loses_nothing() {
    let fake = FakeProvider::start().await;
    fake.counters.delay_ms.store(300, Ordering::SeqCst);
    let app = app_on_the_graph(&fake).await;
    let (_, k, index) = project_with_index(&app, "kb-bulk-kill", MODEL).await;
    let ids = load(&app, &k, &index, 0, 600).await;
    let mut flags = provider(&fake);
    flags.extend(["--embed-lease-secs", "3", "--embed-claim-chunks", "8"]);
    let mut first = spawn_worker_process(&app, &flags);
    let deadline = Instant::now() + Duration::from_secs(60);
    while counts(&app, &k, &index).await["documents_ready"] == 0 {
        assert!(
            Instant::now() < deadline,
            "the first worker never readied a document"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill().expect("kill -9");
    first.wait().expect("reaped");
    let at_kill = counts(&app, &k, &index).await;
    println!("killed the worker at {at_kill}");
    assert!(
        at_kill["documents_pending"].as_i64().unwrap() > 0,
        "the kill came too late"
    );

    fake.counters.delay_ms.store(0, Ordering::SeqCst);
    let _second = start_worker(&app, &flags);
    let after = until_loaded(&app, &k, &index).await;
    assert_eq!(
        (&after["documents_ready"], &after["chunk_count"]),
        (&json!(600), &json!(600)),
        "{after}"
    );
    each_found_once(&app, &k, &index, &ids, 11).await;
}

/// Documents replaced while the load embeds them end with their newest version only, whichever
/// finished first: the worker's write of an old version never goes live over a newer one.
#[tokio::test]
async fn an_upsert_during_a_bulk_load_wins_by_version() {
    let fake = FakeProvider::start().await;
    fake.counters.delay_ms.store(200, Ordering::SeqCst);
    let app = app_on_the_graph(&fake).await;
    let (_, k, index) = project_with_index(&app, "kb-bulk-upsert", MODEL).await;
    let ids = load(&app, &k, &index, 0, 400).await;
    let _worker = start_worker(&app, &provider(&fake));
    // Replaced while some are ready, some being embedded and some still waiting.
    let deadline = Instant::now() + Duration::from_secs(60);
    while counts(&app, &k, &index).await["documents_ready"] == 0 {
        assert!(Instant::now() < deadline, "nothing became ready");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let replaced: Vec<usize> = (0..400).step_by(23).collect();
    let newer = |n: usize| format!("Replaced version beta{n} of document {n} about gamma{n}.");
    for &n in &replaced {
        let path = format!(
            "/v1/indexes/{}/documents/by-external-id/doc-{n}",
            id(&index)
        );
        let (status, body) = app
            .call(
                Method::PUT,
                &path,
                Auth::Key(&k),
                Some(json!({"content": newer(n)})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["id"], ids[n].as_str());
    }
    let after = until_loaded(&app, &k, &index).await;
    assert_eq!(
        (&after["documents_ready"], &after["chunk_count"]),
        (&json!(400), &json!(400)),
        "{after}"
    );
    for &n in &replaced {
        let path = format!("/v1/indexes/{}/documents/{}/chunks", id(&index), ids[n]);
        let (_, chunks) = app.call(Method::GET, &path, Auth::Key(&k), None).await;
        assert_eq!(chunks["data"][0]["content"], newer(n).as_str(), "{chunks}");
        let found = search(&app, &k, &index, &newer(n), 3).await;
        assert_eq!(found[0]["chunk_content"], newer(n).as_str());
        // The old version is searchable nowhere.
        let old = search(&app, &k, &index, &text(n), 10).await;
        assert!(
            old.iter().all(|r| r["chunk_content"] != text(n).as_str()),
            "document {n}'s old text is still searchable: {old:?}"
        );
    }
}
