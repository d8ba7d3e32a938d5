//! Knowledge-base benchmarks, end to end over HTTP with the api and one worker in this process:
//! upload latency, ingestion throughput against raw ONNX Runtime on the same chunks, freshness
//! (idle and beside another project's bulk upload), search latency and recall@10 on 100,000
//! chunks, and the same searches beside another project's bulk upload (fairness).
//! Run: `cargo run --release -p shipmate-benches --bin kb` (see benches/README.md).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use futures::StreamExt;
use rand::Rng;
use serde_json::{json, Value};
use shipmate_benches::{ms, percentile, start, Bench};
use shipmate_kb::documents::PendingChunk;
use shipmate_kb::embed::InputKind;
use shipmate_kb::local::{scan, LocalModel, PoolOptions, DEFAULT_SESSIONS};
use sqlx::PgPool;

const MODEL: &str = "all-minilm-l6-v2";

#[path = "kb/provider.rs"]
mod provider;

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
        return provider::run(args.provider_docs).await;
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
    let (_, key_l) = b.project("bench-latency").await?;
    let index_l = b
        .post(
            &key_l,
            "/v1/indexes",
            json!({"name": "l", "embedding_model": MODEL}),
        )
        .await?;
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
    let (_, key_a) = b.project("bench-a").await?;
    let index_a = b
        .post(
            &key_a,
            "/v1/indexes",
            json!({"name": "a", "embedding_model": MODEL}),
        )
        .await?;
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
    let texts: Vec<String> =
        sqlx::query_scalar("select content from kb_chunks where index_id = $1::uuid")
            .bind(id(&index_a))
            .fetch_all(&db)
            .await?;
    let model = local_model()?;
    let raw = tokio::task::spawn_blocking(move || -> anyhow::Result<f64> {
        let mut items: Vec<PendingChunk> = texts
            .into_iter()
            .map(|content| PendingChunk {
                id: uuid::Uuid::nil(),
                document_id: uuid::Uuid::nil(),
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
    let (_, key_b) = b.project("bench-b").await?;
    let index_b = b
        .post(
            &key_b,
            "/v1/indexes",
            json!({"name": "b", "embedding_model": MODEL}),
        )
        .await?;
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
    let (_, key_s) = b.project("bench-s").await?;
    let index_s = b
        .post(
            &key_s,
            "/v1/indexes",
            json!({"name": "s", "embedding_model": MODEL}),
        )
        .await?;
    let (build, stored) =
        fill_search_index(&db, id(&index_s), id(&index_a), args.search_chunks).await?;
    println!(
        "search index: {} chunks in documents of 100, each document one of {TENANTS} tenants; HNSW built in {:.1} s",
        args.search_chunks,
        build.as_secs_f64()
    );
    // A distinct set of queries per pass: a repeated text would be answered from the api's
    // query-embedding cache.
    let texts: Vec<String> = sqlx::query_scalar("select left(content, 120) from kb_chunks where index_id = $1::uuid order by random() limit $2")
        .bind(id(&index_a))
        .bind((4 * (args.queries + 10)) as i64)
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

    // 5. Fairness: the same searches by project S while project A bulk uploads and a worker
    // embeds it. Queries carry a sequence number, so none is answered from the query cache.
    let _worker = b.start_worker(&[])?;
    let bulk = spawn_bulk(
        b,
        &key_a,
        id(&index_a),
        bulk_corpus(&corpus, args.bulk_docs),
    );
    let ingested = tokio::spawn({
        let (db, index) = (db.clone(), id(&index_a).to_owned());
        async move {
            bulk.await?;
            wait_all_ready(&db, &index).await
        }
    });
    let search = format!("/v1/indexes/{}/search", id(&index_s));
    let mut beside = Vec::new();
    for (i, q) in queries.iter().cycle().enumerate() {
        if ingested.is_finished() {
            break;
        }
        let next = Instant::now() + SEARCH_PACE;
        let t = Instant::now();
        b.post(
            &key_s,
            &search,
            json!({"query": format!("{q} {i}"), "top_k": 10}),
        )
        .await?;
        beside.push(t.elapsed());
        tokio::time::sleep_until(next.into()).await;
    }
    ingested.await??;
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

/// How often the other project searches during the fairness run: a steady stream, not a burst
/// that would itself take a core from the bulk upload's embedding.
const SEARCH_PACE: Duration = Duration::from_millis(100);

/// The bulk upload: `n` documents of up to 2,000 bytes, cycling through the corpus.
fn bulk_corpus(corpus: &[String], n: usize) -> Vec<String> {
    corpus
        .iter()
        .cycle()
        .take(n)
        .map(|d| d[..floor_char(d, 2_000)].to_owned())
        .collect()
}

/// Tenants in the search index: a filter on one keeps a tenth of the chunks.
const TENANTS: usize = 10;

fn tenant(i: usize) -> String {
    format!("t{}", i % TENANTS)
}

/// A chunk by its place: (document id, chunk index).
type ChunkKey = (String, i64);

/// A stored chunk of the search index: its place, its document's tenant and its vector.
struct Stored {
    key: ChunkKey,
    tenant: usize,
    vector: Vec<f32>,
}

/// Searches measured one after another: the latencies and, per query, what came back.
struct Searches {
    latency: Vec<Duration>,
    answers: Vec<(String, Vec<ChunkKey>)>,
}

/// One search per query, top_k 10, after 10 warm-ups; `extra(i)` adds fields (filter, mode).
async fn timed_searches(
    b: &Bench,
    key: &str,
    path: &str,
    queries: &[String],
    extra: impl Fn(usize) -> Value,
) -> anyhow::Result<Searches> {
    let mut out = Searches {
        latency: Vec::new(),
        answers: Vec::new(),
    };
    for (i, q) in queries.iter().enumerate() {
        let mut body = json!({"query": q, "top_k": 10});
        // Numbered as the measured answers are (the warm-ups all count as 0).
        if let (Some(b), Value::Object(more)) = (body.as_object_mut(), extra(i.saturating_sub(10)))
        {
            b.extend(more);
        }
        let t = Instant::now();
        let res = b.post(key, path, body).await?;
        let took = t.elapsed();
        if i < 10 {
            continue; // warm-up
        }
        let got = res["results"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        (
                            r["document_id"].as_str().unwrap_or_default().to_owned(),
                            r["chunk_index"].as_i64().unwrap_or(-1),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.latency.push(took);
        out.answers.push((q.clone(), got));
    }
    Ok(out)
}

/// The `k` stored chunks closest to `query` by cosine (all vectors are unit length), among those
/// of `tenant` when given.
fn exact_top(stored: &[Stored], query: &[f32], k: usize, tenant: Option<usize>) -> Vec<ChunkKey> {
    let mut scored: Vec<(f32, &ChunkKey)> = stored
        .iter()
        .filter(|s| tenant.is_none_or(|t| s.tenant == t))
        .map(|s| (s.vector.iter().zip(query).map(|(a, b)| a * b).sum(), &s.key))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(k).map(|(_, c)| c.clone()).collect()
}

/// Re-upserting an unchanged 100 KB document (README files joined up to 100 KB): its first
/// version is embedded by the running worker, then `n` identical PUTs are timed. Every answer must
/// be `ready` with all chunks reused: nothing was left to embed.
async fn reupsert(b: &Bench, db: &PgPool, corpus: &[String], n: usize) -> anyhow::Result<()> {
    let (_, key) = b.project("bench-upsert").await?;
    let index = b
        .post(
            &key,
            "/v1/indexes",
            json!({"name": "u", "embedding_model": MODEL}),
        )
        .await?;
    let mut doc = String::new();
    for d in corpus.iter().cycle() {
        if doc.len() + d.len() + 2 > 102_400 {
            break;
        }
        doc.push_str(d);
        doc.push_str("\n\n");
    }
    let path = format!(
        "{}/v1/indexes/{}/documents/by-external-id/guide",
        b.base,
        id(&index)
    );
    let put = || async {
        let res = b
            .http
            .put(&path)
            .header("X-Project-Key", &key)
            .json(&json!({"content": doc, "metadata": {"source": "bench"}}))
            .send()
            .await?;
        anyhow::ensure!(res.status().is_success(), "PUT: {}", res.status());
        Ok::<Value, anyhow::Error>(res.json().await?)
    };
    let first = put().await?;
    wait_all_ready(db, id(&index)).await?;
    let mut latency = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        let again = put().await?;
        latency.push(t.elapsed());
        anyhow::ensure!(
            again["status"] == "ready" && again["chunks_reused"] == first["chunks_created"],
            "an unchanged re-upsert left work to do: {again}"
        );
    }
    println!(
        "re-upsert of an unchanged {} KB document ({} chunks): p50 {} p99 {} over {n}, 0 embedding calls (every answer ready, all chunks reused)",
        doc.len() / 1024,
        first["chunks_created"],
        ms(percentile(&mut latency, 50.0)),
        ms(percentile(&mut latency, 99.0)),
    );
    Ok(())
}

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap_or_default()
}

fn floor_char(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// README files of the crates in cargo's registry: real documentation prose and Markdown.
fn load_corpus(n: usize) -> anyhow::Result<Vec<String>> {
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo")
        });
    let mut files: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))?
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|c| c.path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut out: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter(|t| (2_000..=100_000).contains(&t.len()))
        .collect();
    out.dedup();
    out.truncate(n);
    anyhow::ensure!(
        !out.is_empty(),
        "no README files found under {}",
        home.display()
    );
    Ok(out)
}

fn local_model() -> anyhow::Result<LocalModel> {
    let dir = std::env::var("SHIPMATE_MODELS_DIR").unwrap_or_else(|_| "models".into());
    let (manifest, folder) = scan(std::path::Path::new(&dir))
        .into_iter()
        .find(|(m, _)| m.id == MODEL)
        .ok_or_else(|| anyhow::anyhow!("{MODEL} not installed"))?;
    LocalModel::load(
        manifest,
        &folder,
        std::env::var("ORT_DYLIB_PATH")
            .ok()
            .as_deref()
            .map(std::path::Path::new),
        // As the worker's (SHIPMATE_EMBED_SESSIONS), so the raw figure compares like with like.
        PoolOptions::for_machine(
            std::env::var("SHIPMATE_EMBED_SESSIONS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(DEFAULT_SESSIONS),
        ),
    )
}

async fn wait_all_ready(db: &PgPool, index: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(3_600);
    loop {
        let left: i64 = sqlx::query_scalar(
            "select count(*) from kb_documents where index_id = $1::uuid and status <> 'ready'",
        )
        .bind(index)
        .fetch_one(db)
        .await?;
        if left == 0 {
            return Ok(());
        }
        anyhow::ensure!(Instant::now() < deadline, "documents still pending");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Uploads `docs` to `index`, 4 at a time, in the background: the bulk upload of project A.
fn spawn_bulk(b: &Bench, key: &str, index: &str, docs: Vec<String>) -> tokio::task::JoinHandle<()> {
    let (b, key) = (b.clone(), key.to_owned());
    let path = format!("/v1/indexes/{index}/documents");
    tokio::spawn(async move {
        futures::stream::iter(docs)
            .map(|d| {
                let (b, key, path) = (&b, &key, &path);
                async move { b.post(key, path, json!({"content": d})).await }
            })
            .buffer_unordered(4)
            .for_each(|_| async {})
            .await;
    })
}

/// Upload to ready for one document.
async fn freshness(b: &Bench, key: &str, index: &str, content: &str) -> anyhow::Result<Duration> {
    let t = Instant::now();
    let doc = b
        .post(
            key,
            &format!("/v1/indexes/{index}/documents"),
            json!({"content": content}),
        )
        .await?;
    let path = format!("/v1/indexes/{index}/documents/{}", id(&doc));
    loop {
        if b.get(key, &path).await?["status"] == "ready" {
            return Ok(t.elapsed());
        }
        anyhow::ensure!(
            t.elapsed() < Duration::from_secs(120),
            "document never became ready"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Fills an index with `n` ready chunks in documents of 100, each document's metadata naming one
/// of `TENANTS` tenants, then (re)builds the 384-dimension HNSW index, as a bulk load would. Each
/// chunk has a real chunk's text (for keyword search) and a vector blending two of the corpus's
/// real embeddings (the second weighted 0.2-0.6), so the set keeps real text's structure while
/// every vector is distinct; tiny random noise alone would make a set no real corpus resembles.
/// Returns the build time and the stored chunks.
async fn fill_search_index(
    db: &PgPool,
    index: &str,
    source: &str,
    n: usize,
) -> anyhow::Result<(Duration, Vec<Stored>)> {
    let bases: Vec<(String, String)> = sqlx::query_as(
        "select content, embedding::text from kb_chunks where index_id = $1::uuid and embedding is not null",
    )
    .bind(source)
    .fetch_all(db)
    .await?;
    let bases: Vec<(String, Vec<f32>)> = bases
        .into_iter()
        .map(|(text, v)| {
            let v = v
                .trim_matches(['[', ']'])
                .split(',')
                .filter_map(|x| x.parse().ok())
                .collect();
            (text, v)
        })
        .collect();
    anyhow::ensure!(!bases.is_empty(), "no source embeddings");
    let project: uuid::Uuid =
        sqlx::query_scalar("select project_id from kb_indexes where id = $1::uuid")
            .bind(index)
            .fetch_one(db)
            .await?;
    sqlx::query("drop index if exists kb_chunks_hnsw_384")
        .execute(db)
        .await?;
    let mut rng = rand::thread_rng();
    let mut stored = Vec::with_capacity(n);
    for (d, start) in (0..n).step_by(100).enumerate() {
        let doc = uuid::Uuid::now_v7();
        let count = 100.min(n - start);
        let metadata = json!({ "tenant": tenant(d) });
        sqlx::query("insert into kb_documents (id, index_id, project_id, status, chunks_created, metadata) values ($1, $2::uuid, $3, 'ready', $4, $5)")
            .bind(doc)
            .bind(index)
            .bind(project)
            .bind(count as i32)
            .bind(&metadata)
            .execute(db)
            .await?;
        let mut ids = Vec::with_capacity(count);
        let mut contents = Vec::with_capacity(count);
        let mut vectors = Vec::with_capacity(count);
        for i in start..start + count {
            let ((text, a), (_, b)) = (
                &bases[i % bases.len()],
                &bases[rng.gen_range(0..bases.len())],
            );
            let w = rng.gen_range(0.2..0.6);
            let mut v: Vec<f32> = a.iter().zip(b).map(|(x, y)| x + w * y).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            ids.push(uuid::Uuid::now_v7());
            contents.push(text.clone());
            vectors.push(pgvector::Vector::from(v.clone()));
            stored.push(Stored {
                key: (doc.to_string(), (i - start) as i64),
                tenant: d % TENANTS,
                vector: v,
            });
        }
        let ordinals: Vec<i32> = (0..count as i32).collect();
        sqlx::query(
            "insert into kb_chunks (id, document_id, index_id, ordinal, content, dims, embedding, ready, metadata)
             select u.id, $2, $3::uuid, u.ordinal, u.content, 384, u.embedding, true, $7
             from unnest($1::uuid[], $4::int[], $5::text[], $6::vector[]) as u(id, ordinal, content, embedding)",
        )
        .bind(&ids)
        .bind(doc)
        .bind(index)
        .bind(&ordinals)
        .bind(&contents)
        .bind(&vectors)
        .bind(&metadata)
        .execute(db)
        .await?;
    }
    let t = Instant::now();
    let mut conn = db.acquire().await?;
    sqlx::query("set maintenance_work_mem = '2GB'")
        .execute(&mut *conn)
        .await?;
    sqlx::query("create index kb_chunks_hnsw_384 on kb_chunks using hnsw ((embedding::vector(384)) vector_cosine_ops) where dims = 384")
        .execute(&mut *conn)
        .await?;
    sqlx::query("vacuum analyze kb_chunks")
        .execute(&mut *conn)
        .await?;
    Ok((t.elapsed(), stored))
}
