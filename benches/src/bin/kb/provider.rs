//! Provider ingestion: a fake provider A on 127.0.0.1 answering every document call in 150 ms
//! with 1024-dimension vectors, `docs` one-chunk documents ingested by one worker (default
//! settings: 8 calls in flight), against Postgres alone inserting the same vectors into the same
//! indexed table, measured in the same run from the same state of the table's indexes, once with
//! the graph as it was before issue #38 (full vectors) and once as it is (sign bits). Then, with
//! `search_chunks`, searches on a 1024-dimension index of that size during and after a second
//! bulk load (see `provider_search`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Value};
use shipmate_benches::{start, Bench};
use sqlx::PgPool;

use super::{id, load_corpus, tenant, wait_all_ready};

pub(crate) const DIMS: usize = 1024;
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

/// The sign-bit graph of 1024-dimension vectors, as the migration `kb_quantized_graph` makes it.
pub(crate) const BITS_GRAPH: &str = "create index kb_chunks_bits_1024 on kb_chunks using hnsw ((binary_quantize(embedding)::bit(1024)) bit_hamming_ops) where dims = 1024";

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

/// Documents' texts for the provider runs: one chunk each, `n` of them from `from` on, each a
/// README piece's first 400 bytes followed by the first 5 to 40 words of another: every text (and vector) is
/// distinct, and the documents sharing a piece sit at graded distances from a query about it, as
/// the local-model search index blends two real embeddings at random weights. (Halves of two
/// pieces put ~40 documents at a near tie for any query, which no graph ranks, full or not.)
pub(crate) fn texts(pieces: &[String], from: usize, n: usize) -> Vec<String> {
    (from..from + n)
        .map(|i| {
            let a = &pieces[i % pieces.len()];
            // Another piece for each time round the pieces, and another number of its words.
            let b = &pieces[(i * 7919 + (i / pieces.len()) * 104_729 + 13) % pieces.len()];
            let k = 5 + (i * 2_654_435_761) % 36;
            let more: Vec<&str> = b.split_whitespace().take(k).collect();
            let more = more.join(" ");
            // Within one chunk (about 800 bytes).
            let a = &a[..super::floor_char(a, 400)];
            format!("{i}. {a} {}", &more[..super::floor_char(&more, 340)])
        })
        .collect()
}

/// README text in pieces of up to 600 bytes.
pub(crate) fn pieces() -> anyhow::Result<Vec<String>> {
    Ok(load_corpus(300)?
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
        .collect())
}

/// Uploads one-chunk documents in batches of 100, 4 batches at a time, each naming its tenant;
/// answers the documents' ids in order.
pub(crate) async fn upload(
    b: &Bench,
    key: &str,
    index: &str,
    texts: &[String],
    first: usize,
) -> anyhow::Result<Vec<String>> {
    let path = format!("/v1/indexes/{index}/documents/batch");
    let stored: Vec<anyhow::Result<Value>> = futures::stream::iter(texts.chunks(100).enumerate())
        .map(|(n, part)| {
            let documents: Vec<Value> = part
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"content": t, "metadata": {"tenant": tenant(first + n * 100 + i)}}))
                .collect();
            b.post(key, &path, json!({ "documents": documents }))
        })
        .buffered(4)
        .collect()
        .await;
    let mut ids = Vec::with_capacity(texts.len());
    for s in stored {
        for d in s?["data"].as_array().into_iter().flatten() {
            ids.push(id(d).to_owned());
        }
    }
    Ok(ids)
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
    weigh_words(&pieces);
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

/// Runs a maintenance statement (DDL, VACUUM): nothing in it for the query macros to check.
pub(crate) async fn ddl(db: &PgPool, statement: &str) -> anyhow::Result<()> {
    // runtime-checked: DDL and VACUUM, built from the benchmark's own constants
    sqlx::query(statement).execute(db).await?;
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

/// Each word's weight: its inverse document frequency in the README pieces (`ln(N / df)`), set
/// once by [`weigh_words`]; words outside them (the documents' numbers) weigh nothing.
static WEIGHTS: OnceLock<HashMap<String, f32>> = OnceLock::new();

pub(crate) fn weigh_words(pieces: &[String]) {
    let mut df: HashMap<String, f32> = HashMap::new();
    for p in pieces {
        let mut seen: Vec<String> = words(p).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *df.entry(w).or_default() += 1.0;
        }
    }
    let n = pieces.len() as f32;
    let _ = WEIGHTS.set(df.into_iter().map(|(w, d)| (w, (n / d).ln())).collect());
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1 && !w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
}

/// A unit vector for the text: its words' TF-IDF weights (`(1 + ln tf) * idf`) times a fixed
/// pseudo-random vector per word (FNV-1a of the word, then xorshift), summed; that is, a random
/// projection of the text's TF-IDF vector. Texts sharing rare words are near each other, as real
/// embeddings of related text are, so recall measures something (uniformly random vectors have no
/// near neighbours worth finding). Raw word counts instead put every text in one narrow cone of
/// stop words, as no embedding model does (benches/README.md has what that did to the sign-bit
/// graph). The fake provider and the benchmark's exact scan agree on them.
pub(crate) fn vector_for(text: &str) -> Vec<f32> {
    static VECTORS: OnceLock<Mutex<HashMap<String, Arc<Vec<f32>>>>> = OnceLock::new();
    let vectors = VECTORS.get_or_init(Default::default);
    let weights = WEIGHTS.get();
    let mut tf: HashMap<String, f32> = HashMap::new();
    for w in words(text) {
        *tf.entry(w).or_default() += 1.0;
    }
    let mut v = vec![0f32; DIMS];
    for (word, count) in tf {
        let idf = weights.map_or(1.0, |w| w.get(&word).copied().unwrap_or(0.0));
        if idf == 0.0 {
            continue;
        }
        let weight = (1.0 + count.ln()) * idf;
        let w = {
            let mut vectors = vectors.lock().unwrap_or_else(|e| e.into_inner());
            vectors
                .entry(word.clone())
                .or_insert_with(|| Arc::new(word_vector(&word)))
                .clone()
        };
        v.iter_mut()
            .zip(w.iter())
            .for_each(|(a, b)| *a += weight * b);
    }
    let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    if norm == 0.0 {
        v[0] = 1.0;
    } else {
        v.iter_mut().for_each(|a| *a /= norm);
    }
    v
}

fn word_vector(word: &str) -> Vec<f32> {
    let mut x = word.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    }) | 1;
    (0..DIMS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}
