//! The knowledge-base benchmark's helpers: the corpus, timed searches and their exact answers,
//! re-upserts, bulk uploads and the freshness probe.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::StreamExt;
use rand::Rng;
use serde_json::{json, Value};
use shipmate_benches::{ms, percentile, Bench};
use shipmate_kb::local::{scan, LocalModel, PoolOptions, DEFAULT_SESSIONS};
use sqlx::PgPool;

use super::MODEL;

/// How often the other project searches during the fairness run: a steady stream, not a burst
/// that would itself take a core from the bulk upload's embedding.
pub(crate) const SEARCH_PACE: Duration = Duration::from_millis(100);

/// The bulk upload: `n` documents of up to 2,000 bytes, cycling through the corpus.
pub(crate) fn bulk_corpus(corpus: &[String], n: usize) -> Vec<String> {
    corpus
        .iter()
        .cycle()
        .take(n)
        .map(|d| d[..floor_char(d, 2_000)].to_owned())
        .collect()
}

/// Tenants in the search index: a filter on one keeps a tenth of the chunks.
pub(crate) const TENANTS: usize = 10;

pub(crate) fn tenant(i: usize) -> String {
    format!("t{}", i % TENANTS)
}

/// A chunk by its place: (document id, chunk index).
type ChunkKey = (String, i64);

/// A stored chunk of the search index: its place, its document's tenant and its vector.
pub(crate) struct Stored {
    pub(crate) key: ChunkKey,
    pub(crate) tenant: usize,
    pub(crate) vector: Vec<f32>,
}

/// Searches measured one after another: the latencies and, per query, what came back.
pub(crate) struct Searches {
    pub(crate) latency: Vec<Duration>,
    pub(crate) answers: Vec<(String, Vec<ChunkKey>)>,
}

