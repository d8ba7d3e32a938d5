use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn create_list_show_rotate_and_delete_a_project() {
    let app = spawn_app().await;
    let token = app.login("owner@example.com").await;
    let project = app.create_project(&token, "acme-app").await;
    assert_eq!(project["slug"], "acme-app");
    assert_eq!(project["name"], "Project acme-app");
    let k = key(&project);
    assert!(
        k.starts_with("pk_") && k.len() >= 35 && k[3..].chars().all(|c| c.is_ascii_alphanumeric())
    );
    assert!(project["created_at"].as_str().is_some());

    let (status, list) = app
        .call(Method::GET, "/v1/projects", Auth::Session(&token), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);

    let path = format!("/v1/projects/{}", id(&project));
    let (status, shown) = app
        .call(Method::GET, &path, Auth::Session(&token), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(shown["api_key"], project["api_key"]);

    let (status, rotated) = app
        .call(
            Method::POST,
            &format!("{path}/api-key/rotate"),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(rotated["api_key"], project["api_key"]);
    let res = app
        .send(Method::GET, "/v1/changelog", Auth::Key(k), None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let (status, _) = app
        .call(Method::GET, "/v1/changelog", Auth::Key(key(&rotated)), None)
        .await;
    assert_eq!(status, StatusCode::OK);

    let (status, body) = app
        .call(Method::DELETE, &path, Auth::Session(&token), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({"id": project["id"], "deleted": true}));
    let res = app
        .send(Method::GET, &path, Auth::Session(&token), None)
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    let res = app
        .send(Method::GET, "/v1/changelog", Auth::Key(key(&rotated)), None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn slugs_are_validated_and_unique_across_the_service() {
    let app = spawn_app().await;
    let a = app.login("a@example.com").await;
    let b = app.login("b@example.com").await;
    app.create_project(&a, "taken-slug").await;
    let res = app
        .send(
            Method::POST,
            "/v1/projects",
            Auth::Session(&b),
            Some(json!({"name": "B", "slug": "taken-slug"})),
        )
        .await;
    assert_problem(res, StatusCode::CONFLICT, "conflict").await;
    for bad in ["ab", "-abc", "abc-", "Has-Caps", "a_b_c", ""] {
        let res = app
            .send(
                Method::POST,
                "/v1/projects",
                Auth::Session(&a),
                Some(json!({"name": "X", "slug": bad})),
            )
            .await;
        let body = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
        assert_eq!(body["errors"][0]["field"], "slug", "{bad}");
    }
    let res = app
        .send(
            Method::POST,
            "/v1/projects",
            Auth::Session(&a),
            Some(json!({"name": 5, "slug": "fine-slug"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
}

#[tokio::test]
async fn other_users_projects_are_forbidden_and_unknown_ones_not_found() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("mine-only").await;
    let other = app.login("other@example.com").await;
    let path = format!("/v1/projects/{}", id(&project));
    for (method, p) in [
        (Method::GET, path.clone()),
        (Method::DELETE, path.clone()),
        (Method::POST, format!("{path}/api-key/rotate")),
    ] {
        let res = app.send(method, &p, Auth::Session(&other), None).await;
        assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    }
    let (_, list) = app
        .call(Method::GET, "/v1/projects", Auth::Session(&other), None)
        .await;
    assert_eq!(list["data"], json!([]));
    for p in [
        "/v1/projects/00000000-0000-0000-0000-000000000000",
        "/v1/projects/not-a-uuid",
    ] {
        let res = app.send(Method::GET, p, Auth::Session(&other), None).await;
        assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    }
}
