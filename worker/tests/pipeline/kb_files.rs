//! Files uploaded to an index: each taken type (text, Markdown, HTML, PDF) becomes a searchable
//! document, and what cannot be read is refused. With a worker and the real local model.

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::kb_ingest::PAGE;
use crate::kb_search_modes::search_with;
use crate::support::*;

/// A one-page PDF showing `text` (none when empty), written with lopdf.
fn pdf(text: &str) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{dictionary, Document, Object, Stream};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(
        dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica"},
    );
    let resources_id = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font_id}});
    let operations = if text.is_empty() {
        vec![
            Operation::new("re", vec![10.into(), 10.into(), 100.into(), 100.into()]),
            Operation::new("f", vec![]),
        ]
    } else {
        vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 12.into()]),
            Operation::new("Td", vec![72.into(), 700.into()]),
            Operation::new("Tj", vec![Object::string_literal(text)]),
            Operation::new("ET", vec![]),
        ]
    };
    let content = Content { operations };
    let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
    let page_id = doc
        .add_object(dictionary! {"Type" => "Page", "Parent" => pages_id, "Contents" => content_id});
    doc.objects.insert(pages_id, Object::Dictionary(dictionary! {
        "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1, "Resources" => resources_id,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
    }));
    let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

async fn send_file(
    app: &TestApp,
    key: &str,
    index: &Value,
    name: &str,
    bytes: Vec<u8>,
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let mut form = Form::new().part("file", Part::bytes(bytes).file_name(name.to_owned()));
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    app.client
        .post(app.url(&format!("/v1/indexes/{}/documents/file", id(index))))
        .header("X-Project-Key", key)
        .multipart(form)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn files_of_each_taken_type_become_searchable_documents() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-files", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let files: [(&str, Vec<u8>, &str); 4] = [
        (
            "notes.md",
            b"# Notes\n\nThe markdown file names MD-1001.".to_vec(),
            "MD-1001",
        ),
        (
            "readme.TXT",
            b"The text file names TX-2002.".to_vec(),
            "TX-2002",
        ),
        ("page.html", PAGE.as_bytes().to_vec(), "WH-5001"),
        (
            "manual.pdf",
            pdf("The PDF manual names PD-3003 on its first page."),
            "PD-3003",
        ),
    ];
    for (name, bytes, code) in files {
        let res = send_file(
            &app,
            &k,
            &index,
            name,
            bytes,
            &[("metadata", r#"{"source": "upload"}"#)],
        )
        .await;
        assert_eq!(res.status(), StatusCode::CREATED, "{name}");
        let doc: Value = res.json().await.unwrap();
        assert_eq!(
            doc["metadata"],
            json!({"source": "upload", "filename": name})
        );
        assert_eq!(
            wait_done(&app, &k, &index, &doc).await["status"],
            "ready",
            "{name}"
        );
        let hits = search_with(&app, &k, &index, json!({"query": code, "mode": "keyword"})).await;
        assert_eq!(hits.len(), 1, "{name}: {hits:?}");
        assert_eq!(hits[0]["document_id"], doc["id"]);
    }
    // With an external id, a file upload creates, then replaces.
    let first = send_file(
        &app,
        &k,
        &index,
        "a.txt",
        b"Version one.".to_vec(),
        &[("external_id", "file-a")],
    )
    .await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    assert_eq!(wait_done(&app, &k, &index, &first).await["status"], "ready");
    let again = send_file(
        &app,
        &k,
        &index,
        "a.txt",
        b"Version one.".to_vec(),
        &[("external_id", "file-a")],
    )
    .await;
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.unwrap();
    assert_eq!(
        (
            again["external_id"].as_str(),
            again["chunks_reused"].as_i64()
        ),
        (Some("file-a"), Some(1))
    );
    assert_eq!(
        (&again["id"], again["status"].as_str()),
        (&first["id"], Some("ready"))
    );
}

#[tokio::test]
async fn unsupported_files_and_pdfs_without_text_are_refused() {
    let app = spawn_app().await;
    let (_, k, index) = project_with_index(&app, "kb-badfiles", LOCAL_MODEL).await;
    for name in ["logo.png", "setup.exe", "noextension"] {
        let res = send_file(&app, &k, &index, name, vec![0x89, 0x50, 0x4e, 0x47], &[]).await;
        assert_problem(
            res,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        )
        .await;
    }
    let res = send_file(&app, &k, &index, "scan.pdf", pdf(""), &[]).await;
    let p = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "no_text").await;
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("no extractable text"),
        "{p}"
    );
    let res = send_file(
        &app,
        &k,
        &index,
        "big.txt",
        "word ".repeat(30_000).into_bytes(),
        &[],
    )
    .await;
    assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    let res = send_file(
        &app,
        &k,
        &index,
        "huge.txt",
        vec![b'a'; 10 * 1024 * 1024 + 1],
        &[],
    )
    .await;
    assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    let res = send_file(
        &app,
        &k,
        &index,
        "a.md",
        b"Text".to_vec(),
        &[("metadata", "[1]")],
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .send(
            Method::POST,
            &format!("/v1/indexes/{}/documents/file", id(&index)),
            Auth::Key(&k),
            Some(json!({"content": "x"})),
        )
        .await;
    assert_problem(
        res,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
}
