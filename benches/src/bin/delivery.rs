//! Webhook delivery: event-to-delivery latency with an idle worker, and deliveries per second of
//! one worker draining a backlog, to a receiver on 127.0.0.1 (benches/README.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use axum::Router;
use clap::Parser;
use serde_json::{json, Value};
use shipmate_benches::{ms, percentile, start, Bench};

#[derive(Parser)]
struct Args {
    /// Latency samples (one event at a time, the worker idle in between).
    #[arg(long, default_value_t = 100)]
    samples: usize,
    /// Deliveries in the backlog the worker drains.
    #[arg(long, default_value_t = 10_000)]
    backlog: usize,
}

/// Arrival time of each request, by the feedback entry it announces.
type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

async fn receive(State(arrivals): State<Arrivals>, body: Bytes) -> &'static str {
    let at = Instant::now();
    let id = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["data"]["id"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut a = arrivals.lock().unwrap_or_else(|e| e.into_inner());
    let n = a.len();
    // Each entry once per webhook: key by entry and arrival count.
    a.insert(format!("{id}#{n}"), at);
    "ok"
}

async fn receiver() -> anyhow::Result<(String, Arrivals)> {
    let arrivals: Arrivals = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    let app = Router::new()
        .route("/hook", post(receive))
        .with_state(arrivals.clone());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move { axum::serve(listener, app).await })
    });
    Ok((url, arrivals))
}

async fn webhook(bench: &Bench, project: &str, url: &str) -> anyhow::Result<()> {
    let res = bench
        .http
        .post(format!("{}/v1/projects/{project}/webhooks", bench.base))
        .bearer_auth(&bench.token)
        .json(&json!({"url": url, "events": ["feedback.created"]}))
        .send()
        .await?;
    anyhow::ensure!(res.status().is_success(), "webhook: {}", res.status());
    Ok(())
}

fn arrived(arrivals: &Arrivals, entry: &str) -> Option<Instant> {
    let a = arrivals.lock().unwrap_or_else(|e| e.into_inner());
    a.iter()
        .find(|(k, _)| k.starts_with(entry))
        .map(|(_, at)| *at)
}

fn count(arrivals: &Arrivals) -> usize {
    arrivals.lock().unwrap_or_else(|e| e.into_inner()).len()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let flags = ["--webhook-allowed-hosts", "127.0.0.1"];
    let bench = start(&flags).await?;
    let (url, arrivals) = receiver().await?;

    // Latency: one event at a time, the worker idle before each.
    let (project, key) = bench.project("latency").await?;
    webhook(&bench, &project, &url).await?;
    let worker = bench.start_worker(&flags)?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut latencies = Vec::new();
    for i in 0..args.samples {
        let sent = Instant::now();
        let entry = bench
            .post(
                &key,
                "/v1/feedback",
                json!({"title": format!("Latency {i}"), "type": "feedback"}),
            )
            .await?;
        let id = entry["id"].as_str().unwrap_or_default().to_owned();
        let deadline = sent + Duration::from_secs(30);
        let at = loop {
            if let Some(at) = arrived(&arrivals, &id) {
                break at;
            }
            anyhow::ensure!(Instant::now() < deadline, "entry {id} never arrived");
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        latencies.push(at - sent);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = worker.send(true);
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Throughput: the backlog recorded with no worker running, then one worker drains it.
    let (project, key) = bench.project("backlog").await?;
    let hooks = 10;
    for _ in 0..hooks {
        webhook(&bench, &project, &url).await?;
    }
    let entries = args.backlog.div_ceil(hooks);
    let total = entries * hooks;
    let before = count(&arrivals);
    let made = Instant::now();
    let mut tasks = futures::stream::FuturesUnordered::new();
    for i in 0..entries {
        let (bench, key) = (bench.clone(), key.clone());
        tasks.push(async move {
            bench
                .post(
                    &key,
                    "/v1/feedback",
                    json!({"title": format!("Backlog {i}"), "type": "bug"}),
                )
                .await
        });
        if tasks.len() >= 16 {
            use futures::StreamExt;
            if let Some(r) = tasks.next().await {
                r?;
            }
        }
    }
    use futures::StreamExt;
    while let Some(r) = tasks.next().await {
        r?;
    }
    let recorded = made.elapsed();
    let started = Instant::now();
    let worker = bench.start_worker(&flags)?;
    while count(&arrivals) - before < total {
        anyhow::ensure!(
            started.elapsed() < Duration::from_secs(600),
            "only {} of {total} arrived",
            count(&arrivals) - before
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let drained = started.elapsed();
    let _ = worker.send(true);

    println!("webhook delivery to a receiver on 127.0.0.1, one worker");
    println!(
        "  event to delivery (idle, {} samples): p50 {}, p95 {}, max {}",
        latencies.len(),
        ms(percentile(&mut latencies, 50.0)),
        ms(percentile(&mut latencies, 95.0)),
        ms(percentile(&mut latencies, 100.0)),
    );
    println!(
        "  backlog: {total} deliveries ({entries} events x {hooks} webhooks) recorded in {:.1} s over HTTP",
        recorded.as_secs_f64()
    );
    println!(
        "  drained by one worker in {:.2} s = {:.0} deliveries/s",
        drained.as_secs_f64(),
        total as f64 / drained.as_secs_f64()
    );
    bench.finish().await?;
    Ok(())
}
