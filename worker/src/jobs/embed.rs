//! Embedding: claim pending documents fairly, embed their chunks in length-sorted batches, write
//! the vectors, and mark each document `ready` (or retry with backoff, then `failed`).

use std::collections::HashMap;
use std::sync::Arc;

use shipmate_shared::kb::documents::{self, PendingChunk};
use shipmate_shared::kb::embed::InputKind;
use shipmate_shared::kb::models::Registry;
use sqlx::PgPool;
use tokio::sync::watch;
use tracing::Instrument;
use uuid::Uuid;

use crate::settings::WorkerSettings;
use shipmate_shared::metrics::{EMBEDDED_CHUNKS, EMBED_BATCH};
use shipmate_shared::outbound::enqueue;

pub struct Context {
    pub db: PgPool,
    /// Where `document.ready` and `document.failed` deliveries are queued.
    pub deliveries: shipmate_shared::outbound::DeliveryQueue,
    pub models: Arc<Registry>,
    pub settings: WorkerSettings,
}

/// Processes claimed documents until none is pending or the worker is told to stop (a claim in
/// hand is finished first; the rest stay pending for the next worker).
pub async fn drain(ctx: &Context, stop: &watch::Receiver<bool>) {
    while !*stop.borrow() {
        let lease = ctx.settings.embed_lease_secs as i64;
        let docs = match documents::claim(
            &ctx.db,
            ctx.settings.embed_claim,
            ctx.settings.embed_claim_chunks,
            lease,
        )
        .await
        {
            Ok(d) if d.is_empty() => return,
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "claiming documents failed");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                return;
            }
        };
        // Instrumented rather than entered: an entered span held across awaits would also tag
        // whatever else the thread runs meanwhile (the analytics loop's logs).
        let span = tracing::info_span!("embed", documents = docs.len());
        async {
            if let Err(failed) = process(ctx, &docs).await {
                let error = format!("{:#}", failed.error);
                tracing::warn!(error = %error, documents = failed.documents.len(), "embedding failed; will retry");
                // Only the documents involved count an attempt; the rest of the claim is let go
                // at once, so one bad document cannot fail its neighbours.
                let others: Vec<Uuid> = docs
                    .iter()
                    .filter(|d| !failed.documents.contains(d))
                    .copied()
                    .collect();
                if let Ok(deliveries) = documents::record_failure(
                    &ctx.db,
                    &failed.documents,
                    &error,
                    ctx.settings.embed_max_attempts,
                )
                .await
                {
                    enqueue(&ctx.deliveries, &deliveries).await;
                }
                let _ = documents::release(&ctx.db, &others).await;
            }
        }
        .instrument(span)
        .await;
    }
}

/// An error, and the documents of the claim it concerns.
struct Failed {
    error: anyhow::Error,
    documents: Vec<Uuid>,
}

fn failed(documents: &[Uuid]) -> impl FnOnce(anyhow::Error) -> Failed + '_ {
    move |error| Failed {
        error,
        documents: documents.to_vec(),
    }
}

fn documents_of(chunks: &[PendingChunk]) -> Vec<Uuid> {
    let mut docs: Vec<Uuid> = chunks.iter().map(|c| c.document_id).collect();
    docs.sort_unstable();
    docs.dedup();
    docs
}

