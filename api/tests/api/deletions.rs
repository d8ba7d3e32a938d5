//! Deleting a goal, a funnel or a share link answers like every deletion: 200
//! `{"id", "deleted": true}`, then 404.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

/// Deletes `path` as `token`: 200 with the deletion's body, then 404 for the same request.
async fn deleted_once(app: &TestApp, token: &str, path: &str, id: &str) {
    let (status, body) = app
        .call(Method::DELETE, path, Auth::Session(token), None)
        .await;
    assert_eq!(
        (status, body),
        (StatusCode::OK, json!({"id": id, "deleted": true})),
        "{path}"
    );
    app.refused(
        (Method::DELETE, path),
        Auth::Session(token),
        None,
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
}

#[tokio::test]
async fn goals_funnels_and_share_links_answer_their_deletion() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("del-an").await;
    let pid = id(&project);
    let goal = app
        .ok(
            Method::POST,
            "/v1/analytics/goals",
            Auth::Session(&owner),
            Some(json!({"project_id": pid, "name": "Signed up", "event": "signup"})),
        )
        .await;
    let steps = json!([{"page": "/"}, {"event": "signup"}]);
    let funnel = app
        .ok(
            Method::POST,
            "/v1/analytics/funnels",
            Auth::Session(&owner),
            Some(json!({"project_id": pid, "name": "Signup", "steps": steps})),
        )
        .await;
    let shares = format!("/v1/projects/{pid}/analytics/share");
    let link = app
        .ok(Method::POST, &shares, Auth::Session(&owner), None)
        .await;

    let (goal_id, funnel_id, link_id) = (id(&goal), id(&funnel), id(&link));
    let goal_path = format!("/v1/analytics/goals/{goal_id}");
    deleted_once(&app, &owner, &goal_path, goal_id).await;
    let funnel_path = format!("/v1/analytics/funnels/{funnel_id}");
    deleted_once(&app, &owner, &funnel_path, funnel_id).await;
    deleted_once(&app, &owner, &format!("{shares}/{link_id}"), link_id).await;
}
