//! Search gaps (contract part 3, "Knowledge base, further"): the period's no-result and
//! low-confidence queries of every index of the project, rewordings of one question taken as one
//! gap by the bundled local model, most searched first, each with the most similar public request;
//! and a request made from a gap. Real model, real worker (which embeds the requests).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

#[tokio::test]
async fn gaps_group_rewordings_and_name_the_request_that_would_answer_them() {
    let app = spawn_app().await;
    let (owner, key, index) = project_with_index(&app, "kb-gaps", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let project = app
        .ok(Method::GET, "/v1/project", Auth::Key(&key), None)
        .await;
    let pid = id(&project).to_owned();
    // A second index: gaps are the project's, across its indexes.
    let other = app
        .ok(
            Method::POST,
            "/v1/indexes",
            Auth::Key(&key),
            Some(json!({"name": "api docs", "embedding_model": LOCAL_MODEL})),
        )
        .await;
    let request = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(&key),
            Some(json!({"title": "Export invoices to PDF", "type": "feature"})),
        )
        .await;
    let searches = [
        (&index, "export invoices as pdf", 3),
        (&other, "Export invoices as PDF", 1),
        (&index, "how can I export my invoice to pdf", 2),
        (&other, "dark mode", 1),
    ];
    for (idx, query, times) in searches {
        for _ in 0..times {
            app.ok(
                Method::POST,
                &format!("/v1/indexes/{}/search", id(idx)),
                Auth::Key(&key),
                Some(json!({"query": query, "mode": "keyword"})),
            )
            .await;
        }
    }
    let path = format!("/v1/projects/{pid}/insights/search-gaps?period=7d");
    // The worker embeds the request in the background: wait until the gap names it.
    let deadline = Instant::now() + Duration::from_secs(60);
    let gaps = loop {
        let gaps = app
            .ok(Method::GET, &path, Auth::Session(&owner), None)
            .await;
        if !gaps["data"][0]["similar_feedback"].is_null() || Instant::now() > deadline {
            break gaps;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let data = gaps["data"].as_array().unwrap();
    assert_eq!(data.len(), 2, "{gaps}");
    assert_eq!(data[0]["query"], "export invoices as pdf", "{gaps}");
    assert_eq!(data[0]["searches"], 6, "{gaps}");
    let similar = &data[0]["similar_feedback"];
    assert_eq!(similar["id"], request["id"], "{gaps}");
    assert_eq!(similar["title"], "Export invoices to PDF");
    assert_eq!(similar["status"], "planned");
    assert!(similar["similarity"].as_f64().unwrap() > 0.7, "{gaps}");
    assert_eq!(data[1]["query"], "dark mode");
    assert_eq!(data[1]["searches"], 1);
    assert_eq!(data[1]["similar_feedback"], Value::Null, "{gaps}");

    // One step from a gap to a request.
    let made = format!("/v1/projects/{pid}/insights/search-gaps/feedback");
    let (status, entry) = app
        .call(
            Method::POST,
            &made,
            Auth::Session(&owner),
            Some(json!({"query": "dark mode", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    assert_eq!(entry["title"], "Dark mode");
    assert_eq!(entry["type"], "feature");
    assert_eq!(entry["on_roadmap"], true);
    for (body, field) in [
        (json!({"query": " ", "type": "feature"}), "query"),
        (json!({"query": "dark mode", "type": "wish"}), "type"),
    ] {
        let problem = app
            .refused(
                (Method::POST, &made),
                Auth::Session(&owner),
                Some(body),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }

    // The team's: a viewer and a key are refused.
    let viewer = app
        .member_with_role(&owner, &pid, "viewer@example.com", "viewer")
        .await;
    app.refused(
        (Method::GET, &path),
        Auth::Session(&viewer),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
}
