//! The first hour (contract part 3): compressed answers, and personal access tokens for scripts
//! and the CLI.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn answers_over_a_kilobyte_are_compressed_when_the_client_takes_it() {
    let app = spawn_app().await;
    for (path, encoding) in [
        ("/sdk/sm.js", "gzip"),
        ("/v1/openapi.json", "br"),
        ("/v1/openapi.json", "gzip"),
        ("/dashboard", "gzip"),
    ] {
        let res = app
            .client
            .get(app.url(path))
            .header("Accept-Encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(
            res.headers()
                .get("content-encoding")
                .map(|v| v.to_str().unwrap()),
            Some(encoding),
            "{path}"
        );
        let vary = res.headers()["vary"].to_str().unwrap().to_lowercase();
        assert!(vary.contains("accept-encoding"), "{path}: {vary}");
    }
    // Without Accept-Encoding, and for small answers, the body goes as it is.
    let plain = app
        .client
        .get(app.url("/v1/openapi.json"))
        .send()
        .await
        .unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    let small = app
        .client
        .get(app.url("/healthz"))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert!(small.headers().get("content-encoding").is_none());
}

#[tokio::test]
async fn a_personal_access_token_acts_as_its_user_until_revoked() {
    let app = spawn_app().await;
    let session = app.login("pat@example.com").await;
    let made = app
        .ok(
            Method::POST,
            "/v1/auth/tokens",
            Auth::Session(&session),
            Some(json!({"name": "CI deploys", "expires_in_days": 30})),
        )
        .await;
    let token = made["token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("st_"));
    assert_eq!(made["name"], "CI deploys");
    let days = (chrono::DateTime::parse_from_rfc3339(made["expires_at"].as_str().unwrap())
        .unwrap()
        - chrono::DateTime::parse_from_rfc3339(made["created_at"].as_str().unwrap()).unwrap())
    .num_days();
    assert_eq!(days, 30);

    let me = app
        .ok(Method::GET, "/v1/me", Auth::Session(&token), None)
        .await;
    assert_eq!(me["email"], "pat@example.com");
    // Listed by name, never with the token; not among the sign-in sessions.
    let list = app
        .ok(
            Method::GET,
            "/v1/auth/tokens",
            Auth::Session(&session),
            None,
        )
        .await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["name"], "CI deploys");
    assert!(list["data"][0].get("token").is_none());
    assert!(list["data"][0].get("last_used_at").is_some());
    let sessions = app
        .ok(
            Method::GET,
            "/v1/auth/sessions",
            Auth::Session(&session),
            None,
        )
        .await;
    assert_eq!(sessions["data"].as_array().unwrap().len(), 1);

    // A token cannot make tokens.
    app.refused(
        (Method::POST, "/v1/auth/tokens"),
        Auth::Session(&token),
        Some(json!({"name": "again"})),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    for bad in [
        json!({"name": ""}),
        json!({"name": "x", "expires_in_days": 366}),
        json!({"name": "x", "expires_in_days": 0}),
    ] {
        app.refused(
            (Method::POST, "/v1/auth/tokens"),
            Auth::Session(&session),
            Some(bad),
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
        )
        .await;
    }
    let default = app
        .ok(
            Method::POST,
            "/v1/auth/tokens",
            Auth::Session(&session),
            Some(json!({"name": "default"})),
        )
        .await;
    let expires: chrono::DateTime<chrono::Utc> =
        default["expires_at"].as_str().unwrap().parse().unwrap();
    let days = (expires - chrono::Utc::now()).num_days();
    assert!((89..=90).contains(&days), "{days}");

    // It outlives the session that made it.
    app.ok(
        Method::POST,
        "/v1/auth/logout",
        Auth::Session(&session),
        None,
    )
    .await;
    app.ok(Method::GET, "/v1/me", Auth::Session(&token), None)
        .await;
    let other = app.login("pat@example.com").await;
    let path = format!("/v1/auth/tokens/{}", id(&made));
    let gone = app
        .ok(Method::DELETE, &path, Auth::Session(&other), None)
        .await;
    assert_eq!(gone, json!({"id": made["id"], "deleted": true}));
    app.refused(
        (Method::GET, "/v1/me"),
        Auth::Session(&token),
        None,
        (StatusCode::UNAUTHORIZED, "unauthorized"),
    )
    .await;
    // Someone else's token is not theirs to list or revoke.
    let stranger = app.login("stranger@example.com").await;
    app.refused(
        (Method::DELETE, &format!("/v1/auth/tokens/{}", id(&default))),
        Auth::Session(&stranger),
        None,
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
}

#[test]
fn logs_written_to_a_file_carry_no_colour_codes() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shipmate-api"))
        .args(["--database-url", &fresh_database_url(), "migrate"])
        .output()
        .expect("the api binary runs");
    assert!(out.status.success(), "{out:?}");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(log.contains("migrations applied"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour codes in a piped log: {log:?}"
    );
}

#[tokio::test]
async fn pages_and_the_dashboard_name_a_favicon_that_is_served() {
    let app = spawn_app().await;
    for path in ["/favicon.svg", "/favicon.ico"] {
        let res = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers()["content-type"], "image/svg+xml");
        assert!(res.text().await.unwrap().starts_with("<svg"));
    }
    app.owner_with_project("icon-board").await;
    for path in ["/dashboard", "/f/icon-board"] {
        let page = app
            .client
            .get(app.url(path))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains(r#"rel="icon" href="/favicon.svg""#), "{path}");
    }
}
