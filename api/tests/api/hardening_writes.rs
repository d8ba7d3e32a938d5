//! The security review's findings on public writes and links (contract part 3, "Accounts and public
//! writes, hardened"): publishable-key feedback is moderated, comments and similarity look-ups are
//! rate-limited, reset links are rationed and end each other, and a rotated identify secret ends
//! its end users' sessions.

use jsonwebtoken::{encode, EncodingKey, Header};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

const PASSWORD: &str = "correct horse battery";

#[tokio::test]
async fn feedback_through_the_publishable_key_follows_moderation() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pk-moderated").await;
    app.ok(
        Method::PATCH,
        &format!("/v1/projects/{}", id(&project)),
        Auth::Session(&owner),
        Some(json!({"feedback_moderation": true})),
    )
    .await;
    let entry = json!({"title": "Buy cheap pills", "type": "feedback"});
    let publishable = project["publishable_key"].as_str().unwrap();
    let held = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(publishable),
            Some(entry.clone()),
        )
        .await;
    assert_eq!(held["moderation"], "pending");
    // The customer's own server, with the secret key, is trusted.
    let direct = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(entry),
        )
        .await;
    assert_eq!(direct["moderation"], "approved");
    let board = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/pk-moderated",
            Auth::None,
            None,
        )
        .await;
    let ids: Vec<&Value> = board["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["id"])
        .collect();
    assert_eq!(ids, vec![&direct["id"]]);
}

#[tokio::test]
async fn comments_count_against_the_write_limit_per_client_and_per_actor() {
    let app = spawn_app_with(&[
        "--rate-writes-per-minute",
        "2",
        "--trusted-proxies",
        "127.0.0.1/32",
    ])
    .await;
    let (owner, project) = app.owner_with_project("comment-limit").await;
    let entry = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "Dark mode", "type": "feature"})),
        )
        .await;
    let path = format!("/v1/feedback/{}/comments", id(&entry));
    let comment = |token: &str, from: &str| {
        app.client
            .post(app.url(&path))
            .bearer_auth(token.to_owned())
            .header("X-Forwarded-For", from.to_owned())
            .json(&json!({"body": "Please!"}))
            .send()
    };
    let other = app.login("other@example.com").await;
    // One client, two accounts: the client's limit.
    assert_eq!(
        comment(&owner, "203.0.113.1").await.unwrap().status(),
        StatusCode::CREATED
    );
    assert_eq!(
        comment(&other, "203.0.113.1").await.unwrap().status(),
        StatusCode::CREATED
    );
    let res = comment(&other, "203.0.113.1").await.unwrap();
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    // One account, many clients: the account's limit.
    assert_eq!(
        comment(&owner, "203.0.113.2").await.unwrap().status(),
        StatusCode::CREATED
    );
    let res = comment(&owner, "203.0.113.3").await.unwrap();
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    let list = app.ok(Method::GET, &path, Auth::None, None).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn similarity_look_ups_count_against_the_write_limit() {
    let app = spawn_app_with(&["--rate-writes-per-minute", "2"]).await;
    app.owner_with_project("similar-limit").await;
    let path = "/v1/feedback/by-project/similar-limit/similar?q=dark%20mode";
    for _ in 0..2 {
        let res = app.send(Method::GET, path, Auth::None, None).await;
        assert_ne!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    }
    app.refused(
        (Method::GET, path),
        Auth::None,
        None,
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
    )
    .await;
}

async fn reset_links(db: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar("select count(*) from deliveries where type = 'email.password_reset'")
        .fetch_one(db)
        .await
        .unwrap()
}

fn token_of(url: &str) -> String {
    url.split("token=").nth(1).unwrap().to_owned()
}

