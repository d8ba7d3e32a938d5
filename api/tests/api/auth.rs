use std::collections::HashMap;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::fake_idp::{FakeIdp, Vouch};
use crate::helpers::*;

#[tokio::test]
async fn dev_login_issues_a_session_that_logout_revokes() {
    let app = spawn_app().await;
    let token = app.login("ada@example.com").await;
    assert!(token.starts_with("st_"));
    let (status, me) = app
        .call(Method::GET, "/v1/me", Auth::Session(&token), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["email"], "ada@example.com");
    assert!(me["id"].as_str().is_some());

    let (status, _) = app
        .call(Method::POST, "/v1/auth/logout", Auth::Session(&token), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let res = app
        .send(Method::GET, "/v1/me", Auth::Session(&token), None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn dev_login_is_404_unless_enabled() {
    let app = spawn_app_with(&["--dev-login", "0"]).await;
    let res = app
        .send(
            Method::POST,
            "/v1/auth/dev-login",
            Auth::None,
            Some(json!({"email": "a@example.com"})),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn session_endpoints_refuse_missing_malformed_and_wrong_scheme_credentials() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("cred-test").await;
    for auth in [
        Auth::None,
        Auth::Session("st_not-a-real-token"),
        Auth::Session("garbage"),
        Auth::Key(key(&project)),
    ] {
        let res = app.send(Method::GET, "/v1/me", auth, None).await;
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    let res = app
        .client
        .get(app.url("/v1/me"))
        .header("Authorization", "Basic YTpi")
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn providers_are_listed_when_configured() {
    let app = spawn_app().await;
    let (_, body) = app
        .call(Method::GET, "/v1/auth/providers", Auth::None, None)
        .await;
    assert_eq!(
        body,
        json!({"data": [{"id": "password", "name": "Email and password"}], "registration": "invite", "setup_required": true})
    );
    let idp = FakeIdp::start().await;
    let app = spawn_app_with(&idp.flags()).await;
    let (_, body) = app
        .call(Method::GET, "/v1/auth/providers", Auth::None, None)
        .await;
    assert_eq!(
        body["data"],
        json!([{"id": "password", "name": "Email and password"}, {"id": "oidc", "name": "Fake IdP"}])
    );
}

#[tokio::test]
async fn oauth_dashboard_flow_sets_an_httponly_session_cookie() {
    let idp = FakeIdp::start().await;
    let app = spawn_set_up_app(&idp.flags()).await;
    let browser = app.browser();
    let res = browser
        .get(app.url("/v1/auth/oidc/start?redirect_to=/dashboard/projects"))
        .send()
        .await
        .unwrap();
    let to_idp = location(&res);
    assert!(to_idp.starts_with(&idp.base));
    let back = location(&browser.get(&to_idp).send().await.unwrap());
    let res = browser.get(&back).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(location(&res), app.url("/dashboard/projects"));
    let cookie = res.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    let me: serde_json::Value = browser
        .get(app.url("/v1/me"))
        .header("Cookie", pair)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["email"], "grace@example.com");
    assert_eq!(me["name"], "Grace");
}

#[tokio::test]
async fn oauth_cli_flow_redirects_to_the_loopback_with_token_and_state() {
    let idp = FakeIdp::start().await;
    let app = spawn_set_up_app(&idp.flags()).await;
    let browser = app.browser();
    let start = app
        .url("/v1/auth/oidc/start?cli_callback=http://127.0.0.1:45678/callback&state=cli-state-1");
    let to_idp = location(&browser.get(start).send().await.unwrap());
    let back = location(&browser.get(&to_idp).send().await.unwrap());
    let final_url = url::Url::parse(&location(&browser.get(&back).send().await.unwrap())).unwrap();
    assert_eq!(final_url.host_str(), Some("127.0.0.1"));
    assert_eq!(final_url.port(), Some(45678));
    let q: HashMap<_, _> = final_url.query_pairs().into_owned().collect();
    assert_eq!(q["state"], "cli-state-1");
    let (status, me) = app
        .call(Method::GET, "/v1/me", Auth::Session(&q["token"]), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["email"], "grace@example.com");
}

#[tokio::test]
async fn oauth_refuses_a_forged_state_a_replayed_state_and_non_loopback_callbacks() {
    let idp = FakeIdp::start().await;
    let app = spawn_set_up_app(&idp.flags()).await;
    let browser = app.browser();
    let res = browser
        .get(app.url("/v1/auth/oidc/callback?code=x&state=forged"))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;

    let to_idp = location(
        &browser
            .get(app.url("/v1/auth/oidc/start"))
            .send()
            .await
            .unwrap(),
    );
    let back = location(&browser.get(&to_idp).send().await.unwrap());
    assert_eq!(
        browser.get(&back).send().await.unwrap().status(),
        StatusCode::FOUND
    );
    let replay = browser.get(&back).send().await.unwrap();
    assert_problem(replay, StatusCode::UNAUTHORIZED, "unauthorized").await;

    let res = browser
        .get(app.url("/v1/auth/oidc/start?cli_callback=http://evil.example:80/cb"))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = browser
        .get(app.url("/v1/auth/github/start"))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn cookie_sessions_refuse_cross_site_writes() {
    let app = spawn_app().await;
    let token = app.login("csrf@example.com").await;
    let cookie = format!("shipmate_session={token}");
    let res = app
        .client
        .post(app.url("/v1/projects"))
        .header("Cookie", &cookie)
        .header("Origin", "https://evil.example")
        .json(&json!({"name": "x", "slug": "csrf-x"}))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .client
        .post(app.url("/v1/projects"))
        .header("Cookie", &cookie)
        .header("Origin", app.base.clone())
        .json(&json!({"name": "x", "slug": "csrf-x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn oauth_links_an_existing_account_only_when_the_provider_vouches_for_the_email() {
    let idp = FakeIdp::start().await;
    let app = spawn_app_with(&idp.flags()).await;
    let grace = app.login("grace@example.com").await;
    let res = oauth_sign_in(&app, &app.browser()).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(res.headers().get("set-cookie").is_none());
    let page = res.text().await.unwrap();
    assert!(page.contains("did not confirm"), "{page}");
    let (_, sessions) = app
        .call(
            Method::GET,
            "/v1/auth/sessions",
            Auth::Session(&grace),
            None,
        )
        .await;
    assert_eq!(sessions["data"].as_array().unwrap().len(), 1);

    let vouching = FakeIdp::start_with(Vouch {
        email_verified: true,
    })
    .await;
    let app = spawn_app_with(&vouching.flags()).await;
    let grace = app.login("grace@example.com").await;
    let res = oauth_sign_in(&app, &app.browser()).await;
    assert_eq!(res.status(), StatusCode::FOUND);
    let (_, sessions) = app
        .call(
            Method::GET,
            "/v1/auth/sessions",
            Auth::Session(&grace),
            None,
        )
        .await;
    assert_eq!(sessions["data"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn oauth_refuses_a_callback_in_another_browser() {
    let idp = FakeIdp::start().await;
    let app = spawn_app_with(&idp.flags()).await;
    let victim = app.browser();
    let to_idp = location(
        &app.browser()
            .get(app.url("/v1/auth/oidc/start"))
            .send()
            .await
            .unwrap(),
    );
    // The attacker's callback link, opened in the victim's browser (no oauth cookie there).
    let back = location(&victim.get(&to_idp).send().await.unwrap());
    let res = victim.get(&back).send().await.unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn oauth_states_are_capped_per_client_and_stored_without_the_address() {
    let idp = FakeIdp::start().await;
    let app = spawn_app_with(&idp.flags()).await;
    for _ in 0..14 {
        let res = app
            .client
            .get(app.url("/v1/auth/oidc/start"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::FOUND);
        let cookie = res.headers()["set-cookie"].to_str().unwrap();
        assert!(cookie.starts_with("shipmate_oauth=") && cookie.contains("Max-Age=600"));
    }
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let (n, dump): (i64, String) = sqlx::query_as(
        "select count(*), coalesce(string_agg(s::text, ' '), '') from oauth_states s",
    )
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!(n, 10);
    assert!(!dump.contains("127.0.0.1"), "{dump}");
    // Expired ones go with the housekeeping purge.
    sqlx::query("update oauth_states set created_at = now() - interval '11 minutes'")
        .execute(&db)
        .await
        .unwrap();
    shipmate_accounts::auth::housekeeping::purge(&db)
        .await
        .unwrap();
    let left: i64 = sqlx::query_scalar("select count(*) from oauth_states")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(left, 0);
}
