//! Running the `shipmate` binary against a test app, and playing the browser for `login`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use reqwest::Method;
use serde_json::Value;
use shipmate_worker::settings::WorkerSettings;
use tokio::sync::watch;

use crate::fake_idp::FakeIdp;
use crate::helpers::*;

pub const LOCAL_MODEL: &str = "all-minilm-l6-v2";
pub const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

/// A fresh temporary folder, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "shipmate-cli-{tag}-{}",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes a file (creating folders) and returns its path.
    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One finished run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Self {
        Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Asserts exit code 0; returns stdout.
    pub fn ok(self) -> String {
        assert_eq!(self.code, Some(0), "expected success: {self:#?}");
        self.stdout
    }

    /// Asserts exit code `code`; returns stderr.
    pub fn fails(self, code: i32) -> String {
        assert_eq!(
            self.code,
            Some(code),
            "expected exit code {code}: {self:#?}"
        );
        self.stderr
    }
}

/// The CLI pointed at one API, with a configuration folder of its own.
pub struct Shipmate {
    pub api: String,
    pub config: TempDir,
}

impl Shipmate {
    pub fn new(app: &TestApp) -> Self {
        Self::at(&app.base)
    }

    pub fn at(api: &str) -> Self {
        Shipmate {
            api: api.to_owned(),
            config: TempDir::new("config"),
        }
    }

    pub fn credentials_path(&self) -> PathBuf {
        self.config.path().join("credentials.json")
    }