async fn process(ctx: &Context, docs: &[Uuid]) -> Result<(), Failed> {
    let all = |e: shipmate_shared::AppError| failed(docs)(e.into());
    let chunks = documents::pending_chunks(&ctx.db, docs)
        .await
        .map_err(all)?;
    // Chunks left per document: a document is marked ready as soon as its last batch is written,
    // not when the whole claim is, so large claims (full batches) still give fresh documents.
    let mut left: HashMap<Uuid, usize> = HashMap::new();
    let mut by_model: HashMap<String, Vec<PendingChunk>> = HashMap::new();
    for c in chunks {
        *left.entry(c.document_id).or_default() += 1;
        by_model
            .entry(c.embedding_model.clone())
            .or_default()
            .push(c);
    }
    let mut written: Option<Written> = None;
    for (model, mut chunks) in by_model {
        let embedder = ctx
            .models
            .embedder(&model)
            .map_err(|e| failed(&documents_of(&chunks))(anyhow::anyhow!("{e}")))?;
        // Sorting by length keeps each batch's padding small (every input is padded to the longest).
        chunks.sort_by_key(|c| c.content.len());
        for batch in batches(&chunks, ctx.settings.embed_batch_tokens) {
            let texts: Vec<String> = batch.iter().map(|c| c.content.clone()).collect();
            let started = std::time::Instant::now();
            // The previous batch is written while this one is inferred: the model never waits on Postgres.
            let (vectors, stored) = tokio::join!(
                embedder.embed(texts, InputKind::Document),
                write(ctx, docs, written.take())
            );
            stored?;
            let vectors = vectors.map_err(failed(&documents_of(batch)))?;
            tracing::debug!(model = %model, size = batch.len(), ms = started.elapsed().as_millis() as u64, "embedded batch");
            metrics::histogram!(EMBED_BATCH, "model" => model.clone())
                .record(started.elapsed().as_secs_f64());
            metrics::counter!(EMBEDDED_CHUNKS).increment(batch.len() as u64);
            let mut done = Vec::new();
            for c in batch {
                if let Some(n) = left.get_mut(&c.document_id) {
                    *n -= 1;
                    if *n == 0 {
                        done.push(c.document_id);
                    }
                }
            }
            written = Some(Written {
                ids: batch.iter().map(|c| c.id).collect(),
                documents: documents_of(batch),
                vectors,
                done,
            });
        }
    }
    write(ctx, docs, written).await?;
    // Documents without pending chunks (a retried claim whose vectors were all written) finish here.
    let (_, deliveries) = documents::finish(&ctx.db, docs).await.map_err(all)?;
    enqueue(&ctx.deliveries, &deliveries).await;
    Ok(())
}

/// One embedded batch on its way to Postgres, with its documents and those it completes.
struct Written {
    ids: Vec<Uuid>,
    documents: Vec<Uuid>,
    vectors: Vec<Vec<f32>>,
    done: Vec<Uuid>,
}

/// Stores a batch's vectors and readies the documents it completes; the claim's lease is renewed
/// with each batch, so a claim that takes long (a huge document, a slow provider) is not taken
/// over while it is still being worked on.
async fn write(ctx: &Context, claim: &[Uuid], batch: Option<Written>) -> Result<(), Failed> {
    let Some(Written {
        ids,
        documents: involved,
        vectors,
        done,
    }) = batch
    else {
        return Ok(());
    };
    let fail = |e: shipmate_shared::AppError| failed(&involved)(e.into());
    documents::store_embeddings(&ctx.db, &ids, vectors)
        .await
        .map_err(fail)?;
    if !done.is_empty() {
        let (ready, deliveries) = documents::finish(&ctx.db, &done).await.map_err(fail)?;
        enqueue(&ctx.deliveries, &deliveries).await;
        tracing::info!(ready, "documents embedded");
    }
    documents::extend_lease(&ctx.db, claim, ctx.settings.embed_lease_secs as i64)
        .await
        .map_err(fail)?;
    Ok(())
}

/// Groups length-sorted chunks so each batch holds about `budget` tokens (padded size counts:
/// a batch costs its longest member times its size).
pub fn batches(chunks: &[PendingChunk], budget: usize) -> Vec<&[PendingChunk]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..chunks.len() {
        let longest = approx_tokens(&chunks[i].content);
        if i > start && longest * (i - start + 1) > budget {
            out.push(&chunks[start..i]);
            start = i;
        }
    }
    if start < chunks.len() {
        out.push(&chunks[start..]);
    }
    out
}

fn approx_tokens(text: &str) -> usize {
    text.len() / 4 + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(len: usize) -> PendingChunk {
        PendingChunk {
            id: Uuid::nil(),
            document_id: Uuid::nil(),
            content: "x".repeat(len),
            embedding_model: String::new(),
        }
    }

    #[test]
    fn batches_respect_the_padded_token_budget() {
        let chunks: Vec<PendingChunk> =
            [40, 40, 40, 400, 800, 800].into_iter().map(chunk).collect();
        let sizes: Vec<usize> = batches(&chunks, 500).iter().map(|b| b.len()).collect();
        // ~12-token chunks pack together; the 202-token ones would cost 1010 padded tokens with them.
        assert_eq!(sizes, [4, 2]);
        assert_eq!(batches(&[], 500).len(), 0);
    }
}
