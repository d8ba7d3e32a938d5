//! Shared by the api and worker test crates; each uses part of it.
#![allow(dead_code)]

use std::sync::Once;

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};
use shipmate_api::settings::ApiSettings;
use shipmate_api::Application;

static ENV: Once = Once::new();

/// Reads the `.env` that scripts/setup wrote at the repository root.
pub fn load_env() {
    ENV.call_once(|| {
        let _ = dotenvy::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../.env"));
    });
}

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub db_url: String,
    /// This test's Redis key prefix, for workers started beside the app.
    pub queue_prefix: String,
    /// The first-run token the app printed on its log.
    pub setup_token: String,
}

/// A fresh database named for this test; migrations run when the app starts.
pub fn fresh_database_url() -> String {
    load_env();
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://127.0.0.1:5432/shipmate".into());
    let mut url = url::Url::parse(&base).expect("DATABASE_URL is a URL");
    url.set_path(&format!("shipmate_test_{}", uuid::Uuid::new_v4().simple()));
    url.to_string()
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// Starts the app with the given extra flags (after dev login on, port 0, a fresh database).
pub async fn spawn_app_with(extra: &[&str]) -> TestApp {
    spawn_app_on(fresh_database_url(), extra).await
}

/// Starts the app on the database at `db_url` (made and migrated at start), with `extra` flags.
pub async fn spawn_app_on(db_url: String, extra: &[&str]) -> TestApp {
    // Named for the database: apps started on one database are one deployment, sharing Redis
    // keys (queues, shared rate limits) as processes of one deployment do.
    let db_name = db_url.rsplit('/').next().unwrap_or_default();
    let queue_prefix = format!("shipmate-test-{db_name}-{}", std::process::id());
    let mut args = vec![
        "shipmate-api",
        "--database-url",
        &db_url,
        "--bind",
        "127.0.0.1:0",
        "--db-pool",
        "8",
        "--queue-prefix",
        &queue_prefix,
    ];
    if !extra.contains(&"--dev-login") {
        args.extend_from_slice(&["--dev-login", "1"]);
    }
    args.extend_from_slice(extra);
    let settings = ApiSettings::from_args(args).expect("valid test settings");
    let app = Application::build(settings).await.expect("the app starts");
    let base = format!("http://{}", app.addr());
    let setup_token = app.state.setup_token.clone();
    tokio::spawn(app.run_until_stopped());
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    TestApp {
        base,
        client,
        db_url,
        queue_prefix,
        setup_token,
    }
}

/// An app past its first-run setup (an admin made through the development login) whose
/// registration is open: identity providers and registrations make accounts only once an instance
/// is set up. `extra` adds flags (an identity provider's, say).
pub async fn spawn_set_up_app(extra: &[&str]) -> TestApp {
    let app = spawn_app_with(&[extra, &["--registration", "open"]].concat()).await;
    app.login("admin@example.com").await;
    app
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Signs in through the development login; returns the session token.
    pub async fn login(&self, email: &str) -> String {
        let res = self
            .client
            .post(self.url("/v1/auth/dev-login"))
            .json(&json!({ "email": email, "name": "Tester" }))
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), StatusCode::OK);
        let body: Value = res.json().await.expect("json");
        body["token"].as_str().expect("token").to_owned()
    }

    /// A client that keeps cookies and does not follow redirects, as a browser walking a sign-in.
    pub fn browser(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
    }

    /// A signed-in user (dev login) who joined the project through an invite with `role`.
    pub async fn member_with_role(
        &self,
        owner: &str,
        project_id: &str,
        email: &str,
        role: &str,
    ) -> String {
        let token = self.login(email).await;
        let (status, invite) = self
            .call(
                Method::POST,
                &format!("/v1/projects/{project_id}/invites"),
                Auth::Session(owner),
                Some(json!({ "email": email, "role": role })),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{invite}");
        let (status, body) = self
            .call(
                Method::POST,
                &format!("/v1/invites/{}/accept", invite_token(&invite)),
                Auth::Session(&token),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        token
    }

    /// A new user with a new project: (session token, project).
    pub async fn owner_with_project(&self, slug: &str) -> (String, Value) {
        let token = self.login(&format!("owner-{slug}@example.com")).await;
        let project = self.create_project(&token, slug).await;
        (token, project)
    }

    pub async fn create_project(&self, token: &str, slug: &str) -> Value {
        let res = self
            .send(
                Method::POST,
                "/v1/projects",
                Auth::Session(token),
                Some(json!({ "name": format!("Project {slug}"), "slug": slug })),
            )
            .await;
        assert_eq!(res.status(), StatusCode::CREATED);
        res.json().await.expect("json")
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        auth: Auth<'_>,
        body: Option<Value>,
    ) -> Response {
        let mut req = self.client.request(method, self.url(path));
        req = match auth {
            Auth::None => req,
            Auth::Session(t) => req.bearer_auth(t),
            Auth::Key(k) => req.header("X-Project-Key", k),
        };
        if let Some(b) = body {
            req = req.json(&b);
        }
        req.send().await.expect("request")
    }

    /// Sends and asserts a problem answer with `status` and `code`; returns its body.
    pub async fn refused(
        &self,
        (method, path): (Method, &str),
        auth: Auth<'_>,
        body: Option<Value>,
        (status, code): (StatusCode, &str),
    ) -> Value {
        assert_problem(self.send(method, path, auth, body).await, status, code).await
    }

    /// Sends, asserts a 2xx answer, and returns its JSON body.
    pub async fn ok(
        &self,
        method: Method,
        path: &str,
        auth: Auth<'_>,
        body: Option<Value>,
    ) -> Value {
        let (status, v) = self.call(method, path, auth, body).await;
        assert!(status.is_success(), "{path}: {status} {v}");
        v
    }

    /// Sends and returns (status, JSON body).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        auth: Auth<'_>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let res = self.send(method, path, auth, body).await;
        let status = res.status();
        let body = res.json().await.unwrap_or(Value::Null);
        (status, body)
    }
}

