use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

async fn create(app: &TestApp, owner: &str, project: &Value, body: Value) -> Value {
    let (code, entry) = app
        .call(
            Method::POST,
            &format!("/v1/changelog/dashboard/{}", id(project)),
            Auth::Session(owner),
            Some(body),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED, "{entry}");
    entry
}

#[tokio::test]
async fn drafts_stay_private_until_published() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("cl-flow").await;
    let k = key(&project);
    let first = create(
        &app,
        &owner,
        &project,
        json!({"title": "First", "content": "**bold**", "type": "feature", "published": true}),
    )
    .await;
    assert_eq!(first["published"], true);
    assert!(first["published_at"].is_string());
    let draft = create(
        &app,
        &owner,
        &project,
        json!({"title": "Draft", "content": "soon", "type": "fix", "published": false}),
    )
    .await;
    assert_eq!(draft["published"], false);
    assert!(draft["published_at"].is_null());

    let (_, public) = app
        .call(Method::GET, "/v1/changelog", Auth::Key(k), None)
        .await;
    let titles: Vec<&str> = public["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["First"]);
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/changelog/dashboard/{}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["data"].as_array().unwrap().len(), 2);

    let path = format!("/v1/changelog/dashboard/{}/{}", id(&project), id(&draft));
    let (code, published) = app
        .call(
            Method::PATCH,
            &path,
            Auth::Session(&owner),
            Some(json!({"published": true})),
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    assert!(published["published_at"].is_string());
    assert_eq!(published["title"], "Draft", "fields not sent are kept");
    let (_, public) = app
        .call(Method::GET, "/v1/changelog", Auth::Key(k), None)
        .await;
    let titles: Vec<&str> = public["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Draft", "First"], "newest published_at first");

    let (_, back) = app
        .call(
            Method::PATCH,
            &path,
            Auth::Session(&owner),
            Some(json!({"published": false, "title": "Renamed", "type": "breaking"})),
        )
        .await;
    assert_eq!(
        (
            back["published"].as_bool(),
            back["title"].as_str(),
            back["type"].as_str()
        ),
        (Some(false), Some("Renamed"), Some("breaking"))
    );
    assert!(back["published_at"].is_null());
    let (_, public) = app
        .call(Method::GET, "/v1/changelog", Auth::Key(k), None)
        .await;
    assert_eq!(public["data"].as_array().unwrap().len(), 1);

    let (code, del) = app
        .call(Method::DELETE, &path, Auth::Session(&owner), None)
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(del, json!({"id": draft["id"], "deleted": true}));
    let res = app
        .send(
            Method::PATCH,
            &path,
            Auth::Session(&owner),
            Some(json!({"published": true})),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn changelog_input_and_ownership_are_checked() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("cl-check").await;
    let path = format!("/v1/changelog/dashboard/{}", id(&project));
    let res = app
        .send(
            Method::POST,
            &path,
            Auth::Session(&owner),
            Some(json!({"title": "T", "content": "C", "type": "chore"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .send(
            Method::POST,
            &path,
            Auth::Session(&owner),
            Some(json!({"title": "T", "content": "C", "type": "fix", "published": "yes"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let entry = create(
        &app,
        &owner,
        &project,
        json!({"title": "T", "content": "C", "type": "improvement"}),
    )
    .await;
    assert_eq!(
        entry["published"], false,
        "a draft unless published is sent"
    );
    let res = app
        .send(
            Method::PATCH,
            &format!("{path}/{}", id(&entry)),
            Auth::Session(&owner),
            Some(json!({"title": ""})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;

    let stranger = app.login("stranger@example.com").await;
    let res = app
        .send(
            Method::POST,
            &path,
            Auth::Session(&stranger),
            Some(json!({"title": "T", "content": "C", "type": "fix"})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(Method::GET, &path, Auth::Session(&stranger), None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(
            Method::DELETE,
            &format!("{path}/{}", id(&entry)),
            Auth::Session(&stranger),
            None,
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(Method::GET, "/v1/changelog", Auth::Session(&owner), None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}