/// One search per query, top_k 10, after 10 warm-ups; `extra(i)` adds fields (filter, mode).
pub(crate) async fn timed_searches(
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
pub(crate) fn exact_top(
    stored: &[Stored],
    query: &[f32],
    k: usize,
    tenant: Option<usize>,
) -> Vec<ChunkKey> {
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
pub(crate) async fn reupsert(
    b: &Bench,
    db: &PgPool,
    corpus: &[String],
    n: usize,
) -> anyhow::Result<()> {
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

/// A new project with one index of the bundled model: (its key, the index).
pub(crate) async fn indexed_project(
    b: &Bench,
    slug: &str,
    name: &str,
) -> anyhow::Result<(String, Value)> {
    let (_, key) = b.project(slug).await?;
    let index = b
        .post(
            &key,
            "/v1/indexes",
            json!({"name": name, "embedding_model": MODEL}),
        )
        .await?;
    Ok((key, index))
}

pub(crate) fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap_or_default()
}

pub(crate) fn floor_char(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// README files of the crates in cargo's registry: real documentation prose and Markdown.
pub(crate) fn load_corpus(n: usize) -> anyhow::Result<Vec<String>> {
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

pub(crate) fn local_model() -> anyhow::Result<LocalModel> {
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

pub(crate) async fn wait_all_ready(db: &PgPool, index: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(3_600);
    loop {
        let left: i64 = sqlx::query_scalar!(
            r#"select count(*) as "n!" from kb_documents where index_id = $1::text::uuid and status <> 'ready'"#,
            index
        )
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
pub(crate) fn spawn_bulk(
    b: &Bench,
    key: &str,
    index: &str,
    docs: Vec<String>,
) -> tokio::task::JoinHandle<()> {
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

/// Searches of project S (`search`: key and index), one every `SEARCH_PACE`, while project A
/// (`bulk`) uploads `docs` and a worker embeds them, until every one is ready. Queries carry a
/// sequence number, so none is answered from the query cache.
pub(crate) async fn searches_beside_bulk(
    b: &Bench,
    db: &PgPool,
    (key_s, index_s): (&str, &str),
    (key_a, index_a): (&str, &str),
    docs: Vec<String>,
    queries: &[String],
) -> anyhow::Result<Vec<Duration>> {
    let bulk = spawn_bulk(b, key_a, index_a, docs);
    let ingested = tokio::spawn({
        let (db, index) = (db.clone(), index_a.to_owned());
        async move {
            bulk.await?;
            wait_all_ready(&db, &index).await
        }
    });
    let search = format!("/v1/indexes/{index_s}/search");
    let mut beside = Vec::new();
    for (i, q) in queries.iter().cycle().enumerate() {
        if ingested.is_finished() {
            break;
        }
        let next = Instant::now() + SEARCH_PACE;
        let t = Instant::now();
        b.post(
            key_s,
            &search,
            json!({"query": format!("{q} {i}"), "top_k": 10}),
        )
        .await?;
        beside.push(t.elapsed());
        tokio::time::sleep_until(next.into()).await;
    }
    ingested.await??;
    Ok(beside)
}

/// Upload to ready for one document.
pub(crate) async fn freshness(
    b: &Bench,
    key: &str,
    index: &str,
    content: &str,
) -> anyhow::Result<Duration> {
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
pub(crate) async fn fill_search_index(
    db: &PgPool,
    index: &str,
    source: &str,
    n: usize,
) -> anyhow::Result<(Duration, Vec<Stored>)> {
    let bases = sqlx::query!(
        r#"select content, embedding::text as "embedding!" from kb_chunks where index_id = $1::text::uuid and embedding is not null"#,
        source
    )
    .fetch_all(db)
    .await?;
    let bases: Vec<(String, Vec<f32>)> = bases
        .into_iter()
        .map(|r| (r.content, r.embedding))
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
    let project: uuid::Uuid = sqlx::query_scalar!(
        "select project_id from kb_indexes where id = $1::text::uuid",
        index
    )
    .fetch_one(db)
    .await?;
    // runtime-checked: DDL, dropped and made again below around the load
    sqlx::query("drop index if exists kb_chunks_hnsw_384")
        .execute(db)
        .await?;
    let mut rng = rand::thread_rng();
    let mut stored = Vec::with_capacity(n);
    for (d, start) in (0..n).step_by(100).enumerate() {
        let doc = uuid::Uuid::now_v7();
        let count = 100.min(n - start);
        let metadata = json!({ "tenant": tenant(d) });
        sqlx::query!(
            "insert into kb_documents (id, index_id, project_id, status, chunks_created, metadata) values ($1, $2::text::uuid, $3, 'ready', $4, $5)",
            doc,
            index,
            project,
            count as i32,
            &metadata
        )
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
        // runtime-checked: vectors (pgvector's type has no offline description)
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
    // runtime-checked: a setting taken for its effect on the index build below
    sqlx::query("set maintenance_work_mem = '2GB'")
        .execute(&mut *conn)
        .await?;
    // runtime-checked: DDL, the graph built once after the load
    sqlx::query("create index kb_chunks_hnsw_384 on kb_chunks using hnsw ((embedding::vector(384)) vector_cosine_ops) where dims = 384")
        .execute(&mut *conn)
        .await?;
    // runtime-checked: VACUUM is maintenance, with no rows or parameters to check
    sqlx::query("vacuum analyze kb_chunks")
        .execute(&mut *conn)
        .await?;
    Ok((t.elapsed(), stored))
}

/// What logging a search for analytics adds to its answer: the same index searched through this
/// api (which logs every search) and a second api on the same database started with
/// `--search-log false`, taking turns (each first every other time), each query text new to both
/// (no cached query vector).
pub(crate) async fn search_log_overhead(
    b: &Bench,
    key: &str,
    path: &str,
    queries: &[String],
) -> anyhow::Result<()> {
    let unlogged = shipmate_benches::start_on(b.db_url.clone(), &["--search-log", "false"]).await?;
    let (mut logged_took, mut unlogged_took) = (Vec::new(), Vec::new());
    for (i, q) in queries.iter().enumerate() {
        // Each goes first every other time: the second of a pair runs beside the first's
        // background work (the WAL writer, say).
        let mut turns = [(b, &mut logged_took), (&unlogged, &mut unlogged_took)];
        if i % 2 == 1 {
            turns.reverse();
        }
        for (api, took) in turns {
            let body = json!({"query": format!("{q} ({i})"), "top_k": 10});
            let t = Instant::now();
            api.post(key, path, body).await?;
            if i >= 10 {
                took.push(t.elapsed());
            }
        }
    }
    let (with, without) = (
        percentile(&mut logged_took, 50.0),
        percentile(&mut unlogged_took, 50.0),
    );
    println!(
        "search logging ({} searches each, taking turns): p50 {} logged, {} not logged: {:+.2} ms",
        logged_took.len(),
        ms(with),
        ms(without),
        (with.as_secs_f64() - without.as_secs_f64()) * 1000.0
    );
    Ok(())
}
