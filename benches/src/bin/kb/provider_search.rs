//! Searches on a 1024-dimension index (provider A's vectors, see `provider_data::vector_for`) of
//! `total` one-chunk documents: during a second bulk load of the provider run's size into the
//! same index, with another project's single uploads timed to `ready` beside it (freshness), and
//! after it. Recall@10 is against an exact scan of the same vectors; during the load, of those
//! ready when the search began (a chunk readied while the search ran counts as found when it is
//! at least as close as the tenth of those).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde_json::{json, Value};
use shipmate_benches::{ms, percentile, Bench};
use sqlx::PgPool;

use super::provider_data::{ddl, query_text, texts, top, upload, vector_for, BITS_GRAPH, DIMS};
use super::{freshness, id, tenant, timed_searches, wait_all_ready, Stored, TENANTS};

/// One search during the load: when it began, what it asked and what came back.
struct Probe {
    began: DateTime<Utc>,
    tenant: Option<usize>,
    query: Vec<f32>,
    found: Vec<(String, f32)>,
    took: Duration,
}

/// How often a search is sent during the load: a steady stream beside it.
const PACE: Duration = Duration::from_millis(50);

#[allow(clippy::too_many_arguments)]
pub(crate) async fn run(
    b: &Bench,
    db: &PgPool,
    key: &str,
    index: &str,
    loaded: Vec<(String, String)>,
    pieces: &[String],
    total: usize,
    queries: usize,
) -> anyhow::Result<()> {
    let docs = loaded.len();
    let mut stored: Vec<Stored> = loaded
        .iter()
        .enumerate()
        .map(|(i, (doc, text))| stored_one(doc, i, text))
        .collect();
    let before = total.saturating_sub(2 * docs);
    stored.extend(preload(db, index, pieces, 2 * docs, before).await?);

    let (fresh_key, fresh_index) = {
        let (_, k) = b.project("bench-provider-fresh").await?;
        let i = b
            .post(
                &k,
                "/v1/indexes",
                json!({"name": "f", "embedding_model": "provider-a-4"}),
            )
            .await?;
        (k, id(&i).to_owned())
    };
    let second = texts(pieces, docs, docs);
    let done = AtomicBool::new(false);
    let path = format!("/v1/indexes/{index}/search");
    let started = Instant::now();
    let load = async {
        let ids = upload(b, key, index, &second, docs).await;
        let ready = wait_all_ready(db, index).await;
        done.store(true, Ordering::SeqCst);
        ready.and(ids)
    };
    let searching = async {
        let mut probes = Vec::new();
        let mut seq = 0;
        while !done.load(Ordering::SeqCst) {
            let next = Instant::now() + PACE;
            seq += 1;
            probes.push(probe(b, key, &path, pieces, seq).await?);
            tokio::time::sleep_until(next.into()).await;
        }
        anyhow::Ok(probes)
    };
    let fresh = async {
        let mut samples = Vec::new();
        let mut n = 0;
        while !done.load(Ordering::SeqCst) {
            n += 1;
            // Numbered as documents are, so the fake provider blends its vector too.
            let text = format!("{}. {}", 9_000_000 + n, pieces[n % pieces.len()]);
            samples.push(freshness(b, &fresh_key, &fresh_index, &text).await?);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        anyhow::Ok(samples)
    };
    let (ids, probes, fresh) = tokio::join!(load, searching, fresh);
    let (ids, probes, mut fresh) = (ids?, probes?, fresh?);
    println!(
        "second bulk load: {docs} chunks in {:.1} s = {:.0} chunks/s beside {} searches and {} single uploads of another project",
        started.elapsed().as_secs_f64(),
        docs as f64 / started.elapsed().as_secs_f64(),
        probes.len(),
        fresh.len()
    );
    println!(
        "freshness beside the bulk load: p50 {}, p95 {} ({} uploads)",
        ms(percentile(&mut fresh, 50.0)),
        ms(percentile(&mut fresh, 95.0)),
        fresh.len()
    );

    let ready_at = ready_times(db, &ids).await?;
    let first_second = stored.len();
    stored.extend(
        ids.iter()
            .zip(&second)
            .enumerate()
            .map(|(i, (doc, text))| stored_one(doc, docs + i, text)),
    );
    let readied = |s: &Stored| {
        ready_at
            .get(&s.key.0)
            .copied()
            .unwrap_or(DateTime::<Utc>::MIN_UTC)
    };
    for filtered in [false, true] {
        let mine: Vec<&Probe> = probes
            .iter()
            .filter(|p| p.tenant.is_some() == filtered)
            .collect();
        let mut took: Vec<Duration> = mine.iter().map(|p| p.took).collect();
        let recall = mine
            .iter()
            .map(|p| {
                let truth = top(&stored, &p.query, p.tenant, |s| readied(s) < p.began);
                let tenth = truth.last().map(|t| t.1).unwrap_or(f32::MIN);
                let hits = p
                    .found
                    .iter()
                    .filter(|(doc, score)| {
                        truth.iter().any(|t| &t.0 == doc)
                            || (ready_at.get(doc).is_some_and(|r| *r >= p.began)
                                && *score >= tenth - 1e-4)
                    })
                    .count();
                hits as f64 / truth.len().max(1) as f64
            })
            .sum::<f64>()
            / mine.len().max(1) as f64;
        println!(
            "search during the load ({} to {} chunks, {}): p50 {}, p99 {}, recall@10 {recall:.3} ({} searches)",
            first_second,
            stored.len(),
            if filtered { "filtered to 10 %" } else { "unfiltered" },
            ms(percentile(&mut took, 50.0)),
            ms(percentile(&mut took, 99.0)),
            mine.len()
        );
    }

    // After the load: every chunk ready.
    let asked: Vec<String> = (0..queries + 10)
        .map(|i| query_text(pieces, 1_000_000 + i))
        .collect();
    for filtered in [false, true] {
        let extra = |i: usize| {
            if filtered {
                json!({"filter": {"tenant": tenant(i)}})
            } else {
                json!({})
            }
        };
        let mut s = timed_searches(b, key, &path, &asked, extra).await?;
        let recall = s
            .answers
            .iter()
            .enumerate()
            .map(|(i, (q, got))| {
                let truth = top(
                    &stored,
                    &vector_for(q),
                    filtered.then_some(i % TENANTS),
                    |_| true,
                );
                let hits = got
                    .iter()
                    .filter(|(doc, _)| truth.iter().any(|t| &t.0 == doc))
                    .count();
                hits as f64 / truth.len().max(1) as f64
            })
            .sum::<f64>()
            / s.answers.len().max(1) as f64;
        println!(
            "search after the load ({} chunks, {}): p50 {}, p99 {}, recall@10 {recall:.3} ({} searches)",
            stored.len(),
            if filtered { "filtered to 10 %" } else { "unfiltered" },
            ms(percentile(&mut s.latency, 50.0)),
            ms(percentile(&mut s.latency, 99.0)),
            s.answers.len()
        );
    }
    super::provider_graphs::compare(db, index, &stored, &asked[10..]).await
}

fn stored_one(doc: &str, i: usize, text: &str) -> Stored {
    Stored {
        key: (doc.to_owned(), 0),
        tenant: i % TENANTS,
        vector: vector_for(text),
    }
}

/// One search during the load, every other one filtered to a tenant.
async fn probe(
    b: &Bench,
    key: &str,
    path: &str,
    pieces: &[String],
    seq: usize,
) -> anyhow::Result<Probe> {
    let text = query_text(pieces, seq);
    let tenant_of = seq.is_multiple_of(2).then_some((seq / 2) % TENANTS);
    let mut body = json!({"query": text, "top_k": 10});
    if let Some(t) = tenant_of {
        body["filter"] = json!({ "tenant": tenant(t) });
    }
    let began = Utc::now();
    let t = Instant::now();
    let res = b.post(key, path, body).await?;
    let took = t.elapsed();
    let found = res["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["document_id"].as_str().unwrap_or_default().to_owned(),
                r["score"].as_f64().unwrap_or(0.0) as f32,
            )
        })
        .collect();
    Ok(Probe {
        began,
        tenant: tenant_of,
        query: vector_for(&text),
        found,
        took,
    })
}

