use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

#[tokio::test]
async fn the_models_list_has_the_catalogue_and_the_bundled_local_model() {
    let app = spawn_app().await;
    let (status, body) = app
        .call(Method::GET, "/v1/indexes/models", Auth::None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let models = body["data"].as_array().unwrap();
    for (id, dims) in [
        ("provider-a-4-large", 1024),
        ("provider-a-4", 1024),
        ("provider-a-4-lite", 1024),
        ("provider-a-code-3", 1024),
        ("provider-b-embedding-001", 3072),
        ("@edge/base-en-v1.5", 768),
        ("@edge/large-en-v1.5", 1024),
        ("@edge/m3", 1024),
    ] {
        let m = models
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("{id} missing"));
        assert_eq!(m["dimensions"], dims);
        assert!(m["description"].is_string());
        assert!(m["available"].is_boolean());
    }
    let provider = models.iter().find(|m| m["id"] == "provider-a-4").unwrap();
    assert_eq!(provider["available"], false, "no key configured");
    let local = models
        .iter()
        .find(|m| m["id"] == LOCAL_MODEL)
        .expect("the bundled model is installed by scripts/setup");
    assert_eq!(
        (local["dimensions"].as_i64(), local["available"].as_bool()),
        (Some(384), Some(true))
    );
}

