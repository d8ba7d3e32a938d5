//! Teams: invites, roles and what each role may do, and the rules that keep a project owned.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

#[tokio::test]
async fn an_invite_brings_the_invited_email_in_once_with_its_role() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("team-invite").await;
    let pid = id(&project);
    let (status, invite) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{pid}/invites"),
            Auth::Session(&owner),
            Some(json!({"email": "Mia@Example.com", "role": "member"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    assert_eq!(invite["email"], "mia@example.com");
    assert_eq!(invite["role"], "member");
    assert!(invite["url"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{}/invite/", app.base)));
    let token = invite_token(&invite).to_owned();

    let (status, preview) = app
        .call(
            Method::GET,
            &format!("/v1/invites/{token}"),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(preview["project"]["name"], "Project team-invite");
    assert_eq!(preview["role"], "member");
    let (_, pending) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}/invites"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(pending["data"].as_array().unwrap().len(), 1);
    assert!(pending["data"][0].get("url").is_none());

    let intruder = app.login("intruder@example.com").await;
    let accept = format!("/v1/invites/{token}/accept");
    app.refused(
        (Method::POST, &accept),
        Auth::Session(&intruder),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let mia = app.login("mia@example.com").await;
    let (status, joined) = app
        .call(Method::POST, &accept, Auth::Session(&mia), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(joined, json!({"project_id": pid, "role": "member"}));
    app.refused(
        (Method::POST, &accept),
        Auth::Session(&mia),
        None,
        (StatusCode::GONE, "invite_expired"),
    )
    .await;

    let (_, members) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}/members"),
            Auth::Session(&mia),
            None,
        )
        .await;
    let roles: Vec<(&str, &str)> = members["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["email"].as_str().unwrap(), m["role"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [
            ("owner-team-invite@example.com", "owner"),
            ("mia@example.com", "member")
        ]
    );
    // A member sees the project, without the secret key.
    let (_, seen) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}"),
            Auth::Session(&mia),
            None,
        )
        .await;
    assert_eq!(seen["role"], "member");
    assert!(seen.get("api_key").is_none(), "{seen}");
    let (_, seen) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(seen["role"], "owner");
    assert!(seen["api_key"].as_str().unwrap().starts_with("pk_"));
    // Inviting someone already in answers 409.
    app.refused(
        (Method::POST, &format!("/v1/projects/{pid}/invites")),
        Auth::Session(&owner),
        Some(json!({"email": "mia@example.com", "role": "viewer"})),
        (StatusCode::CONFLICT, "conflict"),
    )
    .await;
}

#[tokio::test]
async fn escalation_attempts_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("team-roles").await;
    let pid = id(&project).to_owned();
    let admin = app
        .member_with_role(&owner, &pid, "admin@example.com", "admin")
        .await;
    let member = app
        .member_with_role(&owner, &pid, "member@example.com", "member")
        .await;
    let (_, members) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}/members"),
            Auth::Session(&owner),
            None,
        )
        .await;
    let user_id = |email: &str| -> String {
        members["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["email"] == email)
            .map(|m| m["user_id"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let (owner_id, member_id) = (
        user_id("owner-team-roles@example.com"),
        user_id("member@example.com"),
    );
    let invite = |role: &str| json!({"email": "x@example.com", "role": role});
    let invites = format!("/v1/projects/{pid}/invites");

    // A member invites nobody; an admin invites, but not an owner.
    app.refused(
        (Method::POST, &invites),
        Auth::Session(&member),
        Some(invite("viewer")),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    app.refused(
        (Method::POST, &invites),
        Auth::Session(&admin),
        Some(invite("owner")),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    app.refused(
        (Method::POST, &invites),
        Auth::Session(&admin),
        Some(invite("boss")),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    let (_, pending) = app
        .call(Method::GET, &invites, Auth::Session(&owner), None)
        .await;
    assert_eq!(pending["data"], json!([]));

    // An admin can neither demote nor remove an owner, nor make themself one.
    let owner_path = format!("/v1/projects/{pid}/members/{owner_id}");
    app.refused(
        (Method::PATCH, &owner_path),
        Auth::Session(&admin),
        Some(json!({"role": "viewer"})),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    app.refused(
        (Method::DELETE, &owner_path),
        Auth::Session(&admin),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let member_path = format!("/v1/projects/{pid}/members/{member_id}");
    app.refused(
        (Method::PATCH, &member_path),
        Auth::Session(&admin),
        Some(json!({"role": "owner"})),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    // A member changes no roles; an admin does.
    app.refused(
        (Method::PATCH, &member_path),
        Auth::Session(&member),
        Some(json!({"role": "admin"})),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let (status, changed) = app
        .call(
            Method::PATCH,
            &member_path,
            Auth::Session(&admin),
            Some(json!({"role": "viewer"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(changed["role"], "viewer");

    // The last owner can be neither demoted nor removed, even by themself.
    app.refused(
        (Method::PATCH, &owner_path),
        Auth::Session(&owner),
        Some(json!({"role": "admin"})),
        (StatusCode::CONFLICT, "last_owner"),
    )
    .await;
    app.refused(
        (Method::DELETE, &owner_path),
        Auth::Session(&owner),
        None,
        (StatusCode::CONFLICT, "last_owner"),
    )
    .await;
    // With a second owner, the first may leave.
    let (status, _) = app
        .call(
            Method::PATCH,
            &member_path,
            Auth::Session(&owner),
            Some(json!({"role": "owner"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .call(Method::DELETE, &owner_path, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn members_work_without_the_secret_key_and_viewers_only_read() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("team-work").await;
    let pid = id(&project).to_owned();
    let member = app
        .member_with_role(&owner, &pid, "member@example.com", "member")
        .await;
    let viewer = app
        .member_with_role(&owner, &pid, "viewer@example.com", "viewer")
        .await;
    let changelog = format!("/v1/changelog/dashboard/{pid}");
    let entry = json!({"title": "T", "content": "C", "type": "fix"});
    let (status, _) = app
        .call(
            Method::POST,
            &changelog,
            Auth::Session(&member),
            Some(entry.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    app.refused(
        (Method::POST, &changelog),
        Auth::Session(&viewer),
        Some(entry),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let (status, list) = app
        .call(Method::GET, &changelog, Auth::Session(&viewer), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    app.refused(
        (Method::POST, &format!("/v1/projects/{pid}/api-key/rotate")),
        Auth::Session(&member),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;

    // Key endpoints take the session with X-Project-Id: viewers read, members write.
    let call = |token: &str, method: Method, body: Option<Value>| {
        let mut req = app
            .client
            .request(method, app.url("/v1/indexes"))
            .bearer_auth(token)
            .header("X-Project-Id", &pid);
        if let Some(b) = body {
            req = req.json(&b);
        }
        req.send()
    };
    let res = call(&viewer, Method::GET, None).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let index = json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"});
    let res = call(&viewer, Method::POST, Some(index.clone()))
        .await
        .unwrap();
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = call(&member, Method::POST, Some(index)).await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    // A search is a POST, yet a read: a viewer may search.
    let index: Value = res.json().await.unwrap();
    let res = app
        .client
        .post(app.url(&format!("/v1/indexes/{}/search", id(&index))))
        .bearer_auth(&viewer)
        .header("X-Project-Id", &pid)
        .json(&json!({"query": "anything"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let stranger = app.login("stranger@example.com").await;
    let res = call(&stranger, Method::GET, None).await.unwrap();
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
}