    /// The stored session token (after `login`).
    pub fn token(&self) -> String {
        let creds: Value =
            serde_json::from_str(&std::fs::read_to_string(self.credentials_path()).unwrap())
                .unwrap();
        creds["token"].as_str().unwrap().to_owned()
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_shipmate"));
        cmd.args(args)
            .env("SHIPMATE_API_URL", &self.api)
            .env("SHIPMATE_CONFIG_DIR", self.config.path())
            .env("SHIPMATE_NO_BROWSER", "1")
            .env_remove("SHIPMATE_TOKEN")
            .env_remove("SHIPMATE_PROJECT")
            .env_remove("VISUAL")
            .env_remove("EDITOR")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs to completion off the runtime's threads (the app serves the CLI from this runtime).
    pub async fn run_with(&self, args: &[&str], envs: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = tokio::task::spawn_blocking(move || cmd.output())
            .await
            .unwrap()
            .unwrap();
        Run::from(out)
    }

    pub async fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[]).await
    }

    /// Runs, asserts success, returns stdout.
    pub async fn ok(&self, args: &[&str]) -> String {
        self.run(args).await.ok()
    }

    /// Runs with `--json`, asserts success, parses stdout.
    pub async fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.ok(&all).await;
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }

    /// Runs with `input` on standard input (as `login --with-token` reads it).
    pub async fn run_stdin(&self, args: &[&str], input: &str) -> Run {
        let mut cmd = self.command(args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let input = input.to_owned();
        let out = tokio::task::spawn_blocking(move || {
            let mut child = cmd.spawn()?;
            let mut stdin = child.stdin.take().expect("piped stdin");
            stdin.write_all(input.as_bytes())?;
            drop(stdin); // end of input
            child.wait_with_output()
        })
        .await
        .unwrap()
        .unwrap();
        Run::from(out)
    }

    /// Stores a session token the way CI does: `shipmate login --with-token`.
    pub async fn login_with_token(&self, token: &str) -> String {
        self.run_stdin(&["login", "--with-token"], &format!("{token}\n"))
            .await
            .ok()
    }

    /// Starts `shipmate login <args>` and waits for the sign-in URL it prints: (process, URL, the
    /// thread draining its stderr).
    pub async fn start_login(
        &self,
        args: &[&str],
    ) -> (std::process::Child, String, std::thread::JoinHandle<String>) {
        let mut all = vec!["login"];
        all.extend_from_slice(args);
        let mut cmd = self.command(&all);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        // Keeps reading to the end, so the CLI never writes into a closed pipe.
        let drain = std::thread::spawn(move || {
            let mut tx = Some(tx);
            let mut all = String::new();
            for line in BufReader::new(stderr).lines() {
                let line = line.unwrap_or_default();
                if let Some((_, url)) = line.split_once("Open this URL to sign in: ") {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(url.trim().to_owned());
                    }
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        let url = tokio::time::timeout(Duration::from_secs(30), rx)
            .await
            .expect("login printed its URL within 30 s")
            .expect("login printed its URL before exiting");
        (child, url, drain)
    }

    /// Signs in the way a person does: follows the printed URL through the api, the identity
    /// provider (`oidc`, the fake one) and back to the CLI's loopback listener.
    pub async fn login(&self) -> Run {
        let (child, url, drain) = self.start_login(&["--provider", "oidc"]).await;
        // Follows redirects and keeps cookies, like a browser: the callback requires the
        // `shipmate_oauth` cookie that the start set (login CSRF binding).
        let browser = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .unwrap();
        let page = browser.get(&url).send().await.unwrap();
        assert_eq!(page.status(), reqwest::StatusCode::OK);
        assert!(page.text().await.unwrap().contains("Signed in"));
        finish(child, drain).await
    }

    /// Signs in with a password as the dashboard's sign-in page does, one step at a time:
    /// the start URL sends the browser to `/login` with the CLI's callback and state, the page
    /// posts them with the credentials, and opens the `redirect` it gets (the CLI's listener).
    pub async fn login_with_password(&self, app: &TestApp, email: &str, password: &str) -> Run {
        let (child, url, drain) = self.start_login(&[]).await;
        let start = app.client.get(&url).send().await.unwrap();
        assert_eq!(start.status(), reqwest::StatusCode::FOUND, "{start:?}");
        let location = start.headers()["location"].to_str().unwrap();
        let page = url::Url::parse(&app.base).unwrap().join(location).unwrap();
        assert_eq!(page.path(), "/login", "{page}");
        let query: HashMap<String, String> = page.query_pairs().into_owned().collect();
        let sent: HashMap<String, String> = url::Url::parse(&url)
            .unwrap()
            .query_pairs()
            .into_owned()
            .collect();
        assert_eq!(query["cli_callback"], sent["cli_callback"], "{page}");
        assert_eq!(query["state"], sent["state"], "{page}");

        let body = serde_json::json!({
            "email": email,
            "password": password,
            "cli_callback": query["cli_callback"],
            "state": query["state"],
        });
        let (status, signed) = app
            .call(Method::POST, "/v1/auth/login", Auth::None, Some(body))
            .await;
        assert_eq!(status, reqwest::StatusCode::OK, "{signed}");
        let redirect = signed["redirect"].as_str().unwrap();
        assert!(redirect.starts_with(&sent["cli_callback"]), "{redirect}");
        let done = app.client.get(redirect).send().await.unwrap();
        assert_eq!(done.status(), reqwest::StatusCode::OK);
        assert!(done.text().await.unwrap().contains("Signed in"));
        finish(child, drain).await
    }
}

/// Waits (at most 30 s) for a spawned CLI to exit and collects its output.
pub async fn finish(mut child: std::process::Child, drain: std::thread::JoinHandle<String>) -> Run {
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the CLI did not exit within 30 s");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut stdout).unwrap();
    }
    let stderr = tokio::task::spawn_blocking(move || drain.join().unwrap())
        .await
        .unwrap();
    Run {
        code: status.code(),
        stdout,
        stderr,
    }
}

/// An app with a fake identity provider, and the CLI signed in to it as grace@example.com.
pub async fn signed_in() -> (TestApp, Shipmate) {
    signed_in_with(&[]).await
}

/// As `signed_in`, the app started with `extra` flags too.
pub async fn signed_in_with(extra: &[&str]) -> (TestApp, Shipmate) {
    let idp = FakeIdp::start().await;
    let mut args: Vec<&str> = idp.flags();
    args.extend_from_slice(extra);
    let app = spawn_set_up_app(&args).await;
    let cli = Shipmate::new(&app);
    let out = cli.login().await.ok();
    assert!(out.contains("Signed in as grace@example.com"), "{out}");
    (app, cli)
}

/// Creates a project through the CLI; returns it as the API shows it (API key included).
pub async fn create_project(cli: &Shipmate, slug: &str) -> Value {
    let project = cli
        .json(&[
            "projects",
            "create",
            "--name",
            &format!("Project {slug}"),
            "--slug",
            slug,
        ])
        .await;
    assert!(project["api_key"].as_str().unwrap().starts_with("pk_"));
    project
}

/// A worker running in this process for the app's database and queue; stops when dropped.
pub struct Worker {
    stop: watch::Sender<bool>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

pub fn start_worker(app: &TestApp) -> Worker {
    let settings = WorkerSettings::try_parse_from([
        "shipmate-worker",
        "--database-url",
        app.db_url.as_str(),
        "--queue-prefix",
        app.queue_prefix.as_str(),
        "--db-pool",
        "4",
    ])
    .expect("worker settings");
    let (stop, rx) = watch::channel(false);
    tokio::spawn(shipmate_worker::run(settings, rx));
    Worker { stop }
}

/// Polls until every document of the index is `ready` (deadline 60 s); returns them by path.
pub async fn wait_all_ready(
    app: &TestApp,
    key: &str,
    index_id: &str,
    expected: usize,
) -> HashMap<String, Value> {
    let path = format!("/v1/indexes/{index_id}/documents?per_page=100");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, body) = app.call(Method::GET, &path, Auth::Key(key), None).await;
        let docs = body["data"].as_array().cloned().unwrap_or_default();
        let ready = docs.iter().filter(|d| d["status"] == "ready").count();
        if ready == expected && docs.len() == expected {
            return docs
                .into_iter()
                .map(|d| (d["metadata"]["path"].as_str().unwrap().to_owned(), d))
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "documents not ready in time: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
