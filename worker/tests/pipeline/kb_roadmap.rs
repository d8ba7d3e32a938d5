//! The roadmap in the knowledge base (contract part 3, "Knowledge base, further"): documents name
//! feedback entries of their project (`feedback_ids`), and search results and answers' citations
//! carry those entries' live title, status and score; a scoped key (as a help center in a browser
//! holds) sees public boards' entries only. Real model, real worker.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::fake_chat::FakeChat;
use crate::helpers::*;
use crate::kb_search_modes::search_with;
use crate::support::*;

const ARTICLE: &str =
    "Dark mode: the app follows your system theme. A dark theme for reports is planned.";

/// A feature request on `board`, made with the secret key.
async fn entry(app: &TestApp, key: &str, title: &str, board: &str) -> Value {
    app.ok(
        Method::POST,
        "/v1/feedback",
        Auth::Key(key),
        Some(json!({"title": title, "type": "feature", "board": board})),
    )
    .await
}

fn linked(results: &[Value]) -> Value {
    results[0]["feedback"].clone()
}

#[tokio::test]
async fn results_and_citations_carry_the_linked_entries_as_they_are_now() {
    let chat = FakeChat::start("Reports get a dark theme soon [1].").await;
    let flags = chat.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let app = spawn_app_with(&flags).await;
    let (owner, key, index) = project_with_index(&app, "kb-roadmap", LOCAL_MODEL).await;
    let (_, other_key, _) = project_with_index(&app, "kb-roadmap-other", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let project = app
        .ok(Method::GET, "/v1/project", Auth::Key(&key), None)
        .await;
    let pid = id(&project).to_owned();
    app.ok(
        Method::POST,
        &format!("/v1/projects/{pid}/boards"),
        Auth::Session(&owner),
        Some(json!({"name": "Internal", "slug": "internal", "visibility": "private"})),
    )
    .await;
    let public = entry(&app, &key, "Dark reports", "feedback").await;
    let private = entry(&app, &key, "Dark admin console", "internal").await;
    let stranger = entry(&app, &other_key, "Not ours", "feedback").await;

    // Refused: another project's entry, a malformed id, too many; nothing stored.
    let docs = format!("/v1/indexes/{}/documents", id(&index));
    for (ids, says) in [
        (json!([id(&stranger)]), "no feedback entry of this project"),
        (json!(["not-an-id"]), "must be ids of feedback entries"),
    ] {
        let problem = app
            .refused(
                (Method::POST, &docs),
                Auth::Key(&key),
                Some(json!({"content": ARTICLE, "feedback_ids": ids})),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await;
        assert_eq!(problem["errors"][0]["field"], "feedback_ids", "{problem}");
        assert!(
            problem["detail"].as_str().unwrap().contains(says),
            "{problem}"
        );
    }
    let listed = app.ok(Method::GET, &docs, Auth::Key(&key), None).await;
    assert_eq!(listed["total"], 0);

    let doc = app
        .ok(
            Method::POST,
            &docs,
            Auth::Key(&key),
            Some(json!({"content": ARTICLE, "feedback_ids": [id(&public), id(&private), id(&public)]})),
        )
        .await;
    let mut both = vec![id(&public).to_owned(), id(&private).to_owned()];
    both.sort();
    assert_eq!(doc["feedback_ids"], json!(both));
    assert_eq!(
        wait_done(&app, &key, &index, &doc).await["feedback_ids"],
        json!(both)
    );

    // Live values: a status change and a vote show in the next search.
    app.ok(
        Method::PATCH,
        &format!("/v1/feedback/{}", id(&public)),
        Auth::Session(&owner),
        Some(json!({"status": "in_progress"})),
    )
    .await;
    app.ok(
        Method::POST,
        &format!("/v1/feedback/{}/upvote", id(&public)),
        Auth::Session(&owner),
        None,
    )
    .await;
    let query = json!({"query": "dark theme for reports", "mode": "keyword"});
    let team = search_with(&app, &key, &index, query.clone()).await;
    let mut expected = vec![
        json!({"id": id(&public), "title": "Dark reports", "status": "in_progress", "score": 1}),
        json!({"id": id(&private), "title": "Dark admin console", "status": "planned", "score": 0}),
    ];
    expected.sort_by_key(|e| e["id"].as_str().unwrap().to_owned());
    assert_eq!(linked(&team), json!(expected));

    // A scoped key, as a public help center holds: the public board's entry only.
    let reader = app
        .ok(
            Method::POST,
            &format!("/v1/projects/{pid}/api-keys"),
            Auth::Session(&owner),
            Some(json!({"name": "help center", "scopes": ["kb:read"]})),
        )
        .await;
    let reader = reader["key"].as_str().unwrap();
    let outside = search_with(&app, reader, &index, query.clone()).await;
    assert_eq!(
        linked(&outside),
        json!([{"id": id(&public), "title": "Dark reports", "status": "in_progress", "score": 1}])
    );

    // Citations carry them too.
    let answer = app
        .ok(
            Method::POST,
            &format!("/v1/indexes/{}/answer", id(&index)),
            Auth::Key(reader),
            Some(json!({"question": "Is there a dark theme for reports?"})),
        )
        .await;
    assert_eq!(
        answer["citations"][0]["feedback"],
        linked(&outside),
        "{answer}"
    );

    // An entry deleted leaves the document; a document without entries has no `feedback`.
    app.ok(
        Method::DELETE,
        &format!("/v1/feedback/{}", id(&private)),
        Auth::Session(&owner),
        None,
    )
    .await;
    let doc_path = format!("{docs}/{}", id(&doc));
    let now = app.ok(Method::GET, &doc_path, Auth::Key(&key), None).await;
    assert_eq!(now["feedback_ids"], json!([id(&public)]));
    let plain = upload(
        &app,
        &key,
        &index,
        "Keyboard shortcuts: press ? for the list.",
        json!({}),
    )
    .await;
    wait_done(&app, &key, &index, &plain).await;
    let shortcuts = search_with(
        &app,
        &key,
        &index,
        json!({"query": "keyboard shortcuts", "mode": "keyword"}),
    )
    .await;
    assert!(shortcuts[0].get("feedback").is_none(), "{shortcuts:?}");
}

#[tokio::test]
async fn an_upsert_replaces_the_entries_a_document_names() {
    let app = spawn_app().await;
    let (_, key, index) = project_with_index(&app, "kb-roadmap-upsert", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let first = entry(&app, &key, "Offline mode", "feedback").await;
    let second = entry(&app, &key, "Sync on mobile", "feedback").await;
    let path = format!(
        "/v1/indexes/{}/documents/by-external-id/offline",
        id(&index)
    );
    let put = |ids: Value| {
        let body = json!({"content": "Offline mode keeps your edits until you reconnect.", "feedback_ids": ids});
        app.call(Method::PUT, &path, Auth::Key(&key), Some(body))
    };
    let (status, doc) = put(json!([id(&first)])).await;
    assert_eq!(status, StatusCode::CREATED, "{doc}");
    assert_eq!(doc["feedback_ids"], json!([id(&first)]));
    wait_done(&app, &key, &index, &doc).await;
    // The same text with other entries: no new version, the links replaced.
    let (status, doc) = put(json!([id(&second)])).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["feedback_ids"], json!([id(&second)]));
    assert_eq!(doc["chunks_reused"], doc["chunks_created"]);
    let (_, doc) = put(json!([])).await;
    assert_eq!(doc["feedback_ids"], json!([]));

    // A batch names them per document.
    let batch = app
        .ok(
            Method::POST,
            &format!("/v1/indexes/{}/documents/batch", id(&index)),
            Auth::Key(&key),
            Some(json!({"documents": [
                {"content": "One.", "feedback_ids": [id(&first)]},
                {"content": "Two."}
            ]})),
        )
        .await;
    assert_eq!(batch["data"][0]["feedback_ids"], json!([id(&first)]));
    assert_eq!(batch["data"][1]["feedback_ids"], json!([]));
}
