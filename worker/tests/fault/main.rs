//! The fault suite: while writes of every kind keep coming, a worker is killed and restarted, Redis
//! is restarted and Postgres refuses connections for a while. Then every write the api accepted
//! must be stored exactly once, the api must have answered 503 (never 500, never a hang) while a
//! dependency was down, and it must have recovered by itself.
//!
//! The api, the workers and Redis run as child processes; Postgres is the shared server, reached
//! through a proxy in this process that can cut it off. Run it with
//! `cargo test -p shipmate-worker --test fault -- --ignored --nocapture` (scripts/test does).

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "../../../api/tests/api/helpers.rs"]
mod helpers;
// The pipeline tests use the rest of it.
#[allow(dead_code)]
#[path = "../pipeline/support.rs"]
mod support;

mod checks;
mod load;
mod procs;
mod proxy;
mod run;
mod scaled;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use uuid::Uuid;

use crate::checks::{secs, Fault};
use crate::helpers::*;
use crate::load::Kind;
use crate::procs::{spawn_api, spawn_worker, Redis};
use crate::proxy::PgProxy;
use crate::run::Run;
use crate::support::worker_args;

/// The api's flags in every scenario: a few voters vote hundreds of times a minute here, and the
/// suite checks that accepted votes survive faults, not the per-user limit
/// (api/tests/api/limits.rs does).
fn api_flags(database_url: &str, redis_url: &str, queue_prefix: &str) -> Vec<String> {
    [
        "--database-url",
        database_url,
        "--redis-url",
        redis_url,
        "--queue-prefix",
        queue_prefix,
        "--bind",
        "127.0.0.1:0",
        "--dev-login",
        "1",
        "--db-pool",
        "8",
        "--rate-votes-per-minute",
        "0",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// The client of the load: redirects kept as they are, and a request with no answer within
/// `CLIENT_TIMEOUT` counts as a hang.
fn test_app(base: String, db_url: String, queue_prefix: String) -> TestApp {
    TestApp {
        base,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(checks::CLIENT_TIMEOUT)
            .build()
            .unwrap(),
        db_url,
        queue_prefix,
        // Dev login signs in here; the setup link is never used.
        setup_token: String::new(),
    }
}

/// Short stale/lease times: a killed worker's work is taken over within seconds, not a minute.
const WORKER_FLAGS: [&str; 6] = [
    "--events-stale-secs",
    "5",
    "--embed-lease-secs",
    "8",
    "--embed-claim",
    "8",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run alone, with --nocapture for its summary: scripts/test does"]
async fn accepted_writes_survive_worker_redis_and_postgres_faults() {
    let began = Instant::now();
    let dir = std::env::temp_dir().join(format!("shipmate-fault-{}", Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();

    // A fresh database, reached by the api and the workers through the proxy only.
    let direct_url = fresh_database_url();
    let parsed = url::Url::parse(&direct_url).unwrap();
    let upstream: SocketAddr = format!(
        "{}:{}",
        parsed.host_str().unwrap(),
        parsed.port().unwrap_or(5432)
    )
    .parse()
    .unwrap();
    let proxy = PgProxy::start(upstream).await;
    let mut proxied = parsed.clone();
    proxied.set_port(Some(proxy.port)).unwrap();
    let mut redis = Redis::start(&dir).await;
    let queue_prefix = format!("shipmate-fault-{}", Uuid::new_v4().simple());
    let api_args = api_flags(proxied.as_str(), &redis.url(), &queue_prefix);
    let (mut api, base) = spawn_api(&dir, &api_args).await;
    let api_pid = api.pid();
    let app = test_app(base, proxied.to_string(), queue_prefix);
    let redis_url = redis.url();
    let mut extra = vec!["--redis-url", redis_url.as_str()];
    extra.extend(WORKER_FLAGS);
    let worker_flags = worker_args(&app, &extra);
    let mut worker = spawn_worker(&dir, 1, &worker_flags[1..]);
    let run = Run::start(app, &direct_url, began).await;
    let (load, db) = (run.load.clone(), run.db.clone());
    let pause = |s: u64| tokio::time::sleep(Duration::from_secs(s));
    let mut faults = Vec::new();
    pause(3).await;

    // 1. SIGKILL the worker, preferably while it holds documents under lease, and start another.
    let lease_wait = Instant::now() + Duration::from_secs(3);
    let mut leased = 0i64;
    while leased == 0 && Instant::now() < lease_wait {
        leased = sqlx::query_scalar(
            "select count(*) from kb_documents where status = 'pending' and lease_until > now()",
        )
        .fetch_one(&db)
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let start = load.now();
    worker.kill();
    pause(2).await;
    let worker_log = worker.log.clone();
    worker = spawn_worker(&dir, 2, &worker_flags[1..]);
    faults.push(Fault {
        name: "worker SIGKILL, new worker".into(),
        start,
        end: load.now(),
        expect_503: vec![],
        detail: format!(
            "killed holding {leased} document(s) under lease; a new worker started 2 s later"
        ),
    });
    pause(6).await;

    // 2. Restart Redis: SIGTERM, down for 4 s, started again on the same port and folder.
    let start = load.now();
    redis.down().await;
    let stopped = load.now() - start;
    pause(4).await;
    redis.up().await;
    faults.push(Fault {
        name: "Redis restart".into(),
        start,
        end: load.now(),
        expect_503: vec![Kind::Events, Kind::Readyz],
        detail: format!(
            "SIGTERM (exited after {}), started again when 4 s had passed",
            secs(stopped)
        ),
    });
    pause(6).await;

    // 3. Postgres refuses connections for 5 s.
    let start = load.now();
    proxy.block();
    pause(5).await;
    proxy.unblock();
    faults.push(Fault {
        name: "Postgres outage".into(),
        start,
        end: load.now(),
        expect_503: vec![
            Kind::Events,
            Kind::Documents,
            Kind::Feedback,
            Kind::Votes,
            Kind::Readyz,
        ],
        detail: format!(
            "the proxy cut {} open connections and closed {} new ones on arrival",
            proxy.dropped.load(std::sync::atomic::Ordering::Relaxed),
            proxy.refused.load(std::sync::atomic::Ordering::Relaxed)
        ),
    });
    pause(8).await;

    let mut processes = Vec::new();
    for (p, what) in [(&mut api, "api"), (&mut worker, "second worker")] {
        if !p.running() {
            processes.push(format!("the {what} exited; see {}", p.log.display()));
        }
    }
    if api.pid() != api_pid {
        processes.push("the api was restarted".into());
    }
    let violations = run.finish("fault suite", &faults, &[], processes).await;
    if violations.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!(
            "logs: {} (first worker: {})",
            dir.display(),
            worker_log.display()
        );
    }
    drop(api);
    drop(worker);
    redis.down().await;
    assert!(violations.is_empty(), "{} violations", violations.len());
}

/// Not a test: the fault suite runs this binary again with only this function selected to host
/// the api in a separate process it can watch (an integration test can start its own package's
/// binaries only, and the api's is in another package). Alone, it does nothing.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "the fault suite's api process"]
async fn api_process() {
    if let (Ok(args), Ok(addr_file)) = (
        std::env::var(procs::API_ARGS_ENV),
        std::env::var(procs::API_ADDR_ENV),
    ) {
        procs::serve_api(&args, &addr_file).await;
    }
}
