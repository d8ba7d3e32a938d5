//! The publishable key and the per-client limits on what the public can reach.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

fn publishable(project: &Value) -> &str {
    project["publishable_key"]
        .as_str()
        .expect("publishable_key")
}

#[tokio::test]
async fn the_publishable_key_has_the_public_scopes_only() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pub-key").await;
    let pk = publishable(&project).to_owned();
    assert!(pk.starts_with("pk_") && pk.len() >= 35 && pk != key(&project));

    let (status, me) = app
        .call(Method::GET, "/v1/project", Auth::Key(&pk), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        me,
        json!({"id": id(&project), "name": "Project pub-key", "slug": "pub-key"})
    );
    let (status, _) = app
        .call(Method::GET, "/v1/project", Auth::Key(key(&project)), None)
        .await;
    assert_eq!(status, StatusCode::OK);

    let (status, _) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(&pk),
            Some(json!({"title": "Dark mode", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    for (method, path) in [(Method::GET, "/v1/indexes"), (Method::POST, "/v1/indexes")] {
        let res = app
            .send(method, path, Auth::Key(&pk), Some(json!({"name": "x"})))
            .await;
        assert_problem(res, StatusCode::FORBIDDEN, "insufficient_scope").await;
    }

    // Every member sees it; rotating it (admins) retires the old one at once.
    let viewer = app
        .member_with_role(&owner, id(&project), "viewer@example.com", "viewer")
        .await;
    let (_, seen) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{}", id(&project)),
            Auth::Session(&viewer),
            None,
        )
        .await;
    assert_eq!(seen["publishable_key"], pk.as_str());
    let rotate = format!("/v1/projects/{}/publishable-key/rotate", id(&project));
    app.refused(
        (Method::POST, &rotate),
        Auth::Session(&viewer),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let (status, rotated) = app
        .call(Method::POST, &rotate, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(publishable(&rotated), pk);
    assert_eq!(rotated["api_key"], project["api_key"]);
    app.refused(
        (Method::GET, "/v1/project"),
        Auth::Key(&pk),
        None,
        (StatusCode::UNAUTHORIZED, "unauthorized"),
    )
    .await;
}

/// Sends with the publishable key as a client behind the trusted proxy at 127.0.0.1.
async fn from_client(
    app: &TestApp,
    pk: &str,
    client: &str,
    path: &str,
    body: Value,
) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .header("X-Project-Key", pk)
        .header("X-Forwarded-For", client)
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn public_writes_are_limited_per_client_and_the_secret_key_is_not() {
    let app = spawn_app_with(&[
        "--rate-writes-per-minute",
        "2",
        "--trusted-proxies",
        "127.0.0.1/32",
    ])
    .await;
    let (_, project) = app.owner_with_project("pub-writes").await;
    let pk = publishable(&project).to_owned();
    let idea = json!({"title": "Idea", "type": "feedback"});
    for _ in 0..2 {
        let res = from_client(&app, &pk, "203.0.113.5", "/v1/feedback", idea.clone()).await;
        assert_eq!(res.status(), StatusCode::CREATED);
    }
    let res = from_client(&app, &pk, "203.0.113.5", "/v1/feedback", idea.clone()).await;
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait));
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    // Another client, and IPv6 clients per /64.
    let res = from_client(&app, &pk, "203.0.113.6", "/v1/feedback", idea.clone()).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    for (client, want) in [
        ("2001:db8:7:7::1", StatusCode::CREATED),
        ("2001:db8:7:7::2", StatusCode::CREATED),
        ("2001:db8:7:7:ffff::3", StatusCode::TOO_MANY_REQUESTS),
    ] {
        let res = from_client(&app, &pk, client, "/v1/feedback", idea.clone()).await;
        assert_eq!(res.status(), want, "{client}");
    }
    // The secret key is the customer's own server: no per-client limit.
    for _ in 0..5 {
        let res = from_client(
            &app,
            key(&project),
            "203.0.113.5",
            "/v1/feedback",
            idea.clone(),
        )
        .await;
        assert_eq!(res.status(), StatusCode::CREATED);
    }
    // Only what was accepted was stored: 2 + 1 + 2 + 5.
    let (_, list) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/pub-writes",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(list["data"].as_array().unwrap().len(), 10);
}

#[tokio::test]
async fn a_public_event_batch_is_taken_whole_or_refused_whole() {
    let app = spawn_app_with(&[
        "--rate-events-per-second",
        "5",
        "--trusted-proxies",
        "127.0.0.1/32",
    ])
    .await;
    let (_, project) = app.owner_with_project("pub-events").await;
    let pk = publishable(&project).to_owned();
    let batch = |n: usize| json!({"events": vec![json!({"name": "pageview", "url": "https://example.com/"}); n]});
    let res = from_client(&app, &pk, "198.51.100.1", "/v1/analytics/events", batch(4)).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let res = from_client(&app, &pk, "198.51.100.1", "/v1/analytics/events", batch(3)).await;
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    let res = from_client(&app, &pk, "198.51.100.1", "/v1/analytics/events", batch(1)).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let res = from_client(&app, &pk, "198.51.100.2", "/v1/analytics/events", batch(5)).await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
    let res = from_client(
        &app,
        key(&project),
        "198.51.100.1",
        "/v1/analytics/events",
        batch(50),
    )
    .await;
    assert_eq!(res.status(), StatusCode::ACCEPTED);
}

#[tokio::test]
async fn votes_are_limited_per_user() {
    let app = spawn_app_with(&["--rate-votes-per-minute", "2"]).await;
    let (_, project) = app.owner_with_project("pub-votes").await;
    let (_, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "Dark mode", "type": "feature"})),
        )
        .await;
    let voter = app.login("voter@example.com").await;
    let other = app.login("other@example.com").await;
    let path = format!("/v1/feedback/{}/upvote", id(&entry));
    for _ in 0..2 {
        let (status, _) = app
            .call(Method::POST, &path, Auth::Session(&voter), None)
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    app.refused(
        (Method::POST, &path),
        Auth::Session(&voter),
        None,
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
    )
    .await;
    let (status, vote) = app
        .call(Method::POST, &path, Auth::Session(&other), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(vote["upvotes"], 2);
}

/// Two api processes of one deployment (one database, one Redis): a voter's votes spread over
/// both meet one limit, not one per process.
#[tokio::test]
async fn a_flood_spread_over_two_apis_meets_one_limit() {
    let db = fresh_database_url();
    let flags = ["--rate-votes-per-minute", "3"];
    let first = spawn_app_on(db.clone(), &flags).await;
    let second = spawn_app_on(db, &flags).await;
    let (_, project) = first.owner_with_project("shared-votes").await;
    let voter = first.login("voter@example.com").await;
    let mut paths = Vec::new();
    for n in 0..4 {
        let (_, entry) = first
            .call(
                Method::POST,
                "/v1/feedback",
                Auth::Key(key(&project)),
                Some(json!({"title": format!("Idea {n}"), "type": "feature"})),
            )
            .await;
        paths.push(format!("/v1/feedback/{}/upvote", id(&entry)));
    }
    for (n, path) in paths[..3].iter().enumerate() {
        let app = if n % 2 == 0 { &first } else { &second };
        let (status, _) = app
            .call(Method::POST, path, Auth::Session(&voter), None)
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    // The second process took one vote only: alone, it would allow two more.
    second
        .refused(
            (Method::POST, &paths[3]),
            Auth::Session(&voter),
            None,
            (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
        )
        .await;
}

#[test]
fn help_shows_no_secret() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shipmate-api"))
        .arg("--help")
        .env(
            "DATABASE_URL",
            "postgres://app:hunter2secret@db.internal:5432/shipmate",
        )
        .env("SHIPMATE_PROVIDER_A_KEY", "sk-live-topsecret")
        .env("SHIPMATE_OIDC_CLIENT_SECRET", "oidc-topsecret")
        .env_remove("SHIPMATE_PROVIDER_B_KEY")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    for secret in ["hunter2secret", "sk-live-topsecret", "oidc-topsecret"] {
        assert!(!help.contains(secret), "--help shows {secret}:\n{help}");
    }
    assert!(
        help.contains("postgres://app:***@db.internal:5432/shipmate"),
        "{help}"
    );
    assert!(help.contains("SHIPMATE_PROVIDER_A_KEY is set"), "{help}");
    assert!(help.contains("SHIPMATE_PROVIDER_B_KEY is unset"), "{help}");
}
