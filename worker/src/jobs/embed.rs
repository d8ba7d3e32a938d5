//! Embedding: claim pending documents fairly, embed their chunks in length-sorted batches, write
//! the vectors, and mark each document `ready` (or retry with backoff, then `failed`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::FuturesUnordered;
use futures::StreamExt;

use shipmate_kb::documents::{self, Lane, PendingChunk, Vectors};
use shipmate_kb::embed::{Embedder, InputKind};
use shipmate_kb::models::Registry;
use sqlx::PgPool;
use tokio::sync::watch;
use tracing::Instrument;
use uuid::Uuid;

use crate::settings::WorkerSettings;
use shipmate_core::metrics::{EMBEDDED_CHUNKS, EMBED_BATCH};
use shipmate_outbound::enqueue;

pub struct Context {
    pub db: PgPool,
    /// Where `document.ready` and `document.failed` deliveries are queued.
    pub deliveries: shipmate_outbound::DeliveryQueue,
    pub models: Arc<Registry>,
    pub settings: WorkerSettings,
}

/// Processes claimed documents until none is pending or the worker is told to stop (a claim in
/// hand is finished first; the rest stay pending for the next worker). Documents of local models
/// and of remote providers are claimed in two lanes side by side: a slow provider never holds up
/// the local model, and the local model's small claims (freshness) never limit a provider's calls.
pub async fn drain(ctx: &Context, stop: &watch::Receiver<bool>) {
    let remote_models = ctx.models.remote_models();
    let lane = |remote| Lane {
        remote,
        remote_models: remote_models.clone(),
    };
    // Two local claims at once, each of half the chunk budget: while one ends (its last batch's
    // parts finish unevenly, the next claim is fetched) the other keeps every session busy.
    // Together they hold no more than one claim did, so a document uploaded meanwhile waits no
    // longer for its turn.
    tokio::join!(
        drain_lane(ctx, stop, lane(false), 2),
        drain_lane(ctx, stop, lane(false), 2),
        drain_lane(ctx, stop, lane(true), 1)
    );
}