#[tokio::test]
async fn reset_emails_are_rationed_and_each_new_link_or_password_ends_the_others() {
    let app = spawn_set_up_app(&[
        "--smtp-url",
        "smtp://127.0.0.1:9",
        "--mail-from",
        "noreply@example.com",
    ])
    .await;
    let admin = app.login("admin@example.com").await;
    let user = app
        .ok(
            Method::POST,
            "/v1/auth/register",
            Auth::None,
            Some(json!({"email": "lee@example.com", "password": PASSWORD})),
        )
        .await;
    let session = user["token"].as_str().unwrap().to_owned();
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let ask = json!({"email": "lee@example.com"});
    for _ in 0..3 {
        let res = app
            .send(
                Method::POST,
                "/v1/auth/password-reset",
                Auth::None,
                Some(ask.clone()),
            )
            .await;
        assert_eq!(res.status(), StatusCode::ACCEPTED);
    }
    assert_eq!(reset_links(&db).await, 1);

    let link_path = format!("/v1/admin/users/{}/password-reset", id(&user["user"]));
    let admin_link = |_: ()| app.ok(Method::POST, &link_path, Auth::Session(&admin), None);
    let first = token_of(admin_link(()).await["url"].as_str().unwrap());
    let second = token_of(admin_link(()).await["url"].as_str().unwrap());
    let confirm = |token: &str, password: &str| {
        app.send(
            Method::POST,
            "/v1/auth/password-reset/confirm",
            Auth::None,
            Some(json!({"token": token, "password": password})),
        )
    };
    // A new admin-made link ended the first (and the emailed one).
    let res = confirm(&first, "another long password").await;
    assert_problem(res, StatusCode::GONE, "reset_expired").await;

    // A password change ends the live link.
    app.ok(
        Method::POST,
        "/v1/auth/password",
        Auth::Session(&session),
        Some(json!({"current_password": PASSWORD, "password": "a changed password"})),
    )
    .await;
    let res = confirm(&second, "another long password").await;
    assert_problem(res, StatusCode::GONE, "reset_expired").await;

    // A completed reset ends the other live links: two emailed ones, five minutes apart.
    for sent in [2, 3] {
        sqlx::query("update password_resets set created_at = created_at - interval '6 minutes'")
            .execute(&db)
            .await
            .unwrap();
        app.send(
            Method::POST,
            "/v1/auth/password-reset",
            Auth::None,
            Some(ask.clone()),
        )
        .await;
        assert_eq!(reset_links(&db).await, sent);
    }
    let mails: Vec<Value> = sqlx::query_scalar(
        "select payload from deliveries where type = 'email.password_reset' order by created_at",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    let emailed: Vec<String> = mails[1..]
        .iter()
        .map(|m| {
            let text = m["text"].as_str().unwrap();
            let at = text.find("token=").unwrap() + "token=".len();
            text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect();
    assert_eq!(
        confirm(&emailed[1], "reset password 1").await.status(),
        StatusCode::OK
    );
    let res = confirm(&emailed[0], "reset password 2").await;
    assert_problem(res, StatusCode::GONE, "reset_expired").await;
}

#[tokio::test]
async fn rotating_the_identify_secret_ends_the_projects_end_user_sessions() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("eu-rotate").await;
    let rotate_path = format!("/v1/projects/{}/identify-secret/rotate", id(&project));
    let rotate = || app.ok(Method::POST, &rotate_path, Auth::Session(&owner), None);
    let secret = rotate().await["identify_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let claims =
        json!({"sub": "cust-1", "name": "Ada", "exp": chrono::Utc::now().timestamp() + 3600});
    let jwt = encode(
        &Header::default(),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap();
    let session = app
        .ok(
            Method::POST,
            "/v1/auth/identify",
            Auth::Key(project["publishable_key"].as_str().unwrap()),
            Some(json!({"token": jwt})),
        )
        .await;
    let eu = session["token"].as_str().unwrap();
    let entry = app
        .ok(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "SSO", "type": "feature"})),
        )
        .await;
    let vote = format!("/v1/feedback/{}/upvote", id(&entry));
    app.ok(Method::POST, &vote, Auth::Session(eu), None).await;
    rotate().await;
    app.refused(
        (Method::POST, &vote),
        Auth::Session(eu),
        None,
        (StatusCode::UNAUTHORIZED, "unauthorized"),
    )
    .await;
}
