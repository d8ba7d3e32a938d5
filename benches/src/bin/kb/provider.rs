//! Provider ingestion: a fake provider A on 127.0.0.1 answering every document call in 150 ms
//! with 1024-dimension vectors, `docs` one-chunk documents ingested by one worker (default
//! settings: 8 calls in flight), against Postgres alone inserting the same vectors into the same
//! indexed table, measured in the same run from the same state of the table's indexes, once with
//! the graph as it was before issue #38 (full vectors) and once as it is (sign bits). Then, with
//! `search_chunks`, searches on a 1024-dimension index of that size during and after a second
//! bulk load (see `provider_search`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Value};
use shipmate_benches::{start, Bench};
use sqlx::PgPool;

use super::provider_data::{
    ddl, embed_real, pieces, query_text, texts, upload, vector_for, BITS_GRAPH, DIMS,
};
use super::{id, wait_all_ready};

const LATENCY: Duration = Duration::from_millis(150);
/// Provider A's inputs per call, as the worker sends them.
const CALL: usize = 128;
/// Provider ingestion before issue #38 (benches/README.md, 2026-11-24), for the multiple.
const BEFORE: f64 = 327.0;

pub async fn run(docs: usize, search_chunks: usize, queries: usize) -> anyhow::Result<()> {
    let calls = Arc::new(Calls::default());
    let url = fake_provider(calls.clone()).await?;
    let b = start(&["--provider-a-url", &url, "--provider-a-key", "bench"]).await?;
    let result = measure(&b, &url, &calls, docs, search_chunks, queries).await;
    b.finish().await?;
    result
}

/// The graph on 1024-dimension vectors: full vectors (before issue #38) or their sign bits (now).
#[derive(Clone, Copy, Debug)]
enum Graph {
    Full,
    Bits,
}

impl Graph {
    fn create(self) -> &'static str {
        match self {
            Graph::Full => "create index kb_chunks_hnsw_1024 on kb_chunks using hnsw ((embedding::vector(1024)) vector_cosine_ops) where dims = 1024",
            Graph::Bits => BITS_GRAPH,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Graph::Full => "kb_chunks_hnsw_1024",
            Graph::Bits => "kb_chunks_bits_1024",
        }
    }
}

async fn measure(
    b: &Bench,
    url: &str,
    calls: &Calls,
    docs: usize,
    search_chunks: usize,
    queries: usize,
) -> anyhow::Result<()> {
    let db = PgPool::connect(&b.db_url).await?;
    let (_, key) = b.project("bench-provider").await?;
    let index = b
        .post(
            &key,
            "/v1/indexes",
            json!({"name": "p", "embedding_model": "provider-a-4"}),
        )
        .await?;
    let index = id(&index).to_owned();
    let pieces = pieces()?;
    // Real embeddings of the pieces and of the queries the run will send, before anything is timed.
    let asked: Vec<String> = (1..=400)
        .chain(1_000_000..1_000_000 + queries + 10)
        .map(|seq| query_text(&pieces, seq))
        .collect();
    let t = Instant::now();
    let (all, n) = (pieces.clone(), asked.len());
    tokio::task::spawn_blocking(move || embed_real(&all, asked)).await??;
    println!(
        "embedded {} README pieces and {n} queries with {} in {:.0} s, lifted to {DIMS} dimensions",
        pieces.len(),
        super::MODEL,
        t.elapsed().as_secs_f64()
    );
    let first = texts(&pieces, 0, docs);
    let first_ids = upload(b, &key, &index, &first, 0).await?;
    println!(
        "provider corpus: {docs} one-chunk documents uploaded with no worker running ({} README pieces)",
        pieces.len()
    );

    let before = postgres_alone(&db, &index, &first, Graph::Full).await?;
    let alone = postgres_alone(&db, &index, &first, Graph::Bits).await?;

    let t = Instant::now();
    let _worker = b.start_worker(&["--provider-a-url", url, "--provider-a-key", "bench"])?;
    wait_all_ready(&db, &index).await?;
    let pipeline = docs as f64 / t.elapsed().as_secs_f64();
    println!(
        "provider ingestion ({} ms a call, {DIMS} dimensions): {docs} chunks in {:.1} s = {pipeline:.0} chunks/s; \
         {} calls, at most {} in flight; {:.2} of Postgres alone; {:.1}x the {BEFORE:.0} chunks/s before issue #38",
        LATENCY.as_millis(),
        t.elapsed().as_secs_f64(),
        calls.total.load(Ordering::SeqCst),
        calls.most.load(Ordering::SeqCst),
        pipeline / alone,
        pipeline / BEFORE
    );
    println!(
        "Postgres alone, sign-bit graph against full-vector graph: {:.1}x ({alone:.0} against {before:.0} vectors/s)",
        alone / before
    );
    if search_chunks > 0 {
        let loaded: Vec<(String, String)> = first_ids.into_iter().zip(first).collect();
        super::provider_search::run(
            b,
            &db,
            &key,
            &index,
            loaded,
            &pieces,
            search_chunks,
            queries,
        )
        .await?;
    }
    Ok(())
}