/// Claims and processes documents of one lane until none is left; `share` is how many such loops
/// split the lane's chunk budget.
async fn drain_lane(ctx: &Context, stop: &watch::Receiver<bool>, lane: Lane, share: i64) {
    let s = &ctx.settings;
    // A provider lane claims enough for every call it may keep in flight.
    let scale = if lane.remote {
        s.common.kb.embed_provider_concurrency.max(1) as i64
    } else {
        1
    };
    while !*stop.borrow() {
        let lease = s.embed_lease_secs as i64;
        // Documents of one chunk each must still fill every call of a provider lane.
        let most_docs = if lane.remote {
            s.embed_claim.max(s.embed_claim_chunks)
        } else {
            s.embed_claim
        };
        let docs = match documents::claim(
            &ctx.db,
            &lane,
            most_docs * scale,
            (s.embed_claim_chunks * scale / share).max(1),
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
        let span = tracing::info_span!(
            "embed",
            documents = docs.len(),
            remote = lane.remote,
            projects = tracing::field::Empty,
            project_id = tracing::field::Empty
        );
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
    let all = |e: shipmate_core::AppError| failed(docs)(e.into());
    let chunks = documents::pending_chunks(&ctx.db, docs)
        .await
        .map_err(all)?;
    super::record_projects(
        &tracing::Span::current(),
        chunks.iter().map(|c| c.project_id),
    );
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
    let lease = ctx.settings.embed_lease_secs;
    let mut renewed = Instant::now();
    // Vectors wait here until their document's last chunk is embedded: then they are written
    // with the document's swap to `ready`, each row updated once.
    let mut held: HashMap<Uuid, Vectors> = HashMap::new();
    for (model, mut chunks) in by_model {
        let embedder = ctx
            .models
            .embedder(&model)
            .map_err(|e| failed(&documents_of(&chunks))(anyhow::anyhow!("{e}")))?;
        // Sorting by length keeps each batch's padding small (every input is padded to the longest).
        chunks.sort_by_key(|c| c.content.len());
        let (parts, in_flight, writes) = match embedder.batch_size() {
            // A provider's calls mostly wait on the network: several in flight (the provider's
            // limit, which backs off on 429, decides how many are sent at once), their vectors
            // written a few at a time.
            Some(size) => (
                chunks.chunks(size).collect::<Vec<_>>(),
                ctx.settings.common.kb.embed_provider_concurrency.max(1),
                ctx.settings.embed_writes.max(1),
            ),
            // A local model has the cores: one batch inferred while the previous one is written,
            // so the model never waits on Postgres.
            None => (batches(&chunks, ctx.settings.embed_batch_tokens), 2, 2),
        };
        // Built before streaming: a closure in the stream would make the future not `Send`.
        let calls: Vec<_> = parts
            .into_iter()
            .map(|batch| embed(embedder.clone(), model.clone(), batch))
            .collect();
        let mut embedded = futures::stream::iter(calls).buffer_unordered(in_flight);
        // Writes run beside the next calls: Postgres inserting vectors into the graph is the
        // ceiling, and one connection would use one core of it.
        let mut writing = FuturesUnordered::new();
        loop {
            tokio::select! {
                Some(batch) = embedded.next(), if writing.len() < writes => {
                    let (batch, vectors) = batch?;
                    let mut done = Vec::new();
                    for (c, v) in batch.iter().zip(vectors) {
                        let mine = held.entry(c.document_id).or_default();
                        mine.ids.push(c.id);
                        mine.vectors.push(v);
                        if let Some(n) = left.get_mut(&c.document_id) {
                            *n -= 1;
                            if *n == 0 {
                                done.push(c.document_id);
                            }
                        }
                    }
                    if !done.is_empty() {
                        let mut vectors = Vectors::default();
                        for d in &done {
                            let mine = held.remove(d).unwrap_or_default();
                            vectors.ids.extend(mine.ids);
                            vectors.vectors.extend(mine.vectors);
                        }
                        writing.push(write(ctx, done, vectors));
                    }
                }
                Some(written) = writing.next() => written?,
                else => break,
            }
            // The lease is renewed while the claim is worked on (a huge document, a slow
            // provider), so it is not taken over meanwhile; a third of the lease apart.
            if renewed.elapsed() > Duration::from_secs(lease) / 3 {
                documents::extend_lease(&ctx.db, docs, lease as i64)
                    .await
                    .map_err(all)?;
                renewed = Instant::now();
            }
        }
    }
    // Documents without pending chunks (reused vectors only, or a retry after a crash between
    // their write and the end of the claim) finish here.
    let (_, deliveries) = documents::finish(&ctx.db, docs, Vectors::default())
        .await
        .map_err(all)?;
    enqueue(&ctx.deliveries, &deliveries).await;
    Ok(())
}

/// Embeds one batch: its chunks and their vectors, in order.
async fn embed(
    embedder: Arc<dyn Embedder>,
    model: String,
    batch: &[PendingChunk],
) -> Result<(&[PendingChunk], Vec<Vec<f32>>), Failed> {
    let texts: Vec<String> = batch.iter().map(|c| c.content.clone()).collect();
    let started = Instant::now();
    let vectors = embedder
        .embed(texts, InputKind::Document)
        .await
        .map_err(failed(&documents_of(batch)))?;
    tracing::debug!(model = %model, size = batch.len(), ms = started.elapsed().as_millis() as u64, "embedded batch");
    metrics::histogram!(EMBED_BATCH, "model" => model).record(started.elapsed().as_secs_f64());
    metrics::counter!(EMBEDDED_CHUNKS).increment(batch.len() as u64);
    Ok((batch, vectors))
}

/// Writes the vectors of documents whose chunks are all embedded and readies them.
async fn write(ctx: &Context, done: Vec<Uuid>, vectors: Vectors) -> Result<(), Failed> {
    let (ready, deliveries) = documents::finish(&ctx.db, &done, vectors)
        .await
        .map_err(|e| failed(&done)(e.into()))?;
    enqueue(&ctx.deliveries, &deliveries).await;
    tracing::info!(ready, "documents embedded");
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
            project_id: Uuid::nil(),
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
