//! Uploaded files keep their name (contract part 3, "The first hour"): search results show the
//! `filename` the upload put in the metadata, and filters match it. With a worker and the real
//! local model.

use reqwest::multipart::{Form, Part};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::*;
use crate::kb_search_modes::search_with;
use crate::support::*;

#[tokio::test]
async fn search_results_name_the_file_a_chunk_came_from() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-file-names", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let mut docs = Vec::new();
    for (name, text) in [
        (
            "release-notes.md",
            "# Release notes\n\nVersion 2 fixes RN-7007.",
        ),
        ("faq.txt", "The FAQ answers FQ-8008."),
    ] {
        let form = Form::new().part(
            "file",
            Part::bytes(text.as_bytes().to_vec()).file_name(name.to_owned()),
        );
        let res = app
            .client
            .post(app.url(&format!("/v1/indexes/{}/documents/file", id(&index))))
            .header("X-Project-Key", &k)
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::CREATED, "{name}");
        let doc: Value = res.json().await.unwrap();
        assert_eq!(wait_done(&app, &k, &index, &doc).await["status"], "ready");
        docs.push(doc);
    }
    let hits = search_with(
        &app,
        &k,
        &index,
        json!({"query": "RN-7007", "mode": "keyword"}),
    )
    .await;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["document_id"], docs[0]["id"]);
    assert_eq!(hits[0]["metadata"]["filename"], "release-notes.md");
    // By meaning too, and a filter on the name keeps that file's chunks only.
    let hits = search_with(
        &app,
        &k,
        &index,
        json!({"query": "frequently asked questions", "filter": {"filename": "faq.txt"}}),
    )
    .await;
    assert!(!hits.is_empty());
    assert!(
        hits.iter().all(|h| h["metadata"]["filename"] == "faq.txt"),
        "{hits:?}"
    );
}
