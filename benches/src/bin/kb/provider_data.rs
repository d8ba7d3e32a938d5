//! What the provider runs share: the documents' texts and their vectors (as the fake provider
//! answers them), the upload of a load, the exact top 10, and maintenance statements.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use futures::StreamExt;
use serde_json::{json, Value};
use shipmate_benches::Bench;
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
