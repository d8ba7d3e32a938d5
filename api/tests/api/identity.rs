//! End-user identity: a customer's backend signs a JWT with the project's identify secret; the
//! `eu_` session it buys votes, comments and submits in that project only.

use jsonwebtoken::{encode, EncodingKey, Header};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

pub(crate) fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

pub(crate) fn jwt(secret: &str, claims: Value) -> String {
    encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

pub(crate) async fn rotate(app: &TestApp, owner: &str, project: &Value) -> String {
    let (status, body) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{}/identify-secret/rotate", id(project)),
            Auth::Session(owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["identify_secret"].as_str().unwrap().to_owned()
}

pub(crate) async fn identify(app: &TestApp, project: &Value, token: &str) -> (StatusCode, Value) {
    // The publishable key is enough: the secret that signs never reaches a browser.
    let pk = project["publishable_key"].as_str().unwrap();
    app.call(
        Method::POST,
        "/v1/auth/identify",
        Auth::Key(pk),
        Some(json!({"token": token})),
    )
    .await
}

#[tokio::test]
async fn an_identified_end_user_votes_comments_and_submits_in_its_project_only() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("eu-a").await;
    let secret = rotate(&app, &owner, &project).await;
    let claims = json!({"sub": "cust-42", "name": "Ada", "email": "ada@customer.example", "exp": now() + 3600});
    let (status, session) = identify(&app, &project, &jwt(&secret, claims.clone())).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let token = session["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("eu_"));
    assert_eq!(session["user"]["name"], "Ada");
    // The same sub is the same voter each time.
    let (_, again) = identify(&app, &project, &jwt(&secret, claims)).await;
    assert_eq!(again["user"]["id"], session["user"]["id"]);

    let (_, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "SSO", "type": "feature"})),
        )
        .await;
    let (status, vote) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(&entry)),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_eq!(
        (status, vote["upvotes"].as_i64()),
        (StatusCode::OK, Some(1)),
        "{vote}"
    );
    let (_, vote) = identify(
        &app,
        &project,
        &jwt(&secret, json!({"sub": "cust-42", "exp": now() + 60})),
    )
    .await;
    let second = vote["token"].as_str().unwrap();
    let (_, state) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(&entry)),
            Auth::Session(second),
            None,
        )
        .await;
    assert_eq!(
        state["upvotes"], 1,
        "one vote per end user, whichever session"
    );
    let (status, comment) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/comments", id(&entry)),
            Auth::Session(&token),
            Some(json!({"body": "We need this"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{comment}");
    assert_eq!(
        (
            comment["official"].as_bool(),
            comment["author"]["name"].as_str()
        ),
        (Some(false), Some("Ada"))
    );
    let (status, submitted) = app
        .call(
            Method::POST,
            "/v1/feedback/by-project/eu-a",
            Auth::Session(&token),
            Some(json!({"title": "Audit log", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{submitted}");
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/feedback?project_id={}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    let mine = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Audit log")
        .unwrap()
        .clone();
    assert_eq!(mine["submitter_email"], "ada@customer.example");

    // Anywhere else the end-user session is no session.
    let (_, other) = app.owner_with_project("eu-b").await;
    let (_, foreign) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&other)),
            Some(json!({"title": "X", "type": "feature"})),
        )
        .await;
    for (method, path, body) in [
        (
            Method::POST,
            format!("/v1/feedback/{}/upvote", id(&foreign)),
            None,
        ),
        (
            Method::POST,
            format!("/v1/feedback/{}/comments", id(&foreign)),
            Some(json!({"body": "hi"})),
        ),
        (
            Method::POST,
            "/v1/feedback/by-project/eu-b".to_owned(),
            Some(json!({"title": "Y", "type": "bug"})),
        ),
        (Method::GET, "/v1/me".to_owned(), None),
        (Method::GET, "/v1/projects".to_owned(), None),
        (
            Method::GET,
            format!("/v1/feedback?project_id={}", id(&project)),
            None,
        ),
    ] {
        app.refused(
            (method, &path),
            Auth::Session(&token),
            body,
            (StatusCode::UNAUTHORIZED, "unauthorized"),
        )
        .await;
    }
}

#[tokio::test]
async fn every_malformed_or_foreign_identity_is_401_invalid_identity() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("eu-bad").await;
    let (other_owner, other) = app.owner_with_project("eu-bad-b").await;
    // No secret yet: nothing verifies.
    let (status, body) = identify(
        &app,
        &project,
        &jwt("whatever", json!({"sub": "u", "exp": now() + 60})),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_identity")),
        "{body}"
    );
    let secret = rotate(&app, &owner, &project).await;
    let other_secret = rotate(&app, &other_owner, &other).await;
    let cases = [
        (
            "bad signature",
            jwt("not-the-secret", json!({"sub": "u", "exp": now() + 60})),
        ),
        (
            "expired",
            jwt(&secret, json!({"sub": "u", "exp": now() - 3600})),
        ),
        (
            "exp too far ahead",
            jwt(&secret, json!({"sub": "u", "exp": now() + 48 * 3600})),
        ),
        ("no exp", jwt(&secret, json!({"sub": "u"}))),
        ("no sub", jwt(&secret, json!({"exp": now() + 60}))),
        (
            "empty sub",
            jwt(&secret, json!({"sub": " ", "exp": now() + 60})),
        ),
        (
            "another project's secret",
            jwt(&other_secret, json!({"sub": "u", "exp": now() + 60})),
        ),
        ("not a JWT", "abc.def.ghi".to_owned()),
        ("garbage", "hello".to_owned()),
    ];
    for (what, token) in cases {
        let (status, body) = identify(&app, &project, &token).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("invalid_identity")),
            "{what}: {body}"
        );
    }
    // A rotated secret: tokens signed with the old one are refused from then on.
    let old = jwt(&secret, json!({"sub": "u", "exp": now() + 60}));
    assert_eq!(identify(&app, &project, &old).await.0, StatusCode::OK);
    rotate(&app, &owner, &project).await;
    assert_eq!(
        identify(&app, &project, &old).await.1["code"],
        "invalid_identity"
    );
    // Only admins rotate; an empty body is a 422, a missing key a 401.
    let member = app
        .member_with_role(&owner, id(&project), "m@example.com", "member")
        .await;
    app.refused(
        (
            Method::POST,
            &format!("/v1/projects/{}/identify-secret/rotate", id(&project)),
        ),
        Auth::Session(&member),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    app.refused(
        (Method::POST, "/v1/auth/identify"),
        Auth::Key(key(&project)),
        Some(json!({})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    app.refused(
        (Method::POST, "/v1/auth/identify"),
        Auth::None,
        Some(json!({"token": old})),
        (StatusCode::UNAUTHORIZED, "unauthorized"),
    )
    .await;
}
