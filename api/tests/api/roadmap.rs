//! The roadmap shows what the team accepted (contract part 3, "The first hour"): entries from the
//! secret key or a member start on it; public submissions wait until a member puts them on it or
//! changes their status. The board lists every public entry either way.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::identity::{jwt, now, rotate};

async fn post(app: &TestApp, path: &str, auth: Auth<'_>, title: &str) -> Value {
    let body = json!({"title": title, "type": "feature"});
    let (status, entry) = app.call(Method::POST, path, auth, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{title}: {entry}");
    entry
}

fn sorted_titles(entries: &Value) -> Vec<String> {
    let mut titles: Vec<String> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect();
    titles.sort();
    titles
}

async fn roadmap(app: &TestApp, slug: &str) -> Value {
    let path = format!("/v1/feedback/by-project/{slug}/roadmap");
    app.ok(Method::GET, &path, Auth::None, None).await
}

async fn patch(app: &TestApp, token: &str, entry: &Value, body: Value) -> Value {
    let path = format!("/v1/feedback/{}", id(entry));
    app.ok(Method::PATCH, &path, Auth::Session(token), Some(body))
        .await
}

#[tokio::test]
async fn who_submits_decides_whether_an_entry_starts_on_the_roadmap() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("rm-who").await;
    let pid = id(&project).to_owned();
    let viewer = app
        .member_with_role(&owner, &pid, "viewer@example.com", "viewer")
        .await;
    let member = app
        .member_with_role(&owner, &pid, "member@example.com", "member")
        .await;
    let stranger = app.login("stranger@example.com").await;
    let secret = rotate(&app, &owner, &project).await;
    let claims = json!({"sub": "cust-1", "name": "Ada", "exp": now() + 3600});
    let (status, session) = app
        .call(
            Method::POST,
            "/v1/auth/identify",
            Auth::Key(project["publishable_key"].as_str().unwrap()),
            Some(json!({"token": jwt(&secret, claims)})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let end_user = session["token"].as_str().unwrap().to_owned();

    let slug = "/v1/feedback/by-project/rm-who";
    let publishable = project["publishable_key"].as_str().unwrap();
    let cases: [(&str, &str, Auth, bool); 7] = [
        (
            "Via secret key",
            "/v1/feedback",
            Auth::Key(key(&project)),
            true,
        ),
        (
            "Via publishable key",
            "/v1/feedback",
            Auth::Key(publishable),
            false,
        ),
        ("Via anonymous visitor", slug, Auth::None, false),
        ("Via end user", slug, Auth::Session(&end_user), false),
        ("Via stranger", slug, Auth::Session(&stranger), false),
        ("Via viewer", slug, Auth::Session(&viewer), false),
        ("Via member", slug, Auth::Session(&member), true),
    ];
    for (title, path, auth, on) in cases {
        let entry = post(&app, path, auth, title).await;
        assert_eq!(entry["on_roadmap"], on, "{title}: {entry}");
    }
    // A member's session with X-Project-Id stands for the secret key.
    let res = app
        .client
        .post(app.url("/v1/feedback"))
        .bearer_auth(&owner)
        .header("X-Project-Id", &pid)
        .json(&json!({"title": "Via dashboard", "type": "feature"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.json::<Value>().await.unwrap()["on_roadmap"], true);

    let road = roadmap(&app, "rm-who").await;
    assert_eq!(
        sorted_titles(&road["planned"]),
        ["Via dashboard", "Via member", "Via secret key"]
    );
    assert!(road["planned"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["on_roadmap"] == true && e.get("submitter_email").is_none()));
    let page = app
        .client
        .get(app.url("/f/rm-who/roadmap"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Via secret key") && page.contains("Via member"));
    for off in [
        "publishable key",
        "anonymous visitor",
        "end user",
        "stranger",
        "viewer",
    ] {
        assert!(!page.contains(&format!("Via {off}")), "{off}");
    }
    // The board and the members' list show every entry; members see `on_roadmap`.
    let board = app.ok(Method::GET, slug, Auth::None, None).await;
    assert_eq!(board["total"], 8);
    let path = format!("/v1/feedback?project_id={pid}&per_page=100");
    let all = app
        .ok(Method::GET, &path, Auth::Session(&owner), None)
        .await;
    let accepted: Vec<&Value> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["on_roadmap"].as_bool().unwrap())
        .collect();
    assert_eq!(accepted.len(), 3, "{all}");
}

#[tokio::test]
async fn a_member_puts_entries_on_the_roadmap_and_takes_them_off() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("rm-accept").await;
    let slug = "/v1/feedback/by-project/rm-accept";
    let idea = post(&app, slug, Auth::None, "Offline mode").await;
    let other = post(&app, slug, Auth::None, "Team spaces").await;
    let ours = post(&app, "/v1/feedback", Auth::Key(key(&project)), "SSO").await;
    assert_eq!(
        sorted_titles(&roadmap(&app, "rm-accept").await["planned"]),
        ["SSO"]
    );

    // Accepted as it is: it shows under its status, `planned`.
    let accepted = patch(&app, &owner, &idea, json!({"on_roadmap": true})).await;
    assert_eq!(
        (
            accepted["on_roadmap"].as_bool(),
            accepted["status"].as_str()
        ),
        (Some(true), Some("planned"))
    );
    // A status change accepts it too.
    let moved = patch(&app, &owner, &other, json!({"status": "in_progress"})).await;
    assert_eq!(moved["on_roadmap"], true);
    // Taken off: an explicit `false` wins over the status change in the same request.
    let off = patch(
        &app,
        &owner,
        &ours,
        json!({"status": "in_progress", "on_roadmap": false}),
    )
    .await;
    assert_eq!(
        (off["on_roadmap"].as_bool(), off["status"].as_str()),
        (Some(false), Some("in_progress"))
    );
    let road = roadmap(&app, "rm-accept").await;
    assert_eq!(sorted_titles(&road["planned"]), ["Offline mode"]);
    assert_eq!(sorted_titles(&road["in_progress"]), ["Team spaces"]);

    let path = format!("/v1/feedback/{}", id(&idea));
    app.refused(
        (Method::PATCH, &path),
        Auth::Session(&owner),
        Some(json!({"on_roadmap": "yes"})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    let viewer = app
        .member_with_role(&owner, id(&project), "viewer@example.com", "viewer")
        .await;
    app.refused(
        (Method::PATCH, &path),
        Auth::Session(&viewer),
        Some(json!({"on_roadmap": false})),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    assert_eq!(
        sorted_titles(&roadmap(&app, "rm-accept").await["planned"]),
        ["Offline mode"]
    );
}
