use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use shipmate_worker::settings::WorkerSettings;
use tokio::sync::watch;

use crate::helpers::*;

pub const LOCAL_MODEL: &str = "all-minilm-l6-v2";

/// A worker running in this process for the app's database and queue; stops when dropped.
pub struct Worker {
    stop: watch::Sender<bool>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

pub fn worker_args(app: &TestApp, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "shipmate-worker",
        "--database-url",
        &app.db_url,
        "--queue-prefix",
        &app.queue_prefix,
        "--db-pool",
        "4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// A worker as its own process (the binary), for tests that kill it with SIGKILL.
pub fn spawn_worker_process(app: &TestApp, extra: &[&str]) -> Child {
    let args = worker_args(app, extra);
    Command::new(env!("CARGO_BIN_EXE_shipmate-worker"))
        .args(&args[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the worker binary starts")
}

pub fn start_worker(app: &TestApp, extra: &[&str]) -> Worker {
    let settings =
        WorkerSettings::try_parse_from(worker_args(app, extra)).expect("worker settings");
    let (stop, rx) = watch::channel(false);
    tokio::spawn(shipmate_worker::run(settings, rx));
    Worker { stop }
}

/// A project with one index on `model`: (owner token, api key, index).
pub async fn project_with_index(app: &TestApp, slug: &str, model: &str) -> (String, String, Value) {
    let (token, project) = app.owner_with_project(slug).await;
    let key = key(&project).to_owned();
    let (status, index) = app
        .call(
            Method::POST,
            "/v1/indexes",
            Auth::Key(&key),
            Some(json!({"name": "docs", "embedding_model": model})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{index}");
    (token, key, index)
}

pub async fn upload(
    app: &TestApp,
    key: &str,
    index: &Value,
    content: &str,
    metadata: Value,
) -> Value {
    let path = format!("/v1/indexes/{}/documents", id(index));
    let (status, doc) = app
        .call(
            Method::POST,
            &path,
            Auth::Key(key),
            Some(json!({"content": content, "metadata": metadata})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{doc}");
    doc
}

/// Polls the document until it leaves `pending` (deadline: 60 s); returns it.
pub async fn wait_done(app: &TestApp, key: &str, index: &Value, doc: &Value) -> Value {
    let path = format!("/v1/indexes/{}/documents/{}", id(index), id(doc));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, d) = app.call(Method::GET, &path, Auth::Key(key), None).await;
        if d["status"] != "pending" || Instant::now() > deadline {
            return d;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn search(
    app: &TestApp,
    key: &str,
    index: &Value,
    query: &str,
    top_k: u32,
) -> Vec<Value> {
    let path = format!("/v1/indexes/{}/search", id(index));
    let (status, body) = app
        .call(
            Method::POST,
            &path,
            Auth::Key(key),
            Some(json!({"query": query, "top_k": top_k})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["results"].as_array().expect("results").clone()
}