/// Postgres alone: the same vectors inserted into kb_chunks (its `graph`, GIN and b-tree
/// indexes) by as many connections as the worker keeps calls in flight, a call's worth per
/// statement; then the rows are deleted and the graph rebuilt, so the next run starts from the
/// same state. Answers vectors per second.
async fn postgres_alone(
    db: &PgPool,
    index: &str,
    texts: &[String],
    graph: Graph,
) -> anyhow::Result<f64> {
    let other = match graph {
        Graph::Full => Graph::Bits,
        Graph::Bits => Graph::Full,
    };
    ddl(db, &format!("drop index if exists {}", other.name())).await?;
    ddl(db, &format!("drop index if exists {}", graph.name())).await?;
    ddl(db, graph.create()).await?;
    let project: uuid::Uuid = sqlx::query_scalar!(
        "select project_id from kb_indexes where id = $1::text::uuid",
        index
    )
    .fetch_one(db)
    .await?;
    let scratch = uuid::Uuid::now_v7();
    sqlx::query!(
        "insert into kb_documents (id, index_id, project_id, status, chunks_created) values ($1, $2::text::uuid, $3, 'ready', $4)",
        scratch,
        index,
        project,
        texts.len() as i32
    )
    .execute(db)
    .await?;
    let vectors: Vec<pgvector::Vector> = texts
        .iter()
        .map(|t| pgvector::Vector::from(vector_for(t)))
        .collect();
    let t = Instant::now();
    let inserted: Vec<anyhow::Result<()>> =
        futures::stream::iter(texts.chunks(CALL).zip(vectors.chunks(CALL)).enumerate())
            .map(|(n, (part, vectors))| async move {
                let ids: Vec<uuid::Uuid> = part.iter().map(|_| uuid::Uuid::now_v7()).collect();
                let ordinals: Vec<i32> = (0..part.len()).map(|i| (n * CALL + i) as i32).collect();
                // runtime-checked: vectors (pgvector's type has no offline description)
                sqlx::query(
                    "insert into kb_chunks (id, document_id, index_id, ordinal, content, dims, embedding, ready)
                     select u.id, $2, $3::uuid, u.ordinal, u.content, 1024, u.embedding, true
                     from unnest($1::uuid[], $4::int[], $5::text[], $6::vector[]) as u(id, ordinal, content, embedding)",
                )
                .bind(&ids)
                .bind(scratch)
                .bind(index)
                .bind(&ordinals)
                .bind(part)
                .bind(vectors)
                .execute(db)
                .await?;
                Ok(())
            })
            .buffer_unordered(8)
            .collect()
            .await;
    inserted.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    let rate = texts.len() as f64 / t.elapsed().as_secs_f64();
    println!(
        "Postgres alone, {graph:?} graph: {} vectors of {DIMS} dimensions inserted in {:.1} s = {rate:.0} vectors/s",
        texts.len(),
        t.elapsed().as_secs_f64()
    );
    sqlx::query!("delete from kb_documents where id = $1", scratch)
        .execute(db)
        .await?;
    // The state the pipeline starts from: today's graph, without the scratch rows (an HNSW index
    // keeps deleted elements until a vacuum repairs around them).
    ddl(db, &format!("drop index {}", graph.name())).await?;
    ddl(db, Graph::Bits.create()).await?;
    ddl(db, "vacuum analyze kb_chunks").await?;
    Ok(rate)
}

#[derive(Default)]
struct Calls {
    total: AtomicUsize,
    now: AtomicUsize,
    most: AtomicUsize,
}

#[derive(serde::Deserialize)]
struct Request {
    input: Vec<String>,
    input_type: Option<String>,
}

async fn fake_provider(calls: Arc<Calls>) -> anyhow::Result<String> {
    let router = Router::new()
        .route("/embeddings", post(embeddings))
        .with_state(calls);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(url)
}

/// Documents take 150 ms a call; a search's query is answered at once, so search figures are
/// this service's own time (a real provider's query latency is not ours to measure).
async fn embeddings(State(calls): State<Arc<Calls>>, Json(req): Json<Request>) -> Json<Value> {
    if req.input_type.as_deref() != Some("query") {
        calls.total.fetch_add(1, Ordering::SeqCst);
        let now = calls.now.fetch_add(1, Ordering::SeqCst) + 1;
        calls.most.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(LATENCY).await;
        calls.now.fetch_sub(1, Ordering::SeqCst);
    }
    let data: Vec<Value> = req
        .input
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"index": i, "embedding": vector_for(t)}))
        .collect();
    Json(json!({ "data": data }))
}
