use std::collections::HashMap;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::fake_idp::FakeIdp;
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
    assert_eq!(body, json!({"data": []}));
    let idp = FakeIdp::start().await;
    let app = spawn_app_with(&idp.flags()).await;
    let (_, body) = app
        .call(Method::GET, "/v1/auth/providers", Auth::None, None)
        .await;
    assert_eq!(body, json!({"data": [{"id": "oidc", "name": "Fake IdP"}]}));
}

fn location(res: &reqwest::Response) -> String {
    assert!(
        res.status().is_redirection(),
        "expected a redirect, got {}",
        res.status()
    );
    res.headers()["location"].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn oauth_dashboard_flow_sets_an_httponly_session_cookie() {
    let idp = FakeIdp::start().await;
    let app = spawn_app_with(&idp.flags()).await;
    let res = app
        .client
        .get(app.url("/v1/auth/oidc/start?redirect_to=/dashboard/projects"))
        .send()
        .await
        .unwrap();
    let to_idp = location(&res);
    assert!(to_idp.starts_with(&idp.base));
    let back = location(&app.client.get(&to_idp).send().await.unwrap());
    let res = app.client.get(&back).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(location(&res), app.url("/dashboard/projects"));
    let cookie = res.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    let me: serde_json::Value = app
        .client
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
    let app = spawn_app_with(&idp.flags()).await;
    let start = app
        .url("/v1/auth/oidc/start?cli_callback=http://127.0.0.1:45678/callback&state=cli-state-1");
    let to_idp = location(&app.client.get(start).send().await.unwrap());
    let back = location(&app.client.get(&to_idp).send().await.unwrap());
    let final_url =
        url::Url::parse(&location(&app.client.get(&back).send().await.unwrap())).unwrap();
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
    let app = spawn_app_with(&idp.flags()).await;
    let res = app
        .client
        .get(app.url("/v1/auth/oidc/callback?code=x&state=forged"))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;

    let to_idp = location(
        &app.client
            .get(app.url("/v1/auth/oidc/start"))
            .send()
            .await
            .unwrap(),
    );
    let back = location(&app.client.get(&to_idp).send().await.unwrap());
    assert_eq!(
        app.client.get(&back).send().await.unwrap().status(),
        StatusCode::FOUND
    );
    let replay = app.client.get(&back).send().await.unwrap();
    assert_problem(replay, StatusCode::UNAUTHORIZED, "unauthorized").await;

    let res = app
        .client
        .get(app.url("/v1/auth/oidc/start?cli_callback=http://evil.example:80/cb"))
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .client
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
