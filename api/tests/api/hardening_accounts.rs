//! The security review's account findings (contract part 3, "Accounts and public writes,
//! hardened"): only setup makes an admin, invite-only sign-up holds for identity providers, email
//! verification stops pre-claimed accounts, and sign-in counts attempts before checking them.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::fake_idp::{FakeIdp, Vouch};
use crate::helpers::*;

const PASSWORD: &str = "correct horse battery";

/// Email is configured (nothing listens on port 9: only a worker would send).
const MAIL: [&str; 4] = [
    "--smtp-url",
    "smtp://127.0.0.1:9",
    "--mail-from",
    "noreply@example.com",
];

async fn vouching_idp() -> FakeIdp {
    FakeIdp::start_with(Vouch {
        email_verified: true,
    })
    .await
}

async fn count(db: &sqlx::PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(db).await.unwrap()
}

#[tokio::test]
async fn before_setup_neither_a_provider_nor_registration_makes_an_account() {
    let idp = vouching_idp().await;
    let flags = [
        idp.flags(),
        vec!["--registration", "open", "--dev-login", "0"],
    ]
    .concat();
    let app = spawn_app_with(&flags).await;
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();

    let res = oauth_sign_in(&app, &app.browser()).await;
    assert!(res.headers().get("set-cookie").is_none());
    assert_problem(res, StatusCode::FORBIDDEN, "setup_required").await;
    // A person in a browser reads why on a page.
    let browser = app.browser();
    let back = oauth_callback_url(&app, &browser).await;
    let res = browser
        .get(&back)
        .header("Accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(res.text().await.unwrap().contains("setup link"));

    let res = app
        .send(
            Method::POST,
            "/v1/auth/register",
            Auth::None,
            Some(json!({"email": "eve@example.com", "password": PASSWORD})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "setup_required").await;
    assert_eq!(count(&db, "select count(*) from users").await, 0);

    let (status, root) = app
        .call(
            Method::POST,
            "/v1/auth/setup",
            Auth::None,
            Some(json!({"token": app.setup_token, "email": "root@example.com", "password": PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(root["user"]["is_admin"], true);
    assert_eq!(root["user"]["email_verified"], true);
    // After setup the provider signs in, and makes no admin.
    assert_eq!(
        oauth_sign_in(&app, &app.browser()).await.status(),
        StatusCode::FOUND
    );
    let grace: (bool, bool) = sqlx::query_as(
        "select is_admin, email_verified from users where email = 'grace@example.com'",
    )
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!(grace, (false, true));
}

#[tokio::test]
async fn under_invite_registration_a_provider_makes_accounts_for_pending_invites_only() {
    let idp = vouching_idp().await;
    let app = spawn_app_with(&idp.flags()).await;
    let (owner, project) = app.owner_with_project("idp-invite").await;
    let res = oauth_sign_in(&app, &app.browser()).await;
    assert_problem(res, StatusCode::FORBIDDEN, "registration_closed").await;
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    assert_eq!(count(&db, "select count(*) from users").await, 1);

    app.ok(
        Method::POST,
        &format!("/v1/projects/{}/invites", id(&project)),
        Auth::Session(&owner),
        Some(json!({"email": "grace@example.com", "role": "member"})),
    )
    .await;
    assert_eq!(
        oauth_sign_in(&app, &app.browser()).await.status(),
        StatusCode::FOUND
    );
    assert_eq!(count(&db, "select count(*) from users").await, 2);
}

/// The pre-claim attack: someone registers the victim's address with a password and waits for the
/// victim's provider sign-in to be linked into the account they hold the password of.
#[tokio::test]
async fn a_provider_is_linked_only_to_an_account_whose_address_was_verified() {
    let idp = vouching_idp().await;
    let app = spawn_set_up_app(&[idp.flags(), MAIL.to_vec()].concat()).await;
    let (status, attacker) = app
        .call(
            Method::POST,
            "/v1/auth/register",
            Auth::None,
            Some(json!({"email": "Grace@example.com", "password": PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(attacker["user"]["email_verified"], false);
    let attacker_token = attacker["token"].as_str().unwrap();

    let res = oauth_sign_in(&app, &app.browser()).await;
    assert!(res.headers().get("set-cookie").is_none());
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let (_, sessions) = app
        .call(
            Method::GET,
            "/v1/auth/sessions",
            Auth::Session(attacker_token),
            None,
        )
        .await;
    assert_eq!(sessions["data"].as_array().unwrap().len(), 1);

    // The verification email's link verifies the address once.
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mail: Value = sqlx::query_scalar(
        "select payload from deliveries where type = 'email.email_verification'",
    )
    .fetch_one(&db)
    .await
    .unwrap();
    let text = mail["text"].as_str().unwrap();
    let link = format!("{}/verify-email?token=", app.base);
    let start = text.find(&link).expect("the link is in the email") + link.len();
    let token: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let verify = json!({ "token": token });
    let (status, user) = app
        .call(
            Method::POST,
            "/v1/auth/verify-email",
            Auth::None,
            Some(verify.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{user}");
    assert_eq!(user["email_verified"], true);
    let res = app
        .send(
            Method::POST,
            "/v1/auth/verify-email",
            Auth::None,
            Some(verify),
        )
        .await;
    assert_problem(res, StatusCode::GONE, "verification_expired").await;
    let (_, me) = app
        .call(Method::GET, "/v1/me", Auth::Session(attacker_token), None)
        .await;
    assert_eq!(me["email_verified"], true);
    app.refused(
        (Method::POST, "/v1/auth/verify-email/resend"),
        Auth::Session(attacker_token),
        None,
        (StatusCode::CONFLICT, "already_verified"),
    )
    .await;
    // Verified by its owner, the account takes the provider.
    assert_eq!(
        oauth_sign_in(&app, &app.browser()).await.status(),
        StatusCode::FOUND
    );
}

#[tokio::test]
async fn concurrent_sign_ins_check_at_most_ten_passwords() {
    let app = spawn_set_up_app(&["--rate-auth-per-minute", "0"]).await;
    app.ok(
        Method::POST,
        "/v1/auth/register",
        Auth::None,
        Some(json!({"email": "ann@example.com", "password": PASSWORD})),
    )
    .await;
    let tries = (0..30).map(|_| {
        app.send(
            Method::POST,
            "/v1/auth/login",
            Auth::None,
            Some(json!({"email": "ann@example.com", "password": "not the password"})),
        )
    });
    let answers = futures::future::join_all(tries).await;
    let checked = answers
        .iter()
        .filter(|r| r.status() == StatusCode::UNAUTHORIZED)
        .count();
    // An attempt that waited too long for a hashing slot (503) was counted, yet never checked.
    let busy = answers
        .iter()
        .filter(|r| r.status() == StatusCode::SERVICE_UNAVAILABLE)
        .count();
    let limited = answers
        .iter()
        .filter(|r| r.status() == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!((checked + busy, limited), (10, 20));
}

#[tokio::test]
async fn sign_in_work_is_limited_per_client() {
    let app = spawn_set_up_app(&["--rate-auth-per-minute", "3"]).await;
    let calls = [
        (
            "/v1/auth/login",
            json!({"email": "a@example.com", "password": PASSWORD}),
        ),
        ("/v1/auth/password-reset", json!({"email": "a@example.com"})),
        ("/v1/auth/verify-email", json!({"token": "nonsense"})),
    ];
    for (path, body) in &calls {
        let res = app
            .send(Method::POST, path, Auth::None, Some(body.clone()))
            .await;
        assert_ne!(res.status(), StatusCode::TOO_MANY_REQUESTS, "{path}");
    }
    for path in [
        "/v1/auth/register",
        "/v1/auth/setup",
        "/v1/auth/password-reset/confirm",
        "/v1/auth/login",
    ] {
        let res = app
            .send(
                Method::POST,
                path,
                Auth::None,
                Some(json!({"email": "b@example.com", "password": PASSWORD, "token": "t"})),
            )
            .await;
        assert!(res.headers().contains_key("retry-after"), "{path}");
        assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    }
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    assert_eq!(count(&db, "select count(*) from users").await, 1);
}