/// When each document became ready.
async fn ready_times(
    db: &PgPool,
    ids: &[String],
) -> anyhow::Result<HashMap<String, DateTime<Utc>>> {
    let rows = sqlx::query!(
        r#"select id::text as "id!", updated_at from kb_documents where id = any($1::text[]::uuid[]) and status = 'ready'"#,
        ids
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r.updated_at)).collect())
}

/// Fills the index with `n` ready one-chunk documents (numbered from `from`) straight into
/// Postgres, with the graph dropped during the load and built after it, as a first load would.
async fn preload(
    db: &PgPool,
    index: &str,
    pieces: &[String],
    from: usize,
    n: usize,
) -> anyhow::Result<Vec<Stored>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let project: uuid::Uuid = sqlx::query_scalar!(
        "select project_id from kb_indexes where id = $1::text::uuid",
        index
    )
    .fetch_one(db)
    .await?;
    let all = texts(pieces, from, n);
    ddl(db, "drop index kb_chunks_bits_1024").await?;
    let written: Vec<anyhow::Result<Vec<Stored>>> =
        futures::stream::iter(all.chunks(500).enumerate())
            .map(|(part, texts)| async move {
                let first = from + part * 500;
                let docs: Vec<uuid::Uuid> = texts.iter().map(|_| uuid::Uuid::now_v7()).collect();
                let metadata: Vec<Value> = (0..texts.len())
                    .map(|i| json!({ "tenant": tenant(first + i) }))
                    .collect();
                let vectors: Vec<pgvector::Vector> = texts
                    .iter()
                    .map(|t| pgvector::Vector::from(vector_for(t)))
                    .collect();
                // runtime-checked: vectors (pgvector's type has no offline description)
                sqlx::query(
                    "with d as (
                        insert into kb_documents (id, index_id, project_id, status, chunks_created, metadata)
                        select u.id, $2::uuid, $3, 'ready', 1, u.metadata
                        from unnest($1::uuid[], $4::jsonb[]) as u(id, metadata)
                     )
                     insert into kb_chunks (id, document_id, index_id, ordinal, content, dims, embedding, ready, metadata)
                     select gen_random_uuid(), u.id, $2::uuid, 0, u.content, 1024, u.embedding, true, u.metadata
                     from unnest($1::uuid[], $4::jsonb[], $5::text[], $6::vector[]) as u(id, metadata, content, embedding)",
                )
                .bind(&docs)
                .bind(index)
                .bind(project)
                .bind(&metadata)
                .bind(texts)
                .bind(&vectors)
                .execute(db)
                .await?;
                Ok(docs
                    .iter()
                    .zip(texts)
                    .enumerate()
                    .map(|(i, (d, t))| stored_one(&d.to_string(), first + i, t))
                    .collect())
            })
            .buffer_unordered(4)
            .collect()
            .await;
    let mut stored = Vec::with_capacity(n);
    for w in written {
        stored.extend(w?);
    }
    let t = Instant::now();
    ddl(db, BITS_GRAPH).await?;
    println!(
        "preloaded {n} chunks of {DIMS} dimensions straight into Postgres; their sign-bit graph built after in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    ddl(db, "vacuum analyze kb_chunks").await?;
    Ok(stored)
}
