//! What the provider runs share: the documents' texts and their vectors (as the fake provider
//! answers them), the upload of a load, the exact top 10, and maintenance statements.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use futures::StreamExt;
use serde_json::{json, Value};
use shipmate_benches::Bench;
use shipmate_kb::embed::{Embedder, InputKind};
use shipmate_kb::local::LocalModel;
use sqlx::PgPool;

use super::{id, load_corpus, tenant, Stored};

pub(crate) const DIMS: usize = 1024;

/// The sign-bit graph of 1024-dimension vectors, as the migration `kb_quantized_graph` makes it.
pub(crate) const BITS_GRAPH: &str = "create index kb_chunks_bits_1024 on kb_chunks using hnsw ((binary_quantize(embedding)::bit(1024)) bit_hamming_ops) where dims = 1024";

/// Documents' texts for the provider runs: one chunk each, `n` of them from `from` on, each a
/// README piece's first 400 bytes followed by the first 5 to 40 words of another: every text (and vector) is
/// distinct, and the documents sharing a piece sit at graded distances from a query about it, as
/// the local-model search index blends two real embeddings at random weights. (Halves of two
/// pieces put ~40 documents at a near tie for any query, which no graph ranks, full or not.)
pub(crate) fn texts(pieces: &[String], from: usize, n: usize) -> Vec<String> {
    (from..from + n)
        .map(|i| {
            // Another piece for each time round the pieces, and another number of its words.
            let (a, b) = parts(i, pieces.len());
            let (a, b) = (&pieces[a], &pieces[b]);
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

/// Runs a maintenance statement (DDL, VACUUM): nothing in it for the query macros to check.
pub(crate) async fn ddl(db: &PgPool, statement: &str) -> anyhow::Result<()> {
    // runtime-checked: DDL and VACUUM, built from the benchmark's own constants
    sqlx::query(statement).execute(db).await?;
    Ok(())
}

/// The 10 closest stored chunks (document id, cosine) among those `eligible`, of `tenant` if given.
pub(crate) fn top(
    stored: &[Stored],
    query: &[f32],
    tenant: Option<usize>,
    eligible: impl Fn(&Stored) -> bool,
) -> Vec<(String, f32)> {
    let mut scored: Vec<(f32, &Stored)> = stored
        .iter()
        .filter(|s| tenant.is_none_or(|t| s.tenant == t) && eligible(s))
        .map(|s| (s.vector.iter().zip(query).map(|(a, b)| a * b).sum(), s))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
        .into_iter()
        .take(10)
        .map(|(score, s)| (s.key.0.clone(), score))
        .collect()
}

/// README piece `i` of `n` starts document `i`'s text, and piece `b` lends it words and (in its
/// vector) a share of its meaning.
fn parts(i: usize, n: usize) -> (usize, usize) {
    (i % n, (i * 7919 + (i / n) * 104_729 + 13) % n)
}

/// A query of up to 120 bytes of one README piece, numbered (no two alike, so none is answered
/// from the query cache).
pub(crate) fn query_text(pieces: &[String], seq: usize) -> String {
    let p = &pieces[(seq * 104_729) % pieces.len()];
    let mut start = (seq * 31) % p.len().max(1);
    while !p.is_char_boundary(start) {
        start -= 1;
    }
    let rest = &p[start..];
    format!("{} #{seq}", &rest[..super::floor_char(rest, 120)])
}

/// Real embeddings for the fake provider: all-minilm-l6-v2's of the README pieces and of the
/// queries, lifted to 1,024 dimensions by a fixed random projection (which keeps cosines nearly as
/// they were, so the neighbourhoods are a real model's).
struct Real {
    pieces: Vec<Vec<f32>>,
    queries: Mutex<HashMap<String, Vec<f32>>>,
    model: LocalModel,
    projection: Vec<Vec<f32>>,
}

static REAL: OnceLock<Real> = OnceLock::new();

/// Embeds the pieces and the queries the run will send (blocking: a minute on two cores).
pub(crate) fn embed_real(pieces: &[String], queries: Vec<String>) -> anyhow::Result<()> {
    let model = super::local_model()?;
    let projection = projection(model.dimensions());
    let embed = |texts: &[String], kind| -> anyhow::Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(32) {
            out.extend(
                model
                    .embed_blocking(batch, kind)?
                    .iter()
                    .map(|e| lift(&projection, e)),
            );
        }
        Ok(out)
    };
    let lifted = embed(pieces, InputKind::Document)?;
    let asked = embed(&queries, InputKind::Query)?;
    let _ = REAL.set(Real {
        pieces: lifted,
        queries: Mutex::new(queries.into_iter().zip(asked).collect()),
        model,
        projection,
    });
    Ok(())
}

/// `DIMS` rows of pseudo-random weights in [-1, 1] (xorshift, fixed seed), one per output dimension.
fn projection(from: usize) -> Vec<Vec<f32>> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..DIMS)
        .map(|_| {
            (0..from)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
                })
                .collect()
        })
        .collect()
}

fn lift(projection: &[Vec<f32>], e: &[f32]) -> Vec<f32> {
    unit(
        projection
            .iter()
            .map(|row| row.iter().zip(e).map(|(a, b)| a * b).sum())
            .collect(),
    )
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v
        .iter()
        .map(|a| a * a)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter_mut().for_each(|a| *a /= norm);
    v
}

/// The fake provider's vector for a text, which the benchmark's exact scan agrees on. A document
/// (`<i>. ...`) blends its two pieces' embeddings, the second weighted 0.2-0.6, as the local
/// model's search set blends two real embeddings: every vector distinct, and the documents near a
/// query at graded distances. (TF-IDF vectors of these texts put ~40 documents at a near tie for
/// any query: benches/README.md, 2026-11-27.) A query is embedded as it is.
pub(crate) fn vector_for(text: &str) -> Vec<f32> {
    let Some(real) = REAL.get() else {
        panic!("embed_real runs before any vector is asked for");
    };
    if let Some(v) = real
        .queries
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(text)
    {
        return v.clone();
    }
    if let Some(i) = text
        .split_once(". ")
        .and_then(|(n, _)| n.parse::<usize>().ok())
    {
        let (a, b) = parts(i, real.pieces.len());
        let w = 0.2 + 0.4 * ((i.wrapping_mul(2_654_435_761) % 1000) as f32 / 1000.0);
        return unit(
            real.pieces[a]
                .iter()
                .zip(&real.pieces[b])
                .map(|(x, y)| x + w * y)
                .collect(),
        );
    }
    // A query not embedded ahead (a search beyond the run's planned ones).
    match real
        .model
        .embed_blocking(&[text.to_owned()], InputKind::Query)
    {
        Ok(e) => lift(&real.projection, &e[0]),
        Err(e) => panic!("embedding a query: {e:#}"),
    }
}
