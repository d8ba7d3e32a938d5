//! Boards (contract part 3, "Feedback, further"): the default board, making, changing and deleting
//! boards (admins), entries posted to and moved between them, and the refusals that change nothing.
//! Who sees which board is walked in `worker/tests/pipeline/boards_access.rs`.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

async fn boards(app: &TestApp, owner: &str, pid: &str) -> Vec<Value> {
    app.ok(
        Method::GET,
        &format!("/v1/projects/{pid}/boards"),
        Auth::Session(owner),
        None,
    )
    .await["data"]
        .as_array()
        .unwrap()
        .clone()
}

async fn new_board(app: &TestApp, owner: &str, pid: &str, body: Value) -> (StatusCode, Value) {
    app.call(
        Method::POST,
        &format!("/v1/projects/{pid}/boards"),
        Auth::Session(owner),
        Some(body),
    )
    .await
}

fn field(problem: &Value) -> &str {
    problem["errors"][0]["field"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn boards_are_made_changed_and_deleted_without_losing_an_entry() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("boards-a").await;
    let pid = id(&project).to_owned();

    // Every project starts with its default board, which holds entries posted without one.
    let start = boards(&app, &owner, &pid).await;
    assert_eq!(start.len(), 1);
    assert_eq!(start[0]["slug"], "feedback");
    assert_eq!(start[0]["name"], "Feedback");
    assert_eq!(start[0]["visibility"], "public");
    assert_eq!(start[0]["default"], true);
    let default_id = start[0]["id"].as_str().unwrap().to_owned();
    let plain = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "No board named", "type": "feature"})),
        )
        .await;
    assert_eq!(plain["board_id"], default_id.as_str());

    // Refusals change nothing.
    let viewer = app
        .member_with_role(&owner, &pid, "viewer-b@example.com", "viewer")
        .await;
    let writer = app
        .member_with_role(&owner, &pid, "member-b@example.com", "member")
        .await;
    for token in [&viewer, &writer] {
        let (status, _) = new_board(&app, token, &pid, json!({"name": "X", "slug": "xxx"})).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    for (body, bad) in [
        (
            json!({"name": "Ent", "slug": "ent", "visibility": "segment"}),
            "segment",
        ),
        (
            json!({"name": "Ent", "slug": "ent", "visibility": "public", "segment": {"plan": "x"}}),
            "segment",
        ),
        (
            json!({"name": "Ent", "slug": "ent", "visibility": "segment", "segment": {"plan": {"nested": 1}}}),
            "segment",
        ),
        (json!({"name": "Ent", "slug": "Not A Slug"}), "slug"),
        (
            json!({"name": "Ent", "slug": "ent", "visibility": "secret"}),
            "visibility",
        ),
        (json!({"name": "", "slug": "ent"}), "name"),
    ] {
        let (status, problem) = new_board(&app, &owner, &pid, body.clone()).await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {problem}"
        );
        assert_eq!(field(&problem), bad, "{body}: {problem}");
    }
    assert_eq!(boards(&app, &owner, &pid).await.len(), 1);

    // A private and a segment board; slugs are unique in the project.
    let (status, internal) = new_board(
        &app,
        &owner,
        &pid,
        json!({"name": "Team only", "slug": "internal", "visibility": "private"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{internal}");
    assert_eq!(internal["visibility"], "private");
    assert_eq!(internal["segment"], Value::Null);
    assert_eq!(internal["default"], false);
    let (status, ent) = new_board(
        &app,
        &owner,
        &pid,
        json!({"name": "Enterprise", "slug": "enterprise", "visibility": "segment", "segment": {"plan": "enterprise", "seats": 50}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{ent}");
    assert_eq!(ent["segment"], json!({"plan": "enterprise", "seats": 50}));
    let (status, problem) = new_board(
        &app,
        &owner,
        &pid,
        json!({"name": "Again", "slug": "internal"}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(problem["code"], "board_exists");

    // Entries name their board by slug; a board of another project is not found.
    let (other_owner, other) = app.owner_with_project("boards-b").await;
    let (status, problem) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&other)),
            Some(json!({"title": "Elsewhere", "type": "bug", "board": "internal"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{problem}");
    let on_internal = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "Audit log", "type": "feature", "board": "internal"})),
        )
        .await;
    assert_eq!(on_internal["board_id"], internal["id"]);
    // The publishable key is the public's: it posts where the public may.
    let (status, _) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(project["publishable_key"].as_str().unwrap()),
            Some(json!({"title": "Sneaky", "type": "bug", "board": "internal"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let members_view = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&board=internal"),
            Auth::Session(&viewer),
            None,
        )
        .await;
    assert_eq!(members_view["total"], 1);
    assert_eq!(members_view["data"][0]["title"], "Audit log");
    let (status, _) = app
        .call(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&board=nope"),
            Auth::Session(&viewer),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Moving an entry: a member names the board.
    let moved = app
        .ok(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&plain)),
            Auth::Session(&writer),
            Some(json!({"board": "enterprise"})),
        )
        .await;
    assert_eq!(moved["board_id"], ent["id"]);
    let (status, _) = app
        .call(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&plain)),
            Auth::Session(&writer),
            Some(json!({"board": "nope"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Changing a board: `segment` needs a segment (sent or kept); other visibilities drop it.
    let ent_path = format!("/v1/projects/{pid}/boards/{}", id(&ent));
    let internal_path = format!("/v1/projects/{pid}/boards/{}", id(&internal));
    let (status, problem) = app
        .call(
            Method::PATCH,
            &internal_path,
            Auth::Session(&owner),
            Some(json!({"visibility": "segment"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
    assert_eq!(field(&problem), "segment");
    let renamed = app
        .ok(
            Method::PATCH,
            &ent_path,
            Auth::Session(&owner),
            Some(json!({"name": "Enterprise customers", "visibility": "public"})),
        )
        .await;
    assert_eq!(renamed["name"], "Enterprise customers");
    assert_eq!(renamed["segment"], Value::Null);
    let back = app
        .ok(
            Method::PATCH,
            &ent_path,
            Auth::Session(&owner),
            Some(json!({"visibility": "segment", "segment": {"plan": "enterprise"}})),
        )
        .await;
    assert_eq!(back["segment"], json!({"plan": "enterprise"}));
    let (status, problem) = app
        .call(
            Method::PATCH,
            &ent_path,
            Auth::Session(&owner),
            Some(json!({"slug": "internal"})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{problem}");

    // Deleting: never the default board; a board with entries only with somewhere to move them.
    let default_path = format!("/v1/projects/{pid}/boards/{default_id}");
    let problem = app
        .refused(
            (Method::DELETE, &default_path),
            Auth::Session(&owner),
            None,
            (StatusCode::CONFLICT, "default_board"),
        )
        .await;
    assert!(problem["detail"].is_string());
    app.refused(
        (Method::DELETE, &internal_path),
        Auth::Session(&owner),
        None,
        (StatusCode::CONFLICT, "board_not_empty"),
    )
    .await;
    let other_board = &boards(&app, &other_owner, id(&other)).await[0];
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("{internal_path}?move_to={}", id(other_board)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(boards(&app, &owner, &pid).await.len(), 3);
    app.ok(
        Method::DELETE,
        &format!("{internal_path}?move_to={default_id}"),
        Auth::Session(&owner),
        None,
    )
    .await;
    let left: Vec<String> = boards(&app, &owner, &pid)
        .await
        .iter()
        .map(|b| b["slug"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(left, ["feedback", "enterprise"]);
    let everything = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(everything["total"], 2, "no entry is lost: {everything}");
    let audit = everything["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Audit log")
        .unwrap();
    assert_eq!(audit["board_id"], default_id.as_str());
}
