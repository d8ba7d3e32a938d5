//! Search over real corpora: metadata filters, keyword and hybrid modes, `chunk_index`, with the
//! real local model and a worker.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

/// Searches with a whole body; asserts 200 and returns the results.
pub async fn search_with(app: &TestApp, key: &str, index: &Value, body: Value) -> Vec<Value> {
    let path = format!("/v1/indexes/{}/search", id(index));
    let (status, res) = app
        .call(Method::POST, &path, Auth::Key(key), Some(body))
        .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    res["results"].as_array().expect("results").clone()
}

/// Uploads each (content, metadata) and waits until all are ready; returns the documents.
async fn corpus(app: &TestApp, key: &str, index: &Value, docs: &[(&str, Value)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (content, metadata) in docs {
        out.push(upload(app, key, index, content, metadata.clone()).await);
    }
    for doc in &out {
        assert_eq!(wait_done(app, key, index, doc).await["status"], "ready");
    }
    out
}

#[tokio::test]
async fn a_filter_keeps_only_documents_whose_metadata_matches_in_every_mode() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-filter", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let text = "How to reset your password: open settings, choose security, and press reset.";
    corpus(
        &app,
        &k,
        &index,
        &[
            (text, json!({"tenant": "acme", "tier": 1, "public": true})),
            (
                text,
                json!({"tenant": "globex", "tier": 2, "public": false}),
            ),
            (text, json!({"tenant": "initech", "tier": 2})),
            (
                "Shipping times for orders in Europe.",
                json!({"tenant": "acme", "tier": 3}),
            ),
        ],
    )
    .await;
    let tenants = |results: &[Value]| -> Vec<String> {
        let mut t: Vec<String> = results
            .iter()
            .map(|r| r["metadata"]["tenant"].as_str().unwrap().to_owned())
            .collect();
        t.sort();
        t.dedup();
        t
    };
    let all = search_with(
        &app,
        &k,
        &index,
        json!({"query": "reset password", "top_k": 10}),
    )
    .await;
    assert_eq!(tenants(&all), ["acme", "globex", "initech"]);
    for mode in ["vector", "keyword", "hybrid"] {
        let one = search_with(
            &app,
            &k,
            &index,
            json!({"query": "reset password", "mode": mode, "filter": {"tenant": "globex"}}),
        )
        .await;
        assert_eq!(tenants(&one), ["globex"], "{mode}");
        let listed = search_with(
            &app,
            &k,
            &index,
            json!({"query": "reset password", "mode": mode, "top_k": 10,
                   "filter": {"tenant": ["acme", "initech"], "tier": [1, 2]}}),
        )
        .await;
        assert_eq!(tenants(&listed), ["acme", "initech"], "{mode}");
        assert!(listed.iter().all(|r| r["metadata"]["tier"] != 3), "{mode}");
    }
    let public = search_with(
        &app,
        &k,
        &index,
        json!({"query": "password", "filter": {"public": true}}),
    )
    .await;
    assert_eq!(tenants(&public), ["acme"]);
    let none = search_with(
        &app,
        &k,
        &index,
        json!({"query": "password", "filter": {"tenant": "nobody"}}),
    )
    .await;
    assert!(none.is_empty());
}

#[tokio::test]
async fn keyword_search_finds_an_exact_code_that_vector_search_ranks_poorly() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-keyword", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let docs = corpus(
        &app,
        &k,
        &index,
        &[
            ("Error codes explained: every error code the server returns comes with an error message describing the failure.", json!({"n": 0})),
            ("When an error occurs, the API answers with an error code such as a validation error or a timeout error.", json!({"n": 1})),
            ("Troubleshooting errors: look up the error code in the table of error codes.", json!({"n": 2})),
            ("Our garden club meets on Tuesdays to plant tulips; see ticket ERR-4711 about the watering schedule.", json!({"n": 3})),
            ("Product SKU AB-1234-X is the blue teapot with a bamboo handle.", json!({"n": 4})),
        ],
    )
    .await;
    let target = &docs[3]["id"];
    let vector = search_with(&app, &k, &index, json!({"query": "ERR-4711", "top_k": 3})).await;
    assert_ne!(
        &vector[0]["document_id"], target,
        "vector search ranks the code poorly: {vector:?}"
    );
    let keyword = search_with(
        &app,
        &k,
        &index,
        json!({"query": "ERR-4711", "mode": "keyword"}),
    )
    .await;
    assert_eq!(keyword.len(), 1, "{keyword:?}");
    assert_eq!(&keyword[0]["document_id"], target);
    assert!(keyword[0]["score"].as_f64().unwrap() > 0.0);
    assert_eq!(keyword[0]["chunk_index"], 0);
    let sku = search_with(
        &app,
        &k,
        &index,
        json!({"query": "which teapot is AB-1234-X", "mode": "keyword"}),
    )
    .await;
    assert_eq!(sku[0]["document_id"], docs[4]["id"], "{sku:?}");
    // A query pasted from a Markdown table: runs of dashes made PostgreSQL's parser fail (a 500).
    for mode in ["keyword", "hybrid"] {
        search_with(
            &app,
            &k,
            &index,
            json!({"query": "| teapot | ------------------------------------------------ |", "mode": mode}),
        )
        .await;
    }

    // Hybrid: the code's document is first (ranked 1st by keyword, somewhere by vector), and every
    // score is a reciprocal rank fusion score: at most 2 / 61, at least 1 / (60 + 50).
    let hybrid = search_with(
        &app,
        &k,
        &index,
        json!({"query": "ERR-4711", "mode": "hybrid", "top_k": 5}),
    )
    .await;
    assert_eq!(&hybrid[0]["document_id"], target, "{hybrid:?}");
    assert_eq!(hybrid.len(), 5);
    for r in &hybrid {
        let s = r["score"].as_f64().unwrap();
        assert!((1.0 / 110.0 - 1e-9..=2.0 / 61.0 + 1e-9).contains(&s), "{s}");
        assert!(r["chunk_index"].is_i64());
    }
    let top = hybrid[0]["score"].as_f64().unwrap();
    let vector_rank = search_with(&app, &k, &index, json!({"query": "ERR-4711", "top_k": 20}))
        .await
        .iter()
        .position(|r| &r["document_id"] == target)
        .unwrap();
    let expected = 1.0 / 61.0 + 1.0 / (61.0 + vector_rank as f64);
    assert!((top - expected).abs() < 1e-9, "{top} != {expected}");
    assert!(hybrid
        .windows(2)
        .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()));
}

