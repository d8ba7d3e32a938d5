//! Email and password accounts: first-run setup, registration policy, sign-in and its failure
//! limit, sessions, password changes and resets, and the instance admin.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

const PASSWORD: &str = "correct horse battery";

async fn post(app: &TestApp, path: &str, auth: Auth<'_>, body: Value) -> reqwest::Response {
    app.send(Method::POST, path, auth, Some(body)).await
}

async fn register(app: &TestApp, email: &str) -> String {
    let res = post(
        app,
        "/v1/auth/register",
        Auth::None,
        json!({"email": email, "name": "Reg", "password": PASSWORD}),
    )
    .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let body: Value = res.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

async fn login(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    post(
        app,
        "/v1/auth/login",
        Auth::None,
        json!({"email": email, "password": password}),
    )
    .await
}

#[tokio::test]
async fn first_run_setup_makes_the_instance_admin_once() {
    let app = spawn_app_with(&["--dev-login", "0"]).await;
    let (_, providers) = app
        .call(Method::GET, "/v1/auth/providers", Auth::None, None)
        .await;
    assert_eq!(providers["setup_required"], true);
    assert_eq!(providers["data"][0]["id"], "password");

    let form = |token: &str, password: &str| json!({"token": token, "email": "Root@Example.com", "name": "Root", "password": password});
    let res = post(&app, "/v1/auth/setup", Auth::None, form("wrong", PASSWORD)).await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let res = post(
        &app,
        "/v1/auth/setup",
        Auth::None,
        form(&app.setup_token, "short"),
    )
    .await;
    let body = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    assert_eq!(body["errors"][0]["field"], "password");

    let res = post(
        &app,
        "/v1/auth/setup",
        Auth::None,
        form(&app.setup_token, PASSWORD),
    )
    .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let cookie = res.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("shipmate_session=st_") && cookie.contains("HttpOnly"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["user"]["email"], "root@example.com");
    assert_eq!(body["user"]["is_admin"], true);
    let (status, me) = app
        .call(
            Method::GET,
            "/v1/me",
            Auth::Session(body["token"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["is_admin"], true);

    // Once anyone exists, the setup is closed whatever the token.
    let res = post(
        &app,
        "/v1/auth/setup",
        Auth::None,
        form(&app.setup_token, PASSWORD),
    )
    .await;
    assert_problem(res, StatusCode::CONFLICT, "already_set_up").await;
    let (_, providers) = app
        .call(Method::GET, "/v1/auth/providers", Auth::None, None)
        .await;
    assert_eq!(providers["setup_required"], false);
    assert_eq!(
        login(&app, "root@example.com", PASSWORD).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn registration_needs_an_invite_for_that_email_by_default() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("reg-invite").await;
    let body = |email: &str, invite: Option<&str>| json!({"email": email, "name": "N", "password": PASSWORD, "invite": invite});
    let res = post(
        &app,
        "/v1/auth/register",
        Auth::None,
        body("new@example.com", None),
    )
    .await;
    assert_problem(res, StatusCode::FORBIDDEN, "registration_closed").await;

    let (_, invite) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{}/invites", id(&project)),
            Auth::Session(&owner),
            Some(json!({"email": "New@Example.com", "role": "member"})),
        )
        .await;
    let token = invite_token(&invite).to_owned();
    let res = post(
        &app,
        "/v1/auth/register",
        Auth::None,
        body("other@example.com", Some(&token)),
    )
    .await;
    assert_problem(res, StatusCode::FORBIDDEN, "registration_closed").await;
    // The refused attempt left no account behind.
    assert_eq!(
        login(&app, "other@example.com", PASSWORD).await.status(),
        StatusCode::UNAUTHORIZED
    );

    let res = post(
        &app,
        "/v1/auth/register",
        Auth::None,
        body("new@example.com", Some(&token)),
    )
    .await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let signed: Value = res.json().await.unwrap();
    let (_, projects) = app
        .call(
            Method::GET,
            "/v1/projects",
            Auth::Session(signed["token"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(projects["data"][0]["role"], "member");
    assert!(projects["data"][0].get("api_key").is_none(), "{projects}");

    let res = post(
        &app,
        "/v1/auth/register",
        Auth::None,
        body("third@example.com", Some(&token)),
    )
    .await;
    assert_problem(res, StatusCode::GONE, "invite_expired").await;
}

#[tokio::test]
async fn open_and_closed_registration() {
    let app = spawn_set_up_app(&[]).await;
    register(&app, "open@example.com").await;
    let res = post(
        &app,
        "/v1/auth/register",
        Auth::None,
        json!({"email": "OPEN@example.com", "name": "Again", "password": PASSWORD}),
    )
    .await;
    assert_problem(res, StatusCode::CONFLICT, "conflict").await;

    let app = spawn_app_with(&["--registration", "closed"]).await;
    app.login("admin@example.com").await;
    let res = post(
        &app,
        "/v1/auth/register",
        Auth::None,
        json!({"email": "closed@example.com", "name": "N", "password": PASSWORD}),
    )
    .await;
    assert_problem(res, StatusCode::FORBIDDEN, "registration_closed").await;
}

#[tokio::test]
async fn login_answers_alike_for_unknown_emails_and_locks_after_ten_failures() {
    let app = spawn_set_up_app(&[]).await;
    register(&app, "ann@example.com").await;
    assert_eq!(
        login(&app, "Ann@Example.com", PASSWORD).await.status(),
        StatusCode::OK
    );

    let wrong = assert_problem(
        login(&app, "ann@example.com", "not the password").await,
        StatusCode::UNAUTHORIZED,
        "invalid_credentials",
    )
    .await;
    let unknown = assert_problem(
        login(&app, "nobody@example.com", "not the password").await,
        StatusCode::UNAUTHORIZED,
        "invalid_credentials",
    )
    .await;
    assert_eq!(wrong, unknown);

    for _ in 0..9 {
        let res = login(&app, "ann@example.com", "still wrong").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    let res = login(&app, "ann@example.com", PASSWORD).await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=900).contains(&wait), "{wait}");
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    // Another email is not affected.
    register(&app, "bob@example.com").await;
    assert_eq!(
        login(&app, "bob@example.com", PASSWORD).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn sessions_are_listed_and_ended_one_by_one() {
    let app = spawn_set_up_app(&[]).await;
    let first = register(&app, "sam@example.com").await;
    let res = login(&app, "sam@example.com", PASSWORD).await;
    let second: Value = res.json().await.unwrap();
    let second = second["token"].as_str().unwrap();

    let (_, list) = app
        .call(
            Method::GET,
            "/v1/auth/sessions",
            Auth::Session(second),
            None,
        )
        .await;
    let sessions = list["data"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{list}");
    assert_eq!(sessions.iter().filter(|s| s["current"] == true).count(), 1);
    let other = sessions.iter().find(|s| s["current"] == false).unwrap();

    let (status, body) = app
        .call(
            Method::DELETE,
            &format!("/v1/auth/sessions/{}", id(other)),
            Auth::Session(second),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["deleted"], true);
    let (status, _) = app
        .call(Method::GET, "/v1/me", Auth::Session(&first), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app
        .call(Method::GET, "/v1/me", Auth::Session(second), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    // Another user's session id is not found, and nothing ends.
    let stranger = app.login("stranger@example.com").await;
    app.refused(
        (
            Method::DELETE,
            &format!("/v1/auth/sessions/{}", id(&sessions[0])),
        ),
        Auth::Session(&stranger),
        None,
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions() {
    let app = spawn_set_up_app(&[]).await;
    let old = register(&app, "pat@example.com").await;
    let res = login(&app, "pat@example.com", PASSWORD).await;
    let current: Value = res.json().await.unwrap();
    let current = current["token"].as_str().unwrap();

    let change = |cur: &str| json!({"current_password": cur, "password": "a new long password"});
    let res = post(
        &app,
        "/v1/auth/password",
        Auth::Session(current),
        change("wrong one"),
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "invalid_credentials").await;
    assert_eq!(
        login(&app, "pat@example.com", PASSWORD).await.status(),
        StatusCode::OK
    );

    let res = post(
        &app,
        "/v1/auth/password",
        Auth::Session(current),
        change(PASSWORD),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let (status, _) = app
        .call(Method::GET, "/v1/me", Auth::Session(&old), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app
        .call(Method::GET, "/v1/me", Auth::Session(current), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        login(&app, "pat@example.com", "a new long password")
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn an_admin_reset_link_works_once_and_ends_every_session() {
    let app = spawn_set_up_app(&[]).await;
    let admin = app.login("admin@example.com").await;
    let user_session = register(&app, "lee@example.com").await;
    let (_, me) = app
        .call(Method::GET, "/v1/me", Auth::Session(&user_session), None)
        .await;
    assert_eq!(me["is_admin"], false);
    let path = format!("/v1/admin/users/{}/password-reset", id(&me));

    app.refused(
        (Method::POST, &path),
        Auth::Session(&user_session),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let (status, link) = app
        .call(Method::POST, &path, Auth::Session(&admin), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let url = link["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("{}/reset-password?token=", app.base)),
        "{url}"
    );
    let token = url.split("token=").nth(1).unwrap();

    let confirm = |password: &str| json!({"token": token, "password": password});
    let res = post(
        &app,
        "/v1/auth/password-reset/confirm",
        Auth::None,
        confirm("short"),
    )
    .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = post(
        &app,
        "/v1/auth/password-reset/confirm",
        Auth::None,
        confirm("reset password 1"),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let (status, _) = app
        .call(Method::GET, "/v1/me", Auth::Session(&user_session), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        login(&app, "lee@example.com", "reset password 1")
            .await
            .status(),
        StatusCode::OK
    );
    let res = post(
        &app,
        "/v1/auth/password-reset/confirm",
        Auth::None,
        confirm("reset password 2"),
    )
    .await;
    assert_problem(res, StatusCode::GONE, "reset_expired").await;
    assert_eq!(
        login(&app, "lee@example.com", "reset password 2")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );

    for email in ["lee@example.com", "nobody@example.com"] {
        let res = post(
            &app,
            "/v1/auth/password-reset",
            Auth::None,
            json!({"email": email}),
        )
        .await;
        assert_eq!(res.status(), StatusCode::ACCEPTED);
    }
}

#[tokio::test]
async fn an_admin_disables_and_promotes_accounts_and_one_admin_always_stays() {
    let app = spawn_set_up_app(&[]).await;
    let admin = app.login("admin@example.com").await;
    let user = register(&app, "kim@example.com").await;
    let (_, users) = app
        .call(Method::GET, "/v1/admin/users", Auth::Session(&admin), None)
        .await;
    let list = users["data"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    let (admin_id, kim_id) = (id(&list[0]).to_owned(), id(&list[1]).to_owned());

    let (status, body) = app
        .call(
            Method::PATCH,
            &format!("/v1/admin/users/{kim_id}"),
            Auth::Session(&admin),
            Some(json!({"disabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["disabled"], true);
    let (status, _) = app
        .call(Method::GET, "/v1/me", Auth::Session(&user), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res = login(&app, "kim@example.com", PASSWORD).await;
    assert_problem(res, StatusCode::FORBIDDEN, "account_disabled").await;

    app.refused(
        (Method::PATCH, &format!("/v1/admin/users/{admin_id}")),
        Auth::Session(&admin),
        Some(json!({"is_admin": false})),
        (StatusCode::CONFLICT, "last_admin"),
    )
    .await;
    let (_, me) = app
        .call(Method::GET, "/v1/me", Auth::Session(&admin), None)
        .await;
    assert_eq!(me["is_admin"], true);

    let (_, settings) = app
        .call(
            Method::GET,
            "/v1/admin/settings",
            Auth::Session(&admin),
            None,
        )
        .await;
    assert_eq!(settings["registration"], "open");
    assert_eq!(settings["email_configured"], false);
}
