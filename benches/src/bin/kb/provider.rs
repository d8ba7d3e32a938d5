//! Provider ingestion: a fake provider A on 127.0.0.1 answering every call in 150 ms with
//! 1024-dimension vectors, `docs` one-chunk documents ingested by one worker (default settings:
//! 8 calls in flight), against Postgres alone inserting the same vectors into the same indexed
//! table, measured in the same run from the same state of the table's indexes.

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

use super::{id, load_corpus, wait_all_ready};

const DIMS: usize = 1024;
const LATENCY: Duration = Duration::from_millis(150);
/// Provider A's inputs per call, as the worker sends them.
const CALL: usize = 128;

pub async fn run(docs: usize) -> anyhow::Result<()> {
    let calls = Arc::new(Calls::default());
    let url = fake_provider(calls.clone()).await?;
    let b = start(&["--provider-a-url", &url, "--provider-a-key", "bench"]).await?;
    let result = measure(&b, &url, &calls, docs).await;
    b.finish().await?;
    result
}

async fn measure(b: &Bench, url: &str, calls: &Calls, docs: usize) -> anyhow::Result<()> {
    let db = PgPool::connect(&b.db_url).await?;
    let (_, key) = b.project("bench-provider").await?;
    let index = b
        .post(
            &key,
            "/v1/indexes",
            json!({"name": "p", "embedding_model": "provider-a-4"}),
        )
        .await?;
    // One chunk each: README text in pieces of up to 600 bytes, numbered so every text (and
    // vector) is distinct.
    let pieces: Vec<String> = load_corpus(300)?
        .iter()
        .flat_map(|d| {
            let mut out = Vec::new();
            let mut rest = d.as_str();
            while !rest.is_empty() {
                let cut = super::floor_char(rest, 600);
                out.push(rest[..cut].to_owned());
                rest = &rest[cut..];
            }
            out
        })
        .collect();
    let texts: Vec<String> = (0..docs)
        .map(|i| format!("{i}. {}", pieces[i % pieces.len()]))
        .collect();
    let path = format!("/v1/indexes/{}/documents/batch", id(&index));
    let stored: Vec<anyhow::Result<Value>> = futures::stream::iter(texts.chunks(100))
        .map(|part| {
            let documents: Vec<Value> = part.iter().map(|t| json!({"content": t})).collect();
            b.post(&key, &path, json!({ "documents": documents }))
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let mut chunks = 0;
    for s in stored {
        chunks += s?["data"]
            .as_array()
            .map(|d| {
                d.iter()
                    .filter_map(|x| x["chunks_created"].as_i64())
                    .sum::<i64>()
            })
            .unwrap_or(0);
    }
    println!("provider corpus: {docs} documents, {chunks} chunks, uploaded with no worker running");

    // Postgres alone: the same vectors inserted into kb_chunks (its HNSW, GIN and b-tree indexes)
    // by as many connections as the worker keeps calls in flight, a call's worth per statement.
    let contents: Vec<String> = sqlx::query_scalar!(
        "select content from kb_chunks where index_id = $1::text::uuid",
        id(&index)
    )
    .fetch_all(&db)
    .await?;
    let project: uuid::Uuid = sqlx::query_scalar!(
        "select project_id from kb_indexes where id = $1::text::uuid",
        id(&index)
    )
    .fetch_one(&db)
    .await?;
    let scratch = uuid::Uuid::now_v7();
    sqlx::query!(
        "insert into kb_documents (id, index_id, project_id, status, chunks_created) values ($1, $2::text::uuid, $3, 'ready', $4)",
        scratch,
        id(&index),
        project,
        contents.len() as i32
    )
    .execute(&db)
    .await?;
    let t = Instant::now();
    let inserted: Vec<anyhow::Result<()>> = futures::stream::iter(contents.chunks(CALL).enumerate())
        .map(|(n, part)| {
            let db = db.clone();
            let index = id(&index).to_owned();
            async move {
                let ids: Vec<uuid::Uuid> = part.iter().map(|_| uuid::Uuid::now_v7()).collect();
                let ordinals: Vec<i32> = (0..part.len()).map(|i| (n * CALL + i) as i32).collect();
                let vectors: Vec<pgvector::Vector> =
                    part.iter().map(|t| pgvector::Vector::from(vector_for(t))).collect();
                // runtime-checked: vectors (pgvector's type has no offline description)
                sqlx::query(
                    "insert into kb_chunks (id, document_id, index_id, ordinal, content, dims, embedding, ready)
                     select u.id, $2, $3::uuid, u.ordinal, u.content, 1024, u.embedding, true
                     from unnest($1::uuid[], $4::int[], $5::text[], $6::vector[]) as u(id, ordinal, content, embedding)",
                )
                .bind(&ids)
                .bind(scratch)
                .bind(&index)
                .bind(&ordinals)
                .bind(part)
                .bind(&vectors)
                .execute(&db)
                .await?;
                Ok(())
            }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    inserted.into_iter().collect::<anyhow::Result<Vec<()>>>()?;
    let alone = contents.len() as f64 / t.elapsed().as_secs_f64();
    println!(
        "Postgres alone: {} vectors of {DIMS} dimensions inserted in {:.1} s = {alone:.0} vectors/s",
        contents.len(),
        t.elapsed().as_secs_f64()
    );
    // Back to the state the pipeline starts from: the scratch rows gone and the graph rebuilt
    // without them (an HNSW index keeps deleted elements until a vacuum repairs around them).
    sqlx::query!("delete from kb_documents where id = $1", scratch)
        .execute(&db)
        .await?;
    // runtime-checked: REINDEX is maintenance, with no rows or parameters to check
    sqlx::query("reindex index kb_chunks_hnsw_1024")
        .execute(&db)
        .await?;
    // runtime-checked: VACUUM is maintenance, with no rows or parameters to check
    sqlx::query("vacuum analyze kb_chunks").execute(&db).await?;

    let t = Instant::now();
    let _worker = b.start_worker(&["--provider-a-url", url, "--provider-a-key", "bench"])?;
    wait_all_ready(&db, id(&index)).await?;
    let pipeline = chunks as f64 / t.elapsed().as_secs_f64();
    println!(
        "provider ingestion ({} ms a call, {DIMS} dimensions): {chunks} chunks in {:.1} s = {pipeline:.0} chunks/s; \
         {} calls, at most {} in flight; {:.2} of Postgres alone",
        LATENCY.as_millis(),
        t.elapsed().as_secs_f64(),
        calls.total.load(Ordering::SeqCst),
        calls.most.load(Ordering::SeqCst),
        pipeline / alone
    );
    Ok(())
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

async fn embeddings(State(calls): State<Arc<Calls>>, Json(req): Json<Request>) -> Json<Value> {
    calls.total.fetch_add(1, Ordering::SeqCst);
    let now = calls.now.fetch_add(1, Ordering::SeqCst) + 1;
    calls.most.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(LATENCY).await;
    calls.now.fetch_sub(1, Ordering::SeqCst);
    let data: Vec<Value> = req
        .input
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"index": i, "embedding": vector_for(t)}))
        .collect();
    Json(json!({ "data": data }))
}

/// A unit vector seeded by the text (FNV-1a, then xorshift): the fake provider and the Postgres
/// baseline write the same vectors.
fn vector_for(text: &str) -> Vec<f32> {
    let mut x = text.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    }) | 1;
    let mut v: Vec<f32> = (0..DIMS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect();
    let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    v.iter_mut().for_each(|a| *a /= norm);
    v
}
