//! The one interface every embedding backend implements.

use async_trait::async_trait;

/// Retrieval models embed documents and queries differently (task type, prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Document,
    Query,
}

#[async_trait]
pub trait Embedder: Send + Sync {
    fn dimensions(&self) -> usize;

    /// A tokenizer to size chunks in model tokens, when the model's is known locally.
    fn tokenizer(&self) -> Option<&tokenizers::Tokenizer> {
        None
    }

    /// Largest input in tokens; longer text is truncated by the model.
    fn max_tokens(&self) -> usize;

    /// Inputs per call of a remote provider, whose calls the worker keeps several of in flight;
    /// `None` for a local model, which batches by tokens on this machine's cores.
    fn batch_size(&self) -> Option<usize> {
        None
    }

    /// One vector per text, in order.
    async fn embed(&self, texts: Vec<String>, kind: InputKind) -> anyhow::Result<Vec<Vec<f32>>>;

    /// `embed` on behalf of a tenant (a project): a local model, which shares this machine's cores
    /// between projects, takes tenants in turn and may refuse one with too much waiting
    /// ([`super::pool::Busy`]). Remote providers have no such queue.
    async fn embed_for(
        &self,
        _tenant: uuid::Uuid,
        texts: Vec<String>,
        kind: InputKind,
    ) -> anyhow::Result<Vec<Vec<f32>>> {
        self.embed(texts, kind).await
    }
}

/// Scales a vector to unit length, so cosine similarity is a dot product.
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
