//! Search analytics (contract part 3, "Knowledge base, further"): every search answers a
//! `search_id` and is logged; clicks are reported on it; the index's read gives exact figures:
//! searches, the no-result and click-through rates, top, no-result and low-confidence queries
//! (grouped whatever their case and spacing); and highlights on results. Real model, real worker.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

async fn search(app: &TestApp, key: &str, index: &Value, body: Value) -> Value {
    let path = format!("/v1/indexes/{}/search", id(index));
    let (status, res) = app
        .call(Method::POST, &path, Auth::Key(key), Some(body))
        .await;
    assert_eq!(status, StatusCode::OK, "{res}");
    assert!(res["search_id"].is_string(), "{res}");
    res
}

#[tokio::test]
async fn searches_and_clicks_add_up_to_exact_analytics() {
    let app = spawn_app().await;
    let (owner, key, index) = project_with_index(&app, "kb-analytics", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    let doc = upload(
        &app,
        &key,
        &index,
        "How to reset your password: open settings, choose security, and press reset.",
        json!({"lang": "en"}),
    )
    .await;
    assert_eq!(wait_done(&app, &key, &index, &doc).await["status"], "ready");

    // Three searches of one question (spelled three ways), one of them clicked twice (counted
    // once); a keyword search that finds nothing, twice; a filtered vector search with a filter
    // that matches nothing.
    let mut ids = Vec::new();
    for q in [
        "reset my password",
        "Reset  my PASSWORD",
        " reset my password ",
    ] {
        ids.push(
            search(&app, &key, &index, json!({"query": q})).await["search_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    for _ in 0..2 {
        let res = search(
            &app,
            &key,
            &index,
            json!({"query": "quarterly invoices", "mode": "keyword"}),
        )
        .await;
        assert_eq!(res["results"].as_array().unwrap().len(), 0);
    }
    let res = search(
        &app,
        &key,
        &index,
        json!({"query": "reset my password", "filter": {"lang": "fr"}}),
    )
    .await;
    assert_eq!(res["results"].as_array().unwrap().len(), 0);

    let click = |search_id: &str, body: Value| {
        let path = format!("/v1/indexes/{}/searches/{search_id}/click", id(&index));
        let key = key.clone();
        let app = &app;
        async move {
            app.call(Method::POST, &path, Auth::Key(&key), Some(body))
                .await
        }
    };
    let body = json!({"document_id": id(&doc), "position": 1});
    for _ in 0..2 {
        let (status, echo) = click(&ids[0], body.clone()).await;
        assert_eq!(status, StatusCode::OK, "{echo}");
        assert_eq!(echo["position"], 1);
    }
    // Refusals change nothing: an unknown search, a bad position.
    let (status, _) = click(&uuid::Uuid::now_v7().to_string(), body.clone()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, problem) = click(&ids[1], json!({"document_id": id(&doc), "position": 0})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
    assert_eq!(problem["errors"][0]["field"], "position");

    let path = format!("/v1/indexes/{}/analytics?period=7d", id(&index));
    let (status, a) = app.call(Method::GET, &path, Auth::Key(&key), None).await;
    assert_eq!(status, StatusCode::OK, "{a}");
    assert_eq!(a["period"], "7d");
    assert_eq!(a["searches"], 6);
    // 3 of 6 found nothing (2 keyword, 1 filtered); 1 of 6 was clicked.
    assert_eq!(a["no_result_rate"], 0.5);
    assert!(
        (a["click_through_rate"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-9,
        "{a}"
    );
    let top = a["top_queries"].as_array().unwrap();
    assert_eq!(top[0]["query"], "reset my password");
    assert_eq!(top[0]["count"], 4);
    assert_eq!(top[0]["clicks"], 1);
    assert_eq!(top[1]["query"], "quarterly invoices");
    assert_eq!(top[1]["count"], 2);
    assert_eq!(
        top[1]["avg_top_score"],
        Value::Null,
        "keyword searches have no similarity"
    );
    assert_eq!(
        a["no_result_queries"],
        json!([{"query": "quarterly invoices", "count": 2}, {"query": "reset my password", "count": 1}])
    );
    // The question's searches are confident (its own document answers it).
    assert!(top[0]["avg_top_score"].as_f64().unwrap() > 0.3, "{a}");
    assert_eq!(a["low_confidence_queries"], json!([]));

    // A member's session reads it too; the publishable key does not.
    let pid = app
        .ok(Method::GET, "/v1/project", Auth::Key(&key), None)
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = app
        .client
        .get(app.url(&path))
        .bearer_auth(&owner)
        .header("X-Project-Id", &pid)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let project = app
        .ok(
            Method::GET,
            &format!("/v1/projects/{pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    let (status, _) = app
        .call(
            Method::GET,
            &path,
            Auth::Key(project["publishable_key"].as_str().unwrap()),
            None,
        )
        .await;
    assert!(
        status == StatusCode::FORBIDDEN || status == StatusCode::UNAUTHORIZED,
        "{status}"
    );
    let (status, _) = app
        .call(
            Method::GET,
            &format!("/v1/indexes/{}/analytics?period=1y", id(&index)),
            Auth::Key(&key),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    // Highlights: the query's words marked in the chunk's passage (stemmed: "resetting" finds
    // "reset"), in every mode; none when no word occurs; absent unless asked for.
    for mode in ["keyword", "vector", "hybrid"] {
        let res = search(
            &app,
            &key,
            &index,
            json!({"query": "resetting passwords", "mode": mode, "highlight": true}),
        )
        .await;
        let marks = &res["results"][0]["highlights"];
        let first = marks[0].as_str().unwrap_or_default();
        assert!(
            first.contains("<mark>reset</mark>") && first.contains("<mark>password</mark>"),
            "{mode}: {marks}"
        );
    }
    let res = search(
        &app,
        &key,
        &index,
        json!({"query": "changing my login secret", "highlight": true}),
    )
    .await;
    assert_eq!(res["results"][0]["highlights"], json!([]), "{res}");
    let res = search(&app, &key, &index, json!({"query": "reset"})).await;
    assert!(res["results"][0].get("highlights").is_none(), "{res}");
}
