//! Job logs name their tenant: a claim's span carries the project it serves (#35), so an
//! operator can follow one project's documents through a worker's log.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;

use serde_json::json;

use crate::fakes::FakeProvider;
use crate::helpers::*;
use crate::support::*;

#[tokio::test]
async fn an_embedding_failure_is_logged_in_a_span_naming_its_project() {
    let fake = FakeProvider::start().await;
    let flags = ["--provider-a-url", &fake.url, "--provider-a-key", "key-a"];
    let app = spawn_app_with(&flags).await;
    let mut extra = flags.to_vec();
    extra.extend(["--embed-max-attempts", "1"]);
    let args = worker_args(&app, &extra);
    let mut worker = Command::new(env!("CARGO_BIN_EXE_shipmate-worker"))
        .args(&args[1..])
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the worker binary starts");
    let (_, k, index) = project_with_index(&app, "spans-embed", "provider-a-4").await;
    fake.counters.refuse.store(true, Ordering::SeqCst);
    let doc = upload(&app, &k, &index, "Refused by the provider.", json!({})).await;
    assert_eq!(wait_done(&app, &k, &index, &doc).await["status"], "failed");
    worker.kill().expect("the worker stops");
    let mut log = String::new();
    worker
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    let _ = worker.wait();
    let project = index["project_id"].as_str().unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("embedding failed"))
        .unwrap_or_else(|| panic!("no failure logged:\n{log}"));
    assert!(
        line.contains(&format!("project_id={project}")) && line.contains("projects=1"),
        "{line}"
    );
}
