//! Scoped API keys: limited to their scopes and origins, hashed, listed without the secret, revocable.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

async fn create_key(
    app: &TestApp,
    owner: &str,
    project: &Value,
    body: Value,
) -> (StatusCode, Value) {
    app.call(
        Method::POST,
        &format!("/v1/projects/{}/api-keys", id(project)),
        Auth::Session(owner),
        Some(body),
    )
    .await
}

async fn track(app: &TestApp, key: &str, origin: Option<&str>) -> reqwest::Response {
    let mut req = app
        .client
        .post(app.url("/v1/analytics/events"))
        .header("X-Project-Key", key)
        .json(&json!({"name": "pageview", "url": "https://example.com/"}));
    if let Some(o) = origin {
        req = req.header("Origin", o);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn a_scoped_key_reaches_only_its_scopes_and_origins() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("keys-a").await;
    let (status, script) = create_key(
        &app,
        &owner,
        &project,
        json!({"name": "script tag", "scopes": ["analytics:write"], "allowed_origins": ["https://example.com"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{script}");
    let script_key = script["key"].as_str().unwrap().to_owned();
    assert!(script_key.starts_with("pk_") && script_key.len() >= 35);
    assert_eq!(script["key_prefix"], &script_key[..10]);
    assert_eq!(script["scopes"], json!(["analytics:write"]));

    assert_eq!(
        track(&app, &script_key, Some("https://example.com"))
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    assert_problem(
        track(&app, &script_key, Some("https://evil.test")).await,
        StatusCode::FORBIDDEN,
        "origin_not_allowed",
    )
    .await;
    assert_problem(
        track(&app, &script_key, None).await,
        StatusCode::FORBIDDEN,
        "origin_not_allowed",
    )
    .await;
    let res = app
        .send(
            Method::POST,
            "/v1/indexes",
            Auth::Key(&script_key),
            Some(json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "insufficient_scope").await;

    // A read-only knowledge-base key: lists and searches, never writes or deletes.
    let (_, index) = app
        .call(
            Method::POST,
            "/v1/indexes",
            Auth::Key(key(&project)),
            Some(json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"})),
        )
        .await;
    let (_, reader) = create_key(
        &app,
        &owner,
        &project,
        json!({"name": "search", "scopes": ["kb:read"]}),
    )
    .await;
    let reader_key = reader["key"].as_str().unwrap();
    let (status, listed) = app
        .call(Method::GET, "/v1/indexes", Auth::Key(reader_key), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["data"][0]["id"], index["id"]);
    for (method, path) in [
        (
            Method::POST,
            format!("/v1/indexes/{}/documents", id(&index)),
        ),
        (Method::DELETE, format!("/v1/indexes/{}", id(&index))),
        (Method::POST, "/v1/feedback".to_owned()),
    ] {
        let res = app
            .send(
                method,
                &path,
                Auth::Key(reader_key),
                Some(json!({"content": "x", "title": "x", "type": "bug"})),
            )
            .await;
        assert_problem(res, StatusCode::FORBIDDEN, "insufficient_scope").await;
    }
    // The project's own key keeps every right.
    let (status, _) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "x", "type": "bug"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    // Listing never shows a key; revoking makes it 401 at once.
    let (status, list) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{}/api-keys", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 2);
    assert!(list["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| k.get("key").is_none()));
    let (status, gone) = app
        .call(
            Method::DELETE,
            &format!("/v1/projects/{}/api-keys/{}", id(&project), id(&reader)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(gone, json!({"id": reader["id"], "deleted": true}));
    let res = app
        .send(Method::GET, "/v1/indexes", Auth::Key(reader_key), None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .send(
            Method::DELETE,
            &format!("/v1/projects/{}/api-keys/{}", id(&project), id(&reader)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    // Keys go with their project.
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/projects/{}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        track(&app, &script_key, Some("https://example.com"))
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn key_creation_is_validated_and_owner_only() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("keys-b").await;
    for (body, field) in [
        (json!({"name": "x"}), "scopes"),
        (json!({"name": "x", "scopes": []}), "scopes"),
        (json!({"name": "x", "scopes": ["kb:admin"]}), "scopes"),
        (json!({"name": "x", "scopes": "kb:read"}), "scopes"),
        (
            json!({"name": "x", "scopes": ["kb:read"], "allowed_origins": ["https://example.com/path"]}),
            "allowed_origins",
        ),
        (
            json!({"name": "x", "scopes": ["kb:read"], "allowed_origins": ["example.com"]}),
            "allowed_origins",
        ),
        (json!({"scopes": ["kb:read"]}), "name"),
    ] {
        let res = app
            .send(
                Method::POST,
                &format!("/v1/projects/{}/api-keys", id(&project)),
                Auth::Session(&owner),
                Some(body.clone()),
            )
            .await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    let stranger = app.login("stranger-keys@example.com").await;
    let res = app
        .send(
            Method::POST,
            &format!("/v1/projects/{}/api-keys", id(&project)),
            Auth::Session(&stranger),
            Some(json!({"name": "x", "scopes": ["kb:read"]})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let (_, list) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{}/api-keys", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(
        list,
        json!({"data": []}),
        "refused creations changed nothing"
    );
}

/// Two api processes of one deployment: a key revoked through one is refused by the other within
/// a second (each caches resolved keys for less than that).
#[tokio::test]
async fn a_revoked_key_is_refused_by_every_api_process_within_a_second() {
    let db = fresh_database_url();
    let first = spawn_app_on(db.clone(), &[]).await;
    let second = spawn_app_on(db, &[]).await;
    let (owner, project) = first.owner_with_project("keys-two-apis").await;
    let (status, made) = create_key(
        &first,
        &owner,
        &project,
        json!({"name": "reader", "scopes": ["kb:read"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let secret = made["key"].as_str().unwrap().to_owned();
    // The second process has it cached.
    let res = second
        .send(Method::GET, "/v1/indexes", Auth::Key(&secret), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let (status, _) = first
        .call(
            Method::DELETE,
            &format!("/v1/projects/{}/api-keys/{}", id(&project), id(&made)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let revoked = std::time::Instant::now();
    loop {
        let res = second
            .send(Method::GET, "/v1/indexes", Auth::Key(&secret), None)
            .await;
        if res.status() == StatusCode::UNAUTHORIZED {
            break;
        }
        assert!(
            revoked.elapsed() < std::time::Duration::from_secs(1),
            "the other process still took the revoked key after a second"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
