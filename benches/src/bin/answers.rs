//! Answers (#41): time to the first streamed token of `POST /v1/indexes/:id/answer` (`Accept:
//! text/event-stream`) against an OpenAI-compatible chat API on loopback whose first token comes
//! `--latency-ms` after the call (its head at once). What the client waits past that latency is
//! Shipmate's own: the retrieval (the local model embedding the question, the search), the
//! prompt, and relaying the token. Every question differs, so no cached query vector helps.
//! benches/README.md has the figures.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::routing::post;
use axum::{Json, Router};
use clap::Parser;
use serde_json::{json, Value};
use shipmate_benches::{ms, percentile, start};

#[derive(Parser)]
struct Args {
    /// The chat API's time to its first token.
    #[arg(long, default_value_t = 200)]
    latency_ms: u64,
    /// Documents in the index (a few chunks each).
    #[arg(long, default_value_t = 2_000)]
    docs: usize,
    /// Answers measured per mode, one at a time (after 5 to warm up).
    #[arg(long, default_value_t = 50)]
    requests: usize,
}

const TOPICS: &[&str] = &[
    "reset a password",
    "export invoices",
    "invite a teammate",
    "change the billing plan",
    "connect the Slack integration",
    "delete an account",
    "set up single sign-on",
    "download a report",
    "enable two-factor codes",
    "rotate an API key",
];

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let latency = Duration::from_millis(a.latency_ms);
    let chat = fake_chat(latency).await?;
    let bench = start(&["--chat-url", &chat, "--chat-model", "bench"]).await?;
    let (_, key) = bench.project("answers-bench").await?;
    let index = bench
        .post(
            &key,
            "/v1/indexes",
            json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"}),
        )
        .await?;
    let index_id = index["id"].as_str().unwrap_or_default().to_owned();
    let _worker = bench.start_worker(&[])?;
    let docs: Vec<Value> = (0..a.docs)
        .map(|i| {
            let topic = TOPICS[i % TOPICS.len()];
            json!({"content": format!("# Article {i}: how to {topic}\n\nTo {topic}, open the settings page \
                and choose the section named after it (step {i}). Save, and the change applies at once to \
                every member of the workspace.\n\nIf it fails, write to support with reference {i}.")})
        })
        .collect();
    for batch in docs.chunks(100) {
        let path = format!("/v1/indexes/{index_id}/documents/batch");
        bench.post(&key, &path, json!({"documents": batch})).await?;
    }
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        let i = bench.get(&key, &format!("/v1/indexes/{index_id}")).await?;
        if i["documents_ready"].as_u64() == Some(a.docs as u64) {
            break;
        }
        anyhow::ensure!(Instant::now() < deadline, "documents not ready: {i}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    println!(
        "index: {} documents; chat API first token after {} ms; {} answers per mode",
        a.docs, a.latency_ms, a.requests
    );
    let url = format!("{}/v1/indexes/{index_id}/answer", bench.base);
    for mode in ["keyword", "vector", "hybrid"] {
        let mut firsts = Vec::new();
        for n in 0..a.requests + 5 {
            let question = format!("How do I {} ({mode} {n})?", TOPICS[n % TOPICS.len()]);
            let t = Instant::now();
            let mut res = bench
                .http
                .post(&url)
                .header("X-Project-Key", &key)
                .header("Accept", "text/event-stream")
                .json(&json!({"question": question, "mode": mode}))
                .send()
                .await?;
            anyhow::ensure!(res.status().is_success(), "{}", res.status());
            let mut seen = String::new();
            let mut first = None;
            while let Some(bytes) = res.chunk().await? {
                seen.push_str(&String::from_utf8_lossy(&bytes));
                if first.is_none() && seen.contains("event: delta") {
                    first = Some(t.elapsed());
                }
            }
            anyhow::ensure!(seen.contains("event: done"), "no done event: {seen}");
            if n >= 5 {
                firsts.push(first.unwrap_or_default());
            }
        }
        let p50 = percentile(&mut firsts, 50.0);
        let p95 = percentile(&mut firsts, 95.0);
        // The retrieval alone: the same kind of question as a search.
        let mut searches = Vec::new();
        for n in 0..a.requests + 5 {
            let question = format!("How do I {} (search {mode} {n})?", TOPICS[n % TOPICS.len()]);
            let t = Instant::now();
            let path = format!("/v1/indexes/{index_id}/search");
            bench
                .post(&key, &path, json!({"query": question, "mode": mode}))
                .await?;
            if n >= 5 {
                searches.push(t.elapsed());
            }
        }
        println!(
            "{mode:>7}: first token p50 {} (latency + {}), p95 {} (latency + {}); the search alone p50 {}",
            ms(p50),
            ms(p50.saturating_sub(latency)),
            ms(p95),
            ms(p95.saturating_sub(latency)),
            ms(percentile(&mut searches, 50.0)),
        );
    }
    bench.finish().await
}

/// An OpenAI-compatible chat API answering every call with a stream whose head comes at once and
/// whose first token comes `latency` later; its base URL.
async fn fake_chat(latency: Duration) -> anyhow::Result<String> {
    let router = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(_): Json<Value>| async move {
            let pieces = ["Open ", "the ", "settings ", "page ", "[1]."];
            let events = futures::stream::unfold(0usize, move |i| async move {
                let event = match i {
                    0 => {
                        tokio::time::sleep(latency).await;
                        piece(pieces[0])
                    }
                    i if i < pieces.len() => piece(pieces[i]),
                    i if i == pieces.len() => "data: [DONE]\n\n".to_owned(),
                    _ => return None,
                };
                Some((Ok::<_, std::io::Error>(event), i + 1))
            });
            (
                [("content-type", "text/event-stream")],
                Body::from_stream(events),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/v1", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(url)
}

fn piece(text: &str) -> String {
    let event = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": text}}]});
    format!("data: {event}\n\n")
}
