use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn malformed_json_is_400_and_changes_nothing() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("bad-json").await;
    let res = app
        .client
        .post(app.url("/v1/feedback"))
        .header("X-Project-Key", key(&project))
        .header("Content-Type", "application/json")
        .body("{\"title\": ")
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::BAD_REQUEST, "malformed_json").await;
    let (_, list) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/bad-json",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(list["data"], json!([]));
}

#[tokio::test]
async fn a_body_without_json_content_type_is_415() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("no-ctype").await;
    let res = app
        .client
        .post(app.url("/v1/feedback"))
        .header("X-Project-Key", key(&project))
        .body("{\"title\": \"x\", \"type\": \"bug\"}")
        .send()
        .await
        .unwrap();
    assert_problem(
        res,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let app = spawn_app_with(&["--max-body-bytes", "2048"]).await;
    let (_, project) = app.owner_with_project("big-body").await;
    let res = app
        .send(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "x".repeat(4096), "type": "bug"})),
        )
        .await;
    assert_problem(res, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
}

#[tokio::test]
async fn a_non_object_body_is_422_and_unknown_routes_404() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("array-body").await;
    let res = app
        .send(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!([1, 2])),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .send(Method::GET, "/v1/nothing-here", Auth::None, None)
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn api_key_endpoints_answer_cors_preflight_for_any_origin() {
    let app = spawn_app().await;
    let res = app
        .client
        .request(Method::OPTIONS, app.url("/v1/feedback"))
        .header("Origin", "https://customer.example")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "x-project-key,content-type",
        )
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    let allowed = res.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("x-project-key"), "{allowed}");
}

#[tokio::test]
async fn openapi_document_and_reference_page_are_served() {
    let app = spawn_app().await;
    let (status, doc) = app
        .call(Method::GET, "/v1/openapi.json", Auth::None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/v1/feedback",
        "/v1/projects",
        "/v1/testimonials/all",
        "/v1/changelog/dashboard/{project_id}",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} missing");
    }
    let res = app.send(Method::GET, "/docs", Auth::None, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.text().await.unwrap().contains("Shipmate API"));
    let res = app.send(Method::GET, "/healthz", Auth::None, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = app.send(Method::GET, "/readyz", Auth::None, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers().contains_key("x-request-id"));
}

/// Postgres cannot store NUL in text or jsonb: such input is a 422 at the door, never a write that
/// fails later (an accepted analytics event would otherwise fail in the worker for good).
#[tokio::test]
async fn nul_characters_are_refused_everywhere() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("nul-chars").await;
    for (path, body, field) in [
        (
            "/v1/feedback",
            json!({"title": "a\u{0}b", "type": "bug"}),
            "title",
        ),
        ("/v1/analytics/events", json!({"name": "x\u{0}"}), "name"),
        (
            "/v1/analytics/events",
            json!({"properties": {"k": "v\u{0}"}}),
            "properties",
        ),
        (
            "/v1/analytics/events",
            json!({"events": [{"name": "ok"}, {"url": "https://e.x/\u{0}"}]}),
            "events[1].url",
        ),
    ] {
        let res = app
            .send(Method::POST, path, Auth::Key(key(&project)), Some(body))
            .await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field);
    }
}
