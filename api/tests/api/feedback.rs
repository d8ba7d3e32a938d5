use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

async fn submit(app: &TestApp, project: &Value, body: Value) -> Value {
    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(project)),
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    entry
}

#[tokio::test]
async fn new_entries_start_in_their_types_first_status() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("fb-create").await;
    let bug = submit(&app, &project, json!({"title": "  Crash on save  ", "description": "<b>\"quotes\"</b> & ünïcode", "type": "bug", "submitter_email": "u@example.com"})).await;
    assert_eq!(bug["status"], "new");
    assert!(
        bug.get("submitter_email").is_none(),
        "addresses are for the owner's views only"
    );
    assert_eq!(bug["title"], "Crash on save");
    assert_eq!(bug["description"], "<b>\"quotes\"</b> & ünïcode");
    assert_eq!(bug["project_id"], project["id"]);
    assert_eq!(
        (
            bug["upvotes"].as_i64(),
            bug["downvotes"].as_i64(),
            bug["score"].as_i64()
        ),
        (Some(0), Some(0), Some(0))
    );
    let feature = submit(
        &app,
        &project,
        json!({"title": "Dark mode", "type": "feature"}),
    )
    .await;
    assert_eq!(feature["status"], "planned");
    let general = submit(
        &app,
        &project,
        json!({"title": "Love it", "type": "feedback"}),
    )
    .await;
    assert_eq!(general["status"], "new");
}