#[tokio::test]
async fn the_first_index_locks_the_projects_model() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("kb-lock").await;
    let k = key(&project);
    let res = app
        .send(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "a"})),
        )
        .await;
    assert_problem(
        res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "embedding_model_required",
    )
    .await;
    let res = app
        .send(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "a", "embedding_model": "no-such-model"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "unknown_model").await;
    let res = app
        .send(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "a", "embedding_model": "provider-a-4"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "model_unavailable").await;

    let (status, first) = app
        .call(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "a", "embedding_model": LOCAL_MODEL, "external_id": "ext-1"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        (
            first["name"].as_str(),
            first["embedding_model"].as_str(),
            first["dimensions"].as_i64()
        ),
        (Some("a"), Some(LOCAL_MODEL), Some(384))
    );
    assert_eq!(
        (
            first["external_id"].as_str(),
            first["document_count"].as_i64(),
            first["chunk_count"].as_i64()
        ),
        (Some("ext-1"), Some(0), Some(0))
    );
    assert_eq!(first["project_id"], project["id"]);

    let res = app
        .send(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "a", "embedding_model": LOCAL_MODEL})),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "conflict").await;
    let res = app
        .send(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "b", "embedding_model": "@edge/m3"})),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "embedding_model_locked").await;
    let (status, second) = app
        .call(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "b"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(second["embedding_model"], LOCAL_MODEL);

    let (_, list) = app
        .call(Method::GET, "/v1/indexes", Auth::Key(k), None)
        .await;
    assert_eq!(list["data"].as_array().unwrap().len(), 2);
    let (status, del) = app
        .call(
            Method::DELETE,
            &format!("/v1/indexes/{}", id(&second)),
            Auth::Key(k),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(del, json!({"id": second["id"], "deleted": true}));
    let res = app
        .send(
            Method::DELETE,
            &format!("/v1/indexes/{}", id(&second)),
            Auth::Key(k),
            None,
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn another_projects_index_is_not_found() {
    let app = spawn_app().await;
    let (_, _, index) = project_with_index(&app, "kb-mine", LOCAL_MODEL).await;
    let (_, other) = app.owner_with_project("kb-theirs").await;
    let k = key(&other);
    let i = id(&index);
    for (method, path, body) in [
        (
            Method::POST,
            format!("/v1/indexes/{i}/documents"),
            Some(json!({"content": "x"})),
        ),
        (Method::GET, format!("/v1/indexes/{i}/documents"), None),
        (
            Method::POST,
            format!("/v1/indexes/{i}/search"),
            Some(json!({"query": "x"})),
        ),
        (Method::DELETE, format!("/v1/indexes/{i}"), None),
        (
            Method::GET,
            "/v1/indexes/not-a-uuid/documents".to_owned(),
            None,
        ),
    ] {
        let res = app.send(method, &path, Auth::Key(k), body).await;
        assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    }
    let res = app.send(Method::GET, "/v1/indexes", Auth::None, None).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn uploads_are_validated_chunked_and_listed_newest_first() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-docs", LOCAL_MODEL).await;
    let docs_path = format!("/v1/indexes/{}/documents", id(&index));

    let too_big = "a".repeat(102_401);
    let res = app
        .send(
            Method::POST,
            &docs_path,
            Auth::Key(&k),
            Some(json!({"content": too_big})),
        )
        .await;
    assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    let (status, _) = app
        .call(
            Method::POST,
            &docs_path,
            Auth::Key(&k),
            Some(json!({"content": "a ".repeat(51_200)})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "exactly 102,400 bytes is allowed"
    );
    for bad in [
        json!({"content": ""}),
        json!({}),
        json!({"content": 5}),
        json!({"content": "x", "metadata": [1]}),
    ] {
        let res = app
            .send(Method::POST, &docs_path, Auth::Key(&k), Some(bad))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    }

    let long: String = (0..300).map(|i| format!("Paragraph {i} explains how invoices are generated and sent to customers every month. ")).collect();
    let doc = upload(&app, &k, &index, &long, json!({"source": "billing.md"})).await;
    assert!(doc["chunks_created"].as_i64().unwrap() > 5, "{doc}");
    assert_eq!(doc["status"], "pending");
    assert_eq!(doc["index_id"], index["id"]);
    assert_eq!(doc["metadata"], json!({"source": "billing.md"}));
    assert!(doc["created_at"].is_string());
    let short = upload(&app, &k, &index, "One short note.", json!({})).await;
    assert_eq!(short["chunks_created"], 1);

    let (_, page) = app
        .call(
            Method::GET,
            &format!("{docs_path}?page=1&per_page=2"),
            Auth::Key(&k),
            None,
        )
        .await;
    assert_eq!(
        (
            page["page"].as_i64(),
            page["per_page"].as_i64(),
            page["total"].as_i64()
        ),
        (Some(1), Some(2), Some(3))
    );
    assert_eq!(page["data"][0]["id"], short["id"], "newest first");
    let (_, page2) = app
        .call(
            Method::GET,
            &format!("{docs_path}?page=2&per_page=2"),
            Auth::Key(&k),
            None,
        )
        .await;
    assert_eq!(page2["data"].as_array().unwrap().len(), 1);
    let (_, default_page) = app.call(Method::GET, &docs_path, Auth::Key(&k), None).await;
    assert_eq!(default_page["per_page"], 20);
    for q in ["page=0", "per_page=101", "page=x"] {
        let res = app
            .send(
                Method::GET,
                &format!("{docs_path}?{q}"),
                Auth::Key(&k),
                None,
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    }

    let doc_path = format!("{docs_path}/{}", id(&short));
    let (status, shown) = app.call(Method::GET, &doc_path, Auth::Key(&k), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["id"], short["id"]);
    let (status, del) = app
        .call(Method::DELETE, &doc_path, Auth::Key(&k), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(del, json!({"id": short["id"], "deleted": true}));
    let res = app.send(Method::GET, &doc_path, Auth::Key(&k), None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn search_ranks_each_topics_document_first_with_the_real_local_model() {
    let app = spawn_app().await;
    let _worker = start_worker(&app, &[]);
    let (_, k, index) = project_with_index(&app, "kb-relevance", LOCAL_MODEL).await;
    let topics = [
        ("cats", "Cats are small domesticated felines. They purr, groom their fur and love to chase mice and laser pointers."),
        ("bread", "To bake sourdough bread, mix flour, water and starter, let the dough rise overnight, then bake it in a hot oven."),
        ("rates", "The central bank raised interest rates to fight inflation, and bond yields climbed while stock prices fell."),
        ("space", "The rocket launched the satellite into orbit around the Earth; astronauts aboard the space station watched."),
    ];
    let mut docs = Vec::new();
    for (topic, text) in topics {
        docs.push(upload(&app, &k, &index, text, json!({"topic": topic})).await);
    }
    for d in &docs {
        assert_eq!(wait_done(&app, &k, &index, d).await["status"], "ready");
    }
    for (topic, query) in [
        ("cats", "my kitten keeps purring"),
        ("bread", "how do I make a loaf at home"),
        ("rates", "why did the Fed tighten monetary policy"),
        ("space", "launching satellites into orbit"),
    ] {
        let results = search(&app, &k, &index, query, 4).await;
        assert_eq!(results.len(), 4);
        assert_eq!(
            results[0]["metadata"]["topic"], topic,
            "{query}: {results:?}"
        );
        let scores: Vec<f64> = results
            .iter()
            .map(|r| r["score"].as_f64().unwrap())
            .collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "sorted by similarity: {scores:?}"
        );
        assert!(results[0]["chunk_content"].as_str().unwrap().len() > 10);
        assert!(results[0]["document_id"].is_string());
    }
    let default_k = search(&app, &k, &index, "cats", 5).await;
    assert_eq!(default_k.len(), 4, "never more than there are chunks");
    let path = format!("/v1/indexes/{}/search", id(&index));
    let (_, body) = app
        .call(
            Method::POST,
            &path,
            Auth::Key(&k),
            Some(json!({"query": "cats"})),
        )
        .await;
    assert_eq!(body["results"].as_array().unwrap().len(), 4);
    for bad in [
        json!({"query": ""}),
        json!({"query": "x", "top_k": 0}),
        json!({"query": "x", "top_k": 21}),
        json!({"top_k": 3}),
    ] {
        let res = app
            .send(Method::POST, &path, Auth::Key(&k), Some(bad))
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    }

    // Deleting a document removes its chunks from search.
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/indexes/{}/documents/{}", id(&index), id(&docs[0])),
            Auth::Key(&k),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let results = search(&app, &k, &index, "my kitten keeps purring", 5).await;
    assert!(results.iter().all(|r| r["metadata"]["topic"] != "cats"));
    let (_, list) = app
        .call(Method::GET, "/v1/indexes", Auth::Key(&k), None)
        .await;
    assert_eq!(
        (
            list["data"][0]["document_count"].as_i64(),
            list["data"][0]["chunk_count"].as_i64()
        ),
        (Some(3), Some(3))
    );
}

#[tokio::test]
async fn pending_documents_are_not_searched() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-pending", LOCAL_MODEL).await;
    upload(
        &app,
        &k,
        &index,
        "Nobody has embedded this yet.",
        Value::Null,
    )
    .await;
    assert!(search(&app, &k, &index, "embedded", 5).await.is_empty());
}

/// Statuses of the index's documents (at most 100).
async fn statuses(app: &TestApp, key: &str, index: &Value) -> Vec<String> {
    let path = format!("/v1/indexes/{}/documents?per_page=100", id(index));
    let (_, page) = app.call(Method::GET, &path, Auth::Key(key), None).await;
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["status"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn another_projects_search_is_answered_while_a_bulk_upload_is_embedded() {
    let app = spawn_app().await;
    let _worker = start_worker(&app, &[]);
    let (_, kb, index_b) = project_with_index(&app, "kb-fair-b", LOCAL_MODEL).await;
    let doc = upload(
        &app,
        &kb,
        &index_b,
        "Lighthouse keepers trim the lamp's wick every evening before the ships pass the reef.",
        json!({"topic": "lighthouse"}),
    )
    .await;
    assert_eq!(
        wait_done(&app, &kb, &index_b, &doc).await["status"],
        "ready"
    );

    // Project A: 30 documents of ~8 KB, a few hundred chunks for the worker.
    let (_, ka, index_a) = project_with_index(&app, "kb-fair-a", LOCAL_MODEL).await;
    for i in 0..30 {
        let content: String = (0..80)
            .map(|j| format!("Shipment {i}-{j} left the warehouse with {j} crates of parts for the assembly line. "))
            .collect();
        upload(&app, &ka, &index_a, &content, json!({"i": i})).await;
    }
    // Wait until the worker is in the middle of A's upload: some documents ready, others not.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !statuses(&app, &ka, &index_a)
        .await
        .iter()
        .any(|s| s == "ready")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the worker never embedded A's documents"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for query in [
        "who looks after the lamp",
        "ships passing a reef at night",
        "keeping a light burning",
    ] {
        let results = search(&app, &kb, &index_b, query, 3).await;
        assert_eq!(results[0]["metadata"]["topic"], "lighthouse", "{results:?}");
    }
    assert!(
        statuses(&app, &ka, &index_a)
            .await
            .iter()
            .any(|s| s == "pending"),
        "B's searches were answered while A's documents were still being embedded"
    );
}
