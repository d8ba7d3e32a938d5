use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

async fn statuses(app: &TestApp, key: &str, index: &Value) -> Vec<String> {
    let (_, page) = app
        .call(
            Method::GET,
            &format!("/v1/indexes/{}/documents?per_page=100", id(index)),
            Auth::Key(key),
            None,
        )
        .await;
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["status"].as_str().unwrap().to_owned())
        .collect()
}

/// A worker killed with SIGKILL mid-batch leaves its claimed documents leased; once the lease runs
/// out a fresh worker finishes every one, and no chunk is stored twice.
#[tokio::test]
async fn a_killed_worker_loses_no_document() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-kill", LOCAL_MODEL).await;
    let text: String = (0..120)
        .map(|i| format!("Sentence {i} about deployment pipelines, retries and queues. "))
        .collect();
    let mut expected_chunks = 0;
    for n in 0..40 {
        let doc = upload(
            &app,
            &k,
            &index,
            &format!("Document {n}. {text}"),
            json!({"n": n}),
        )
        .await;
        expected_chunks += doc["chunks_created"].as_i64().unwrap();
    }
    let mut first = spawn_worker_process(&app, &["--embed-lease-secs", "3", "--embed-claim", "4"]);
    // Kill it as soon as it has made progress, while documents are still pending.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = statuses(&app, &k, &index).await;
        if s.iter().any(|s| s == "ready") || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill().expect("kill -9");
    first.wait().expect("reaped");
    let after_kill = statuses(&app, &k, &index).await;
    let pending = after_kill.iter().filter(|s| *s == "pending").count();
    println!("killed the worker with {pending} of 40 documents pending");
    assert!(pending > 0, "the kill came too late to test anything");

    let _second = start_worker(&app, &["--embed-lease-secs", "3"]);
    let deadline = Instant::now() + Duration::from_secs(90);
    while statuses(&app, &k, &index)
        .await
        .iter()
        .any(|s| s != "ready")
    {
        assert!(Instant::now() < deadline, "documents left pending");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, list) = app
        .call(Method::GET, "/v1/indexes", Auth::Key(&k), None)
        .await;
    assert_eq!(
        list["data"][0]["chunk_count"].as_i64(),
        Some(expected_chunks),
        "no chunk duplicated"
    );
    assert_eq!(
        search(&app, &k, &index, "deployment pipelines", 20)
            .await
            .len(),
        20
    );
}

/// Documents uploaded while no worker runs, and whose queued jobs are then deleted or lost, are
/// handled by the next worker: a deleted document's job is a no-op.
#[tokio::test]
async fn queued_jobs_for_deleted_documents_are_no_ops() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-deleted", LOCAL_MODEL).await;
    let gone = upload(
        &app,
        &k,
        &index,
        "This one is deleted before any worker runs.",
        json!({}),
    )
    .await;
    let kept = upload(
        &app,
        &k,
        &index,
        "This one stays and gets embedded.",
        json!({}),
    )
    .await;
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/indexes/{}/documents/{}", id(&index), id(&gone)),
            Auth::Key(&k),
            None,
        )
        .await;
    assert!(status.is_success());
    let _worker = start_worker(&app, &[]);
    assert_eq!(wait_done(&app, &k, &index, &kept).await["status"], "ready");
    let (_, list) = app
        .call(Method::GET, "/v1/indexes", Auth::Key(&k), None)
        .await;
    assert_eq!(
        (
            list["data"][0]["document_count"].as_i64(),
            list["data"][0]["chunk_count"].as_i64()
        ),
        (Some(1), Some(1))
    );
}