#[derive(Clone, Copy)]
pub enum Auth<'a> {
    None,
    Session(&'a str),
    Key(&'a str),
}

/// Asserts a problem+json error with the given status and code.
pub async fn assert_problem(res: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(res.status(), status);
    let ct = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(ct, "application/problem+json");
    let body: Value = res.json().await.expect("problem body");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status.as_u16());
    assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()));
    body
}

pub fn key(project: &Value) -> &str {
    project["api_key"].as_str().expect("api_key")
}

pub fn id(v: &Value) -> &str {
    v["id"].as_str().expect("id")
}

/// The token of an invite: the last path segment of its `url`.
pub fn invite_token(invite: &Value) -> &str {
    invite["url"]
        .as_str()
        .and_then(|u| u.rsplit('/').next())
        .expect("invite url")
}

/// The `Location` of a redirect.
pub fn location(res: &reqwest::Response) -> String {
    assert!(
        res.status().is_redirection(),
        "expected a redirect, got {}",
        res.status()
    );
    res.headers()["location"].to_str().unwrap().to_owned()
}

/// Walks the dashboard sign-in through the fake provider in `browser`; answers the last response.
pub async fn oauth_sign_in(app: &TestApp, browser: &reqwest::Client) -> reqwest::Response {
    let back = oauth_callback_url(app, browser).await;
    browser.get(&back).send().await.unwrap()
}

/// Starts a dashboard sign-in in `browser` and answers the provider's redirect back, not yet taken.
pub async fn oauth_callback_url(app: &TestApp, browser: &reqwest::Client) -> String {
    let to_idp = location(
        &browser
            .get(app.url("/v1/auth/oidc/start?redirect_to=/dashboard"))
            .send()
            .await
            .unwrap(),
    );
    location(&browser.get(&to_idp).send().await.unwrap())
}
