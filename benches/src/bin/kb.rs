//! Knowledge-base benchmarks, end to end over HTTP with the api and one worker in this process:
//! upload latency, ingestion throughput against raw ONNX Runtime on the same chunks, freshness
//! (idle and beside another project's bulk upload), search latency and recall@10 on 100,000
//! chunks, and the same searches beside another project's bulk upload (fairness).
//! Run: `cargo run --release -p shipmate-benches --bin kb` (see benches/README.md).

use std::time::{Duration, Instant};

use clap::Parser;
use futures::StreamExt;
use serde_json::json;
use shipmate_benches::{ms, percentile, start, Bench};
use shipmate_kb::documents::PendingChunk;
use shipmate_kb::embed::InputKind;
use sqlx::PgPool;

const MODEL: &str = "all-minilm-l6-v2";

#[path = "kb/provider.rs"]
mod provider;
#[path = "kb/provider_data.rs"]
mod provider_data;
#[path = "kb/provider_graphs.rs"]
mod provider_graphs;
#[path = "kb/provider_search.rs"]
mod provider_search;
#[path = "kb/support.rs"]
mod support;

use support::*;

#[derive(Parser)]
struct Args {
    /// Documents in the ingestion corpus (README files of the crates on this machine).
    #[arg(long, default_value_t = 300)]
    docs: usize,
    /// Documents in the other project's bulk upload during the freshness run.
    #[arg(long, default_value_t = 1000)]
    bulk_docs: usize,
    /// Chunks in the search index (0 skips the search and fairness runs).
    #[arg(long, default_value_t = 100_000)]
    search_chunks: usize,
    /// Search queries measured.
    #[arg(long, default_value_t = 200)]
    queries: usize,
    /// Re-upserts of an unchanged 100 KB document measured (0 skips them).
    #[arg(long, default_value_t = 200)]
    upserts: usize,
    /// Only the provider ingestion run: a fake provider against Postgres alone (see `provider`).
    #[arg(long)]
    provider_only: bool,
    /// Documents in the provider ingestion run.
    #[arg(long, default_value_t = 10_000)]
    provider_docs: usize,
    /// Chunks in the provider run's search index, reached by a second bulk load of
    /// `provider_docs` during which it is searched (0 skips the searches).
    #[arg(long, default_value_t = 100_000)]
    provider_search_chunks: usize,
}

/// Requests and jobs allocate on every core at once: glibc's malloc cost 15 % of the machine in the
/// analytics benchmark (benches/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // The api's and worker's logs, with RUST_LOG (e.g. `warn`): a failed request says why.
    if std::env::var_os("RUST_LOG").is_some() {
        shipmate_api::telemetry::init();
    }
    if args.provider_only {
        return provider::run(
            args.provider_docs,
            args.provider_search_chunks,
            args.queries,
        )
        .await;
    }
    let b = start(&[]).await?;
    let result = run(&b, &args).await;
    b.finish().await?;
    result
}