#[tokio::test]
async fn results_carry_their_chunks_place_in_the_document() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-ordinal", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let long: String = (0..120)
        .map(|i| format!("Paragraph {i} is about invoices and monthly billing cycles. "))
        .chain(["The final paragraph mentions the zebra mascot QX-77.".to_owned()])
        .collect();
    let doc = corpus(&app, &k, &index, &[(long.as_str(), json!({}))]).await;
    let last = doc[0]["chunks_created"].as_i64().unwrap() - 1;
    assert!(last > 2);
    let hit = search_with(
        &app,
        &k,
        &index,
        json!({"query": "QX-77", "mode": "keyword"}),
    )
    .await;
    assert_eq!(hit[0]["chunk_index"], last, "{hit:?}");
    let vector = search_with(&app, &k, &index, json!({"query": "invoices", "top_k": 20})).await;
    let mut places: Vec<i64> = vector
        .iter()
        .map(|r| r["chunk_index"].as_i64().unwrap())
        .collect();
    places.sort();
    places.dedup();
    assert_eq!(places.len(), vector.len(), "each result is its own chunk");
}

#[tokio::test]
async fn bad_modes_and_filters_are_refused_naming_the_field() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-bad-search", LOCAL_MODEL).await;
    let path = format!("/v1/indexes/{}/search", id(&index));
    let refused = |body: Value| {
        let app = &app;
        let (k, path) = (&k, &path);
        async move {
            app.refused(
                (Method::POST, path),
                Auth::Key(k),
                Some(body),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await
        }
    };
    let fields = |p: &Value| -> Vec<String> {
        p["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap().to_owned())
            .collect()
    };
    let p = refused(json!({"query": "x", "mode": "semantic"})).await;
    assert_eq!(fields(&p), ["mode"]);
    let p = refused(json!({"query": "x", "filter": {"tenant": {"$eq": "a"}, "ok": "b"}})).await;
    assert_eq!(fields(&p), ["filter.tenant"]);
    let p = refused(json!({"query": "x", "filter": {"tags": ["a", ["b"]], "n": [{"x": 1}]}})).await;
    let mut f = fields(&p);
    f.sort();
    assert_eq!(f, ["filter.n", "filter.tags"]);
    let p = refused(json!({"query": "x", "filter": ["tenant"]})).await;
    assert_eq!(fields(&p), ["filter"]);
    let p = refused(json!({"query": "", "mode": "hybrid", "filter": {"a": []}})).await;
    let mut f = fields(&p);
    f.sort();
    assert_eq!(f, ["filter.a", "query"]);
}

#[tokio::test]
async fn keyword_search_stems_in_the_documents_language() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-language", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let docs = corpus(
        &app,
        &k,
        &index,
        &[
            (
                "Die Verbindungen zum Server werden getrennt.",
                json!({"language": "de"}),
            ),
            ("All connections to the server are closed.", json!({})),
        ],
    )
    .await;
    let keyword = |query: &str, filter: Value| {
        search_with(
            &app,
            &k,
            &index,
            json!({"query": query, "mode": "keyword", "filter": filter}),
        )
    };
    // German stemming when the filter pins the language; English (the default) otherwise.
    let de = keyword("Verbindung", json!({"language": "de"})).await;
    assert_eq!(de.len(), 1, "{de:?}");
    assert_eq!(de[0]["document_id"], docs[0]["id"]);
    let en = keyword("connection", json!({})).await;
    assert_eq!(en.len(), 1, "{en:?}");
    assert_eq!(en[0]["document_id"], docs[1]["id"]);
    // The German document's words as written match an English-parsed query too.
    let exact = keyword("Verbindungen", json!({})).await;
    assert_eq!(exact.len(), 1, "{exact:?}");
    assert_eq!(exact[0]["document_id"], docs[0]["id"]);
}
