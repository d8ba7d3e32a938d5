//! Uploaded files keep their name (contract part 3, "The first hour"): the document's metadata
//! gets `filename` unless the upload's metadata sets one. Search results, which need a worker, are
//! in the worker's pipeline tests (`kb_file_names`).

use reqwest::multipart::{Form, Part};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

async fn send(req: RequestBuilder, name: &str, metadata: Option<&str>) -> Value {
    let mut form = Form::new().part(
        "file",
        Part::bytes(b"# Setup\n\nInstall it, then run it.".to_vec()).file_name(name.to_owned()),
    );
    if let Some(m) = metadata {
        form = form.text("metadata", m.to_owned());
    }
    let res = req.multipart(form).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED, "{name}");
    res.json().await.unwrap()
}

#[tokio::test]
async fn an_uploaded_file_keeps_its_name_in_the_metadata() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("kb-names").await;
    let k = key(&project);
    let index = app
        .ok(
            Method::POST,
            "/v1/indexes",
            Auth::Key(k),
            Some(json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"})),
        )
        .await;
    let path = format!("/v1/indexes/{}/documents", id(&index));
    let file = app.url(&format!("{path}/file"));
    let with_key = || app.client.post(&file).header("X-Project-Key", k);

    let doc = send(with_key(), "setup.md", Some(r#"{"source": "upload"}"#)).await;
    assert_eq!(
        doc["metadata"],
        json!({"source": "upload", "filename": "setup.md"})
    );
    // Folders a client put in the name are not the file's name.
    let nested = send(with_key(), "guides/Install Guide.md", None).await;
    assert_eq!(nested["metadata"], json!({"filename": "Install Guide.md"}));
    // The metadata's own `filename` wins.
    let named = send(
        with_key(),
        "tmp-4471.md",
        Some(r#"{"filename": "Handbook"}"#),
    )
    .await;
    assert_eq!(named["metadata"], json!({"filename": "Handbook"}));
    // The dashboard uploads with the member's session and X-Project-Id.
    let dashboard = app
        .client
        .post(&file)
        .bearer_auth(&owner)
        .header("X-Project-Id", id(&project));
    let theirs = send(dashboard, "faq.txt", None).await;
    assert_eq!(theirs["metadata"], json!({"filename": "faq.txt"}));

    let one = format!("{path}/{}", id(&doc));
    let shown = app.ok(Method::GET, &one, Auth::Key(k), None).await;
    assert_eq!(shown["metadata"]["filename"], "setup.md");
    let list = app.ok(Method::GET, &path, Auth::Key(k), None).await;
    let mut names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["metadata"]["filename"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["Handbook", "Install Guide.md", "faq.txt", "setup.md"]
    );
}
