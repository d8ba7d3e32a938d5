//! Ingestion for real corpora: upsert and delete by external id, batches, content types and
//! files, with the real local model and a worker.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::kb_search_modes::search_with;
use crate::support::*;

fn paragraphs(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("## Section {i}\n\nSection {i} of the {tag} guide explains step {i} of setting up the service in detail, with care.\n\n"))
        .collect()
}

async fn put(
    app: &TestApp,
    key: &str,
    index: &Value,
    ext: &str,
    body: Value,
) -> (StatusCode, Value) {
    let path = format!("/v1/indexes/{}/documents/by-external-id/{ext}", id(index));
    app.call(Method::PUT, &path, Auth::Key(key), Some(body))
        .await
}

#[tokio::test]
async fn upserting_by_external_id_replaces_the_document_and_reuses_unchanged_chunks() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-upsert", LOCAL_MODEL).await;
    let worker = start_worker(&app, &[]);
    let v1 = paragraphs("install", 40);
    let (status, first) = put(
        &app,
        &k,
        &index,
        "guide-1",
        json!({"content": v1, "metadata": {"v": 1}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(
        (
            first["external_id"].as_str(),
            first["chunks_reused"].as_i64()
        ),
        (Some("guide-1"), Some(0))
    );
    let n = first["chunks_created"].as_i64().unwrap();
    assert!(n > 3, "{first}");
    assert_eq!(wait_done(&app, &k, &index, &first).await["status"], "ready");
    drop(worker);

    // The same text again: every chunk keeps its vector, the document is ready at once (no
    // worker runs now: nothing was embedded), and the new metadata replaced the old.
    let (status, same) = put(
        &app,
        &k,
        &index,
        "guide-1",
        json!({"content": v1, "metadata": {"v": 2}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{same}");
    assert_eq!(same["id"], first["id"]);
    assert_eq!(
        (same["chunks_reused"].as_i64(), same["status"].as_str()),
        (Some(n), Some("ready"))
    );
    assert_eq!(same["metadata"], json!({"v": 2}));

    // Exactly what is live, sent again (a sync re-sending its corpus): answered the same, and
    // nothing is written, neither the document's row nor its chunks.
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let written = || async {
        sqlx::query_as::<_, (String, Vec<uuid::Uuid>)>(
            "select d.xmin::text, array(select id from kb_chunks where document_id = d.id order by id)
             from kb_documents d where d.id = $1::uuid",
        )
        .bind(id(&first))
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    let before = written().await;
    let (status, again) = put(
        &app,
        &k,
        &index,
        "guide-1",
        json!({"content": v1, "metadata": {"v": 2}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(
        (
            again["id"].clone(),
            again["chunks_reused"].as_i64(),
            again["status"].as_str()
        ),
        (first["id"].clone(), Some(n), Some("ready"))
    );
    assert_eq!(written().await, before, "an unchanged upsert wrote nothing");
    // Different bytes, the same chunks (a trailing newline): compared chunk by chunk, still no write.
    let (status, again) = put(
        &app,
        &k,
        &index,
        "guide-1",
        json!({"content": format!("{v1}\n\n"), "metadata": {"v": 2}}),
    )
    .await;
    assert_eq!(
        (status, again["chunks_reused"].as_i64()),
        (StatusCode::OK, Some(n))
    );
    assert_eq!(written().await, before, "the same chunks wrote nothing");
    let found = search_with(
        &app,
        &k,
        &index,
        json!({"query": "install guide", "filter": {"v": 2}, "mode": "keyword"}),
    )
    .await;
    assert!(!found.is_empty());
    let old_meta = search_with(
        &app,
        &k,
        &index,
        json!({"query": "install guide", "filter": {"v": 1}, "mode": "keyword"}),
    )
    .await;
    assert!(old_meta.is_empty(), "{old_meta:?}");

    // Change the last section only: the rest is reused; until the new chunk has its vector the
    // old version is what search sees, whole.
    let v2 = v1.replace(
        "Section 39 of the install guide",
        "Section 39 now covers the flamingo QZ-9 backup",
    );
    let (status, changed) = put(&app, &k, &index, "guide-1", json!({"content": v2})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(changed["status"], "pending");
    let reused = changed["chunks_reused"].as_i64().unwrap();
    assert!(reused >= n - 2 && reused < n, "{reused} of {n}");
    // The document's chunks are the new version's, in order: reused ones already have a vector.
    let chunks_path = format!(
        "/v1/indexes/{}/documents/{}/chunks",
        id(&index),
        id(&changed)
    );
    let chunks = app.ok(Method::GET, &chunks_path, Auth::Key(&k), None).await;
    let chunks = chunks["data"].as_array().unwrap();
    assert_eq!(
        chunks.len() as i64,
        changed["chunks_created"].as_i64().unwrap()
    );
    let order: Vec<i64> = chunks
        .iter()
        .map(|c| c["chunk_index"].as_i64().unwrap())
        .collect();
    assert_eq!(order, (0..chunks.len() as i64).collect::<Vec<_>>());
    let ready = chunks.iter().filter(|c| c["ready"] == true).count() as i64;
    assert_eq!(ready, reused);
    assert!(chunks
        .iter()
        .any(|c| c["ready"] == false && c["content"].as_str().unwrap().contains("flamingo QZ-9")));
    let during = search_with(
        &app,
        &k,
        &index,
        json!({"query": "install guide", "mode": "keyword", "top_k": 20}),
    )
    .await;
    assert!(
        during.iter().all(|r| r["metadata"] == json!({"v": 2})),
        "old chunks, old metadata: {during:?}"
    );
    assert!(search_with(
        &app,
        &k,
        &index,
        json!({"query": "QZ-9", "mode": "keyword"})
    )
    .await
    .is_empty());
    let _worker = start_worker(&app, &[]);
    let done = wait_done(&app, &k, &index, &changed).await;
    assert_eq!(done["status"], "ready");
    let now = search_with(
        &app,
        &k,
        &index,
        json!({"query": "QZ-9", "mode": "keyword"}),
    )
    .await;
    assert_eq!(now.len(), 1);
    assert_eq!(now[0]["metadata"], json!({}));
    let (_, listed) = app
        .call(Method::GET, "/v1/indexes", Auth::Key(&k), None)
        .await;
    assert_eq!(
        listed["data"][0]["chunk_count"], changed["chunks_created"],
        "old chunks are gone"
    );
    assert_eq!(listed["data"][0]["document_count"], 1);

    // Deleting by external id.
    let path = format!(
        "/v1/indexes/{}/documents/by-external-id/guide-1",
        id(&index)
    );
    let (status, del) = app.call(Method::DELETE, &path, Auth::Key(&k), None).await;
    assert_eq!(
        (status, del),
        (StatusCode::OK, json!({"id": first["id"], "deleted": true}))
    );
    app.refused(
        (Method::DELETE, &path),
        Auth::Key(&k),
        None,
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
}

#[tokio::test]
async fn external_ids_are_checked_and_unique_in_an_index() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-extid", LOCAL_MODEL).await;
    let docs = format!("/v1/indexes/{}/documents", id(&index));
    let long = "x".repeat(257);
    let (status, p) = put(&app, &k, &index, &long, json!({"content": "Text."})).await;
    assert_eq!(
        (status, p["errors"][0]["field"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("external_id"))
    );
    for bad in [json!(long), json!(""), json!(5)] {
        app.refused(
            (Method::POST, &docs),
            Auth::Key(&k),
            Some(json!({"content": "Text.", "external_id": bad})),
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
        )
        .await;
    }
    let ok = "y".repeat(256);
    let (status, doc) = app
        .call(
            Method::POST,
            &docs,
            Auth::Key(&k),
            Some(json!({"content": "Text.", "external_id": ok})),
        )
        .await;
    assert_eq!(
        (status, doc["external_id"].as_str()),
        (StatusCode::CREATED, Some(ok.as_str()))
    );
    app.refused(
        (Method::POST, &docs),
        Auth::Key(&k),
        Some(json!({"content": "Again.", "external_id": ok})),
        (StatusCode::CONFLICT, "conflict"),
    )
    .await;
    let (_, plain) = app
        .call(
            Method::POST,
            &docs,
            Auth::Key(&k),
            Some(json!({"content": "No id."})),
        )
        .await;
    assert_eq!(plain["external_id"], Value::Null);
    let (status, _) = put(&app, &k, &index, &ok, json!({"content": "Replaced."})).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_batch_is_stored_whole_in_order_or_not_at_all() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-batch", LOCAL_MODEL).await;
    let batch = format!("/v1/indexes/{}/documents/batch", id(&index));
    let docs = format!("/v1/indexes/{}/documents", id(&index));
    let (status, p) = app
        .call(
            Method::POST,
            &batch,
            Auth::Key(&k),
            Some(json!({"documents": [
                {"content": "Fine."},
                {"content": ""},
                {"content": "Fine too.", "metadata": [1], "external_id": "a"},
                {"content": "Dup.", "external_id": "a", "content_type": "application/pdf"},
                "not an object",
            ]})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{p}");
    let mut fields: Vec<&str> = p["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "documents[1].content",
            "documents[2].metadata",
            "documents[3].content_type",
            "documents[4]"
        ]
    );
    let (_, listed) = app.call(Method::GET, &docs, Auth::Key(&k), None).await;
    assert_eq!(listed["total"], 0, "nothing stored");
    let many: Vec<Value> = (0..101)
        .map(|i| json!({"content": format!("Doc {i}.")}))
        .collect();
    app.refused(
        (Method::POST, &batch),
        Auth::Key(&k),
        Some(json!({"documents": many})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    app.refused(
        (Method::POST, &batch),
        Auth::Key(&k),
        Some(json!({"documents": []})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;

    let items: Vec<Value> = (0..100)
        .map(|i| json!({"content": format!("# Doc {i}\n\n{}", paragraphs("batch", 1 + i % 3)), "external_id": format!("b-{i}"), "metadata": {"i": i}}))
        .collect();
    let (status, stored) = app
        .call(
            Method::POST,
            &batch,
            Auth::Key(&k),
            Some(json!({"documents": items})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{stored}");
    let data = stored["data"].as_array().unwrap();
    assert_eq!(data.len(), 100);
    for (i, d) in data.iter().enumerate() {
        assert_eq!(
            (d["external_id"].as_str(), d["metadata"]["i"].as_u64()),
            (Some(format!("b-{i}").as_str()), Some(i as u64))
        );
        assert_eq!(d["status"], "pending");
    }
    // One external id already taken: the whole batch is refused, nothing more is stored.
    let (status, _) = app.call(Method::POST, &batch, Auth::Key(&k), Some(json!({"documents": [{"content": "New."}, {"content": "Old.", "external_id": "b-7"}]}))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (_, listed) = app.call(Method::GET, &docs, Auth::Key(&k), None).await;
    assert_eq!(listed["total"], 100);
    let _worker = start_worker(&app, &[]);
    assert_eq!(
        wait_done(&app, &k, &index, &data[99]).await["status"],
        "ready"
    );
}

pub const PAGE: &str = r#"<!doctype html><html><head><title>Ignored title</title>
<style>.secret { color: red }</style><script>var token = "SCRIPTWORD";</script></head>
<body><nav>Home</nav><h1>Webhooks</h1><p>Webhooks deliver   events to your server.</p>
<h2>Retries</h2><p>Failed deliveries are retried with the code WH-5001.</p>
<script>console.log("SCRIPTWORD")</script></body></html>"#;

#[tokio::test]
async fn html_keeps_visible_text_and_headings_and_drops_scripts_and_styles() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-html", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let docs = format!("/v1/indexes/{}/documents", id(&index));
    let (status, doc) = app
        .call(
            Method::POST,
            &docs,
            Auth::Key(&k),
            Some(json!({"content": PAGE, "content_type": "text/html"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{doc}");
    assert_eq!(wait_done(&app, &k, &index, &doc).await["status"], "ready");
    let hits = search_with(
        &app,
        &k,
        &index,
        json!({"query": "WH-5001", "mode": "keyword"}),
    )
    .await;
    let text = hits[0]["chunk_content"].as_str().unwrap();
    assert!(
        text.contains("# Webhooks") && text.contains("## Retries"),
        "{text}"
    );
    assert!(text.contains("Webhooks deliver events"), "{text}");
    for gone in ["SCRIPTWORD", "secret", "Ignored title", "<p>"] {
        assert!(!text.contains(gone), "{gone} in {text}");
    }
    assert!(search_with(
        &app,
        &k,
        &index,
        json!({"query": "SCRIPTWORD", "mode": "keyword"})
    )
    .await
    .is_empty());
    app.refused(
        (Method::POST, &docs),
        Auth::Key(&k),
        Some(json!({"content": "<script>only()</script>", "content_type": "text/html"})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
}
