//! Embeds new feedback entries for the "is this already asked?" hint, with the bundled local model.
//! Entries are claimed inside a transaction: a worker that dies mid-batch leaves them unembedded
//! for the next round, and two workers never embed the same entry.

use shipmate_feedback::feedback::similar;
use shipmate_kb::embed::InputKind;

use super::embed::Context;

/// Entries embedded per round: one batch through the model.
const BATCH: i64 = 64;

/// Embeds every entry still without a vector; a no-op where the local model is not installed.
pub async fn drain(ctx: &Context) {
    if !ctx.models.info(similar::MODEL).is_some_and(|m| m.available) {
        return;
    }
    loop {
        match round(ctx).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "embedding feedback entries failed; will retry");
                return;
            }
        }
    }
}

async fn round(ctx: &Context) -> anyhow::Result<usize> {
    let mut tx = ctx.db.begin().await?;
    let claimed = similar::claim_unembedded(&mut tx, BATCH).await?;
    if claimed.is_empty() {
        return Ok(0);
    }
    let (ids, texts): (Vec<_>, Vec<_>) = claimed.into_iter().unzip();
    let vectors = ctx
        .models
        .embedder(similar::MODEL)?
        .embed(texts, InputKind::Document)
        .await?;
    similar::store(&mut tx, &ids, vectors).await?;
    tx.commit().await?;
    Ok(ids.len())
}