async fn run(b: &Bench, args: &Args) -> anyhow::Result<()> {
    let db = PgPool::connect(&b.db_url).await?;
    let corpus = load_corpus(args.docs)?;
    println!(
        "corpus: {} documents, {} KB of README files",
        corpus.len(),
        corpus.iter().map(String::len).sum::<usize>() / 1024
    );

    // 1. Upload latency for 10 KB documents, no worker running: the request only chunks, stores and enqueues.
    let (key_l, index_l) = indexed_project(b, "bench-latency", "l").await?;
    let ten_kb: Vec<String> = corpus
        .iter()
        .filter(|d| d.len() >= 10_240)
        .map(|d| d[..floor_char(d, 10_240)].to_owned())
        .collect();
    let mut upload = Vec::new();
    for (i, doc) in ten_kb.iter().cycle().take(200).enumerate() {
        let t = Instant::now();
        b.post(
            &key_l,
            &format!("/v1/indexes/{}/documents", id(&index_l)),
            json!({"content": doc, "metadata": {"i": i}}),
        )
        .await?;
        upload.push(t.elapsed());
    }
    b.http
        .delete(format!("{}/v1/indexes/{}", b.base, id(&index_l)))
        .header("X-Project-Key", &key_l)
        .send()
        .await?;
    println!(
        "upload 10 KB: p50 {} p99 {}",
        ms(percentile(&mut upload, 50.0)),
        ms(percentile(&mut upload, 99.0))
    );

    // 2. Ingestion: corpus over HTTP until every document is ready.
    let _worker = b.start_worker(&[])?;
    let (key_a, index_a) = indexed_project(b, "bench-a", "a").await?;
    let started = Instant::now();
    let docs_a = format!("/v1/indexes/{}/documents", id(&index_a));
    let chunks: i64 = futures::stream::iter(corpus.iter())
        .map(|doc| b.post(&key_a, &docs_a, json!({"content": doc})))
        .buffer_unordered(4)
        .map(|r| {
            r.map(|d| d["chunks_created"].as_i64().unwrap_or(0))
                .unwrap_or(0)
        })
        .fold(0, |a, n| async move { a + n })
        .await;
    wait_all_ready(&db, id(&index_a)).await?;
    let pipeline = chunks as f64 / started.elapsed().as_secs_f64();
    println!(
        "ingestion: {chunks} chunks in {:.1} s = {pipeline:.1} chunks/s end to end",
        started.elapsed().as_secs_f64()
    );

    // Raw ONNX Runtime on the same chunks, same batching, same threads.
    let texts: Vec<String> = sqlx::query_scalar!(
        "select content from kb_chunks where index_id = $1::text::uuid",
        id(&index_a)
    )
    .fetch_all(&db)
    .await?;
    let model = local_model()?;
    let raw = tokio::task::spawn_blocking(move || -> anyhow::Result<f64> {
        let mut items: Vec<PendingChunk> = texts
            .into_iter()
            .map(|content| PendingChunk {
                id: uuid::Uuid::nil(),
                document_id: uuid::Uuid::nil(),
                project_id: uuid::Uuid::nil(),
                content,
                embedding_model: String::new(),
            })
            .collect();
        items.sort_by_key(|c| c.content.len());
        let t = Instant::now();
        for batch in shipmate_worker::jobs::embed::batches(&items, 4096) {
            let texts: Vec<String> = batch.iter().map(|c| c.content.clone()).collect();
            model.embed_blocking(&texts, InputKind::Document)?;
        }
        Ok(items.len() as f64 / t.elapsed().as_secs_f64())
    })
    .await??;
    println!(
        "raw ONNX Runtime: {raw:.1} chunks/s; pipeline reaches {:.0}%",
        100.0 * pipeline / raw
    );

    // 3. Freshness: one document from upload to ready, idle and beside a bulk upload.
    let (key_b, index_b) = indexed_project(b, "bench-b", "b").await?;
    let mut idle = Vec::new();
    for i in 0..20 {
        idle.push(
            freshness(
                b,
                &key_b,
                id(&index_b),
                &format!(
                    "Single document {i}: {}",
                    &corpus[i % corpus.len()][..floor_char(&corpus[i % corpus.len()], 1_000)]
                ),
            )
            .await?,
        );
    }
    let bulk = spawn_bulk(
        b,
        &key_a,
        id(&index_a),
        bulk_corpus(&corpus, args.bulk_docs),
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut busy = Vec::new();
    for i in 0..20 {
        busy.push(
            freshness(
                b,
                &key_b,
                id(&index_b),
                &format!("Document {i} beside a bulk upload."),
            )
            .await?,
        );
    }
    bulk.await?;
    println!(
        "freshness p95: idle {}, beside a {}-document bulk upload {}",
        ms(percentile(&mut idle, 95.0)),
        args.bulk_docs,
        ms(percentile(&mut busy, 95.0))
    );
    // The search run below needs the machine to itself.
    wait_all_ready(&db, id(&index_a)).await?;
    if args.upserts > 0 {
        reupsert(b, &db, &corpus, args.upserts).await?;
    }
    drop(_worker);

    // 4. Search on many chunks: blends of the corpus's real embeddings (see fill_search_index).
    if args.search_chunks == 0 {
        return Ok(());
    }
    let (key_s, index_s) = indexed_project(b, "bench-s", "s").await?;
    let (build, stored) =
        fill_search_index(&db, id(&index_s), id(&index_a), args.search_chunks).await?;
    println!(
        "search index: {} chunks in documents of 100, each document one of {TENANTS} tenants; HNSW built in {:.1} s",
        args.search_chunks,
        build.as_secs_f64()
    );
    // A distinct set of queries per pass: a repeated text would be answered from the api's
    // query-embedding cache.
    let texts: Vec<String> = sqlx::query_scalar!(
        r#"select left(content, 120) as "text!" from kb_chunks where index_id = $1::text::uuid order by random() limit $2"#,
        id(&index_a),
        (4 * (args.queries + 10)) as i64
    )
    .fetch_all(&db)
        .await?;
    let mut sets = texts.chunks(args.queries + 10);
    let mut next_set = || sets.next().unwrap_or_default();
    let search_path = format!("/v1/indexes/{}/search", id(&index_s));
    // Searches first, the bench's own embeddings after: two ONNX Runtime sessions taking turns
    // would slow each other (their thread pools spin between runs).
    let plain = timed_searches(b, &key_s, &search_path, next_set(), |_| json!({})).await?;
    let filtered = timed_searches(
        b,
        &key_s,
        &search_path,
        next_set(),
        |i| json!({"filter": {"tenant": tenant(i)}}),
    )
    .await?;
    let mut hybrid = timed_searches(
        b,
        &key_s,
        &search_path,
        next_set(),
        |_| json!({"mode": "hybrid"}),
    )
    .await?;
    let mut keyword = timed_searches(
        b,
        &key_s,
        &search_path,
        next_set(),
        |_| json!({"mode": "keyword"}),
    )
    .await?;
    let model = local_model()?;
    let mut embedding = Vec::new();
    for (name, mut run, only_tenant) in [
        ("search", plain, false),
        (
            "filtered search (one tenant: 10 % of chunks)",
            filtered,
            true,
        ),
    ] {
        let mut recall = 0.0;
        for (i, (q, got)) in run.answers.iter().enumerate() {
            let t = Instant::now();
            let vector = model
                .embed_blocking(std::slice::from_ref(q), InputKind::Query)?
                .pop()
                .unwrap_or_default();
            embedding.push(t.elapsed());
            let tenant = only_tenant.then_some(i % TENANTS);
            let exact = exact_top(&stored, &vector, 10, tenant);
            recall += exact.iter().filter(|c| got.contains(c)).count() as f64 / 10.0;
        }
        println!(
            "{name} ({} chunks, top_k 10, query embedding included): p50 {} p99 {}, recall@10 {:.3} against exact{}",
            args.search_chunks,
            ms(percentile(&mut run.latency, 50.0)),
            ms(percentile(&mut run.latency, 99.0)),
            recall / run.answers.len() as f64,
            if only_tenant { " filtered search" } else { "" },
        );
    }
    for (name, run) in [("hybrid", &mut hybrid), ("keyword", &mut keyword)] {
        println!(
            "{name} search ({} chunks, top_k 10): p50 {} p99 {}",
            args.search_chunks,
            ms(percentile(&mut run.latency, 50.0)),
            ms(percentile(&mut run.latency, 99.0)),
        );
    }
    println!(
        "query embedding alone: p50 {}",
        ms(percentile(&mut embedding, 50.0))
    );
    let queries: Vec<String> = texts.into_iter().take(args.queries + 10).collect();
    drop(model);
    search_log_overhead(b, &key_s, &search_path, &queries).await?;

    // 5. Fairness: the same searches by project S while project A bulk uploads and a worker
    // embeds it. Queries carry a sequence number, so none is answered from the query cache.
    let _worker = b.start_worker(&[])?;
    let mut beside = searches_beside_bulk(
        b,
        &db,
        (&key_s, id(&index_s)),
        (&key_a, id(&index_a)),
        bulk_corpus(&corpus, args.bulk_docs),
        &queries,
    )
    .await?;
    println!(
        "search beside a {}-document bulk upload of another project ({} searches, one every {} ms): p50 {} p99 {}",
        args.bulk_docs,
        beside.len(),
        SEARCH_PACE.as_millis(),
        ms(percentile(&mut beside, 50.0)),
        ms(percentile(&mut beside, 99.0)),
    );
    Ok(())
}
