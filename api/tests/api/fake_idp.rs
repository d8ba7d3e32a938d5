//! A tiny OpenID Connect provider for tests (api and CLI): authorizes at once as
//! grace@example.com and checks PKCE at the token endpoint.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use serde_json::json;
use sha2::Digest;

pub struct FakeIdp {
    pub base: String,
}

/// What the provider says of grace@example.com's address.
#[derive(Clone, Copy)]
pub struct Vouch {
    pub email_verified: bool,
}

#[derive(Default)]
struct IdpState {
    /// code -> (code_challenge, redirect_uri)
    codes: HashMap<String, (String, String)>,
    email_verified: bool,
}

type Shared = Arc<Mutex<IdpState>>;

impl FakeIdp {
    /// A provider that does not vouch for the address (no `email_verified`).
    pub async fn start() -> Self {
        Self::start_with(Vouch {
            email_verified: false,
        })
        .await
    }

    pub async fn start_with(vouch: Vouch) -> Self {
        let state: Shared = Arc::new(Mutex::new(IdpState {
            email_verified: vouch.email_verified,
            ..Default::default()
        }));
        let router = Router::new()
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .route("/userinfo", get(userinfo))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        FakeIdp { base }
    }

    /// The api flags that configure this provider as `oidc`.
    pub fn flags(&self) -> Vec<&'static str> {
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        vec![
            "--oidc-name",
            "Fake IdP",
            "--oidc-client-id",
            "client-1",
            "--oidc-client-secret",
            "secret-1",
            "--oidc-auth-url",
            leak(format!("{}/authorize", self.base)),
            "--oidc-token-url",
            leak(format!("{}/token", self.base)),
            "--oidc-userinfo-url",
            leak(format!("{}/userinfo", self.base)),
        ]
    }
}

async fn authorize(
    State(s): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
) -> impl IntoResponse {
    assert_eq!(q["client_id"], "client-1");
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["code_challenge_method"], "S256");
    let code = format!("code-{}", uuid::Uuid::new_v4());
    s.lock().unwrap().codes.insert(
        code.clone(),
        (q["code_challenge"].clone(), q["redirect_uri"].clone()),
    );
    Redirect::to(&format!(
        "{}?code={code}&state={}",
        q["redirect_uri"], q["state"]
    ))
}

async fn token(
    State(s): State<Shared>,
    Form(f): Form<HashMap<String, String>>,
) -> impl IntoResponse {
    let Some((challenge, redirect_uri)) = s.lock().unwrap().codes.remove(&f["code"]) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    };
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(f["code_verifier"].as_bytes()));
    if computed != challenge
        || redirect_uri != f["redirect_uri"]
        || f["client_secret"] != "secret-1"
    {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    }
    Json(json!({"access_token": "at-123", "token_type": "bearer"})).into_response()
}

async fn userinfo(State(s): State<Shared>, headers: HeaderMap) -> impl IntoResponse {
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer at-123") {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let verified = s.lock().unwrap().email_verified;
    let mut info = json!({"sub": "u-42", "email": "grace@example.com", "name": "Grace"});
    if verified {
        info["email_verified"] = json!(true);
    }
    Json(info).into_response()
}
