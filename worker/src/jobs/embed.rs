//! Embedding: claim pending documents fairly, embed their chunks in length-sorted batches, write
//! the vectors, and mark each document `ready` (or retry with backoff, then `failed`).

use std::collections::HashMap;
use std::sync::Arc;

use shipmate_shared::kb::documents::{self, PendingChunk};
use shipmate_shared::kb::embed::InputKind;
use shipmate_shared::kb::models::Registry;
use sqlx::PgPool;
use uuid::Uuid;

use crate::settings::WorkerSettings;

pub struct Context {
    pub db: PgPool,
    pub models: Arc<Registry>,
    pub settings: WorkerSettings,
}

/// Processes claimed documents until none is pending.
pub async fn drain(ctx: &Context) {
    loop {
        let lease = ctx.settings.embed_lease_secs as i64;
        let docs = match documents::claim(&ctx.db, ctx.settings.embed_claim, lease).await {
            Ok(d) if d.is_empty() => return,
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "claiming documents failed");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                return;
            }
        };
        let span = tracing::info_span!("embed", documents = docs.len());
        let _enter = span.enter();
        if let Err(e) = process(ctx, &docs).await {
            tracing::warn!(error = %format!("{e:#}"), "embedding failed; will retry");
            let _ = documents::record_failure(
                &ctx.db,
                &docs,
                &format!("{e:#}"),
                ctx.settings.embed_max_attempts,
            )
            .await;
        }
    }
}

async fn process(ctx: &Context, docs: &[Uuid]) -> anyhow::Result<()> {
    let chunks = documents::pending_chunks(&ctx.db, docs).await?;
    let mut by_model: HashMap<String, Vec<PendingChunk>> = HashMap::new();
    for c in chunks {
        by_model
            .entry(c.embedding_model.clone())
            .or_default()
            .push(c);
    }
    for (model, mut chunks) in by_model {
        let embedder = ctx
            .models
            .embedder(&model)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        // Sorting by length keeps each batch's padding small (every input is padded to the longest).
        chunks.sort_by_key(|c| c.content.len());
        for batch in batches(&chunks, ctx.settings.embed_batch_tokens) {
            let texts: Vec<String> = batch.iter().map(|c| c.content.clone()).collect();
            let ids: Vec<Uuid> = batch.iter().map(|c| c.id).collect();
            let started = std::time::Instant::now();
            let vectors = embedder.embed(texts, InputKind::Document).await?;
            tracing::debug!(model = %model, size = ids.len(), ms = started.elapsed().as_millis() as u64, "embedded batch");
            documents::store_embeddings(&ctx.db, &ids, vectors).await?;
        }
    }
    let ready = documents::finish(&ctx.db, docs).await?;
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