#[tokio::test]
async fn invalid_feedback_is_422_with_every_field_named() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("fb-invalid").await;
    let res = app
        .send(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "", "type": "question", "submitter_email": "nope"})),
        )
        .await;
    let body = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["title", "type", "submitter_email"]);
    let res = app
        .send(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "x".repeat(201), "type": "bug"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .send(
            Method::POST,
            "/v1/feedback",
            Auth::Key("pk_unknown"),
            Some(json!({"title": "t", "type": "bug"})),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .send(
            Method::POST,
            "/v1/feedback",
            Auth::None,
            Some(json!({"title": "t", "type": "bug"})),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn the_public_listing_hides_emails_filters_and_sorts() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("fb-list").await;
    let a = submit(
        &app,
        &project,
        json!({"title": "A", "type": "feature", "submitter_email": "a@example.com"}),
    )
    .await;
    let b = submit(&app, &project, json!({"title": "B", "type": "feature"})).await;
    submit(&app, &project, json!({"title": "C", "type": "bug"})).await;
    let voter = app.login("voter@example.com").await;
    app.call(
        Method::POST,
        &format!("/v1/feedback/{}/upvote", id(&a)),
        Auth::Session(&voter),
        None,
    )
    .await;

    let (status, list) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/fb-list",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), 3);
    assert!(data.iter().all(|e| e.get("submitter_email").is_none()));
    assert_eq!(data[0]["title"], "A", "top sorts by score");

    let (_, new) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/fb-list?sort=new",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(new["data"][0]["title"], "C");
    let (_, features) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/fb-list?type=feature&status=planned",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(features["data"].as_array().unwrap().len(), 2);
    let _ = b;
    let res = app
        .send(
            Method::GET,
            "/v1/feedback/by-project/fb-list?type=nope",
            Auth::None,
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .send(
            Method::GET,
            "/v1/feedback/by-project/no-such-slug",
            Auth::None,
            None,
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;

    let path = format!("/v1/feedback?project_id={}", id(&project));
    let (status, owners) = app
        .call(Method::GET, &path, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(owners["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["submitter_email"] == "a@example.com"));
    let res = app
        .send(Method::GET, &path, Auth::Session(&voter), None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
}

#[tokio::test]
async fn owners_move_statuses_within_the_types_set() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("fb-status").await;
    let bug = submit(&app, &project, json!({"title": "Bug", "type": "bug"})).await;
    let feature = submit(
        &app,
        &project,
        json!({"title": "Feature", "type": "feature"}),
    )
    .await;
    let bug_path = format!("/v1/feedback/{}", id(&bug));
    let feature_path = format!("/v1/feedback/{}", id(&feature));
    for status in ["in_progress", "done", "dismissed"] {
        let (code, entry) = app
            .call(
                Method::PATCH,
                &bug_path,
                Auth::Session(&owner),
                Some(json!({"status": status})),
            )
            .await;
        assert_eq!(code, StatusCode::OK);
        assert_eq!(entry["status"], status);
    }
    for status in ["in_progress", "shipped", "cancelled"] {
        let (code, entry) = app
            .call(
                Method::PATCH,
                &feature_path,
                Auth::Session(&owner),
                Some(json!({"status": status})),
            )
            .await;
        assert_eq!(code, StatusCode::OK);
        assert_eq!(entry["status"], status);
    }
    let res = app
        .send(
            Method::PATCH,
            &bug_path,
            Auth::Session(&owner),
            Some(json!({"status": "shipped"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_status").await;
    let res = app
        .send(
            Method::PATCH,
            &feature_path,
            Auth::Session(&owner),
            Some(json!({"status": "done"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_status").await;
    let res = app
        .send(
            Method::PATCH,
            &bug_path,
            Auth::Session(&owner),
            Some(json!({})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;

    let stranger = app.login("stranger@example.com").await;
    let res = app
        .send(
            Method::PATCH,
            &bug_path,
            Auth::Session(&stranger),
            Some(json!({"status": "done"})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(Method::DELETE, &bug_path, Auth::Session(&stranger), None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(
            Method::PATCH,
            &bug_path,
            Auth::Key(key(&project)),
            Some(json!({"status": "done"})),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;

    let (code, body) = app
        .call(Method::DELETE, &bug_path, Auth::Session(&owner), None)
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(body, json!({"id": bug["id"], "deleted": true}));
    let res = app
        .send(Method::DELETE, &bug_path, Auth::Session(&owner), None)
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn votes_are_one_per_user_and_replace_each_other() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("fb-votes").await;
    let feature = submit(&app, &project, json!({"title": "F", "type": "feature"})).await;
    let bug = submit(&app, &project, json!({"title": "B", "type": "bug"})).await;
    let u = app.login("u@example.com").await;
    let base = format!("/v1/feedback/{}", id(&feature));

    let (code, v) = app
        .call(
            Method::POST,
            &format!("{base}/upvote"),
            Auth::Session(&u),
            None,
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(
        v,
        json!({"feedback_id": feature["id"], "upvotes": 1, "downvotes": 0, "score": 1, "user_vote": 1})
    );
    let (_, v) = app
        .call(
            Method::POST,
            &format!("{base}/upvote"),
            Auth::Session(&u),
            None,
        )
        .await;
    assert_eq!(
        (v["upvotes"].as_i64(), v["downvotes"].as_i64()),
        (Some(1), Some(0)),
        "repeat is a no-op"
    );
    let (_, v) = app
        .call(
            Method::POST,
            &format!("{base}/downvote"),
            Auth::Session(&u),
            None,
        )
        .await;
    assert_eq!(
        v,
        json!({"feedback_id": feature["id"], "upvotes": 0, "downvotes": 1, "score": -1, "user_vote": -1})
    );
    let (_, v) = app
        .call(
            Method::DELETE,
            &format!("{base}/vote"),
            Auth::Session(&u),
            None,
        )
        .await;
    assert_eq!(
        v,
        json!({"feedback_id": feature["id"], "upvotes": 0, "downvotes": 0, "score": 0, "user_vote": 0})
    );

    let res = app
        .send(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(&bug)),
            Auth::Session(&u),
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "voting_not_allowed").await;
    let res = app
        .send(
            Method::POST,
            &format!("{base}/upvote"),
            Auth::Key(key(&project)),
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = app
        .send(
            Method::POST,
            "/v1/feedback/00000000-0000-0000-0000-000000000000/upvote",
            Auth::Session(&u),
            None,
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn fifty_concurrent_voters_give_exact_counts() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("fb-race").await;
    let feature = submit(&app, &project, json!({"title": "Race", "type": "feature"})).await;
    let mut tokens = Vec::new();
    for i in 0..50 {
        tokens.push(app.login(&format!("voter{i}@example.com")).await);
    }
    let path = format!("/v1/feedback/{}", id(&feature));
    let votes = tokens.iter().enumerate().map(|(i, t)| {
        let action = if i % 5 == 0 { "downvote" } else { "upvote" };
        let req = app
            .client
            .post(app.url(&format!("{path}/{action}")))
            .bearer_auth(t)
            .send();
        // Each voter also repeats the vote at once: a repeat must not count twice.
        let again = app
            .client
            .post(app.url(&format!("{path}/{action}")))
            .bearer_auth(t)
            .send();
        async move { (req.await.unwrap().status(), again.await.unwrap().status()) }
    });
    for (a, b) in futures::future::join_all(votes).await {
        assert_eq!((a, b), (StatusCode::OK, StatusCode::OK));
    }
    let (_, list) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/fb-race",
            Auth::None,
            None,
        )
        .await;
    let entry = &list["data"][0];
    assert_eq!(
        (
            entry["upvotes"].as_i64(),
            entry["downvotes"].as_i64(),
            entry["score"].as_i64()
        ),
        (Some(40), Some(10), Some(30))
    );
}
