//! Embedding vendors over HTTP: provider A (OpenAI-compatible `/embeddings`) and provider B
//! (`batchEmbedContents`). Both batch, retry 429/5xx with backoff honouring `Retry-After`, and time out.

use std::time::Duration;

use anyhow::{anyhow, bail};
use async_trait::async_trait;
use serde_json::{json, Value};

use super::aimd::Aimd;
use super::embed::{Embedder, InputKind};
use super::provider_call;
use shipmate_core::secret::Secret;

async fn post_json<T: serde::de::DeserializeOwned>(
    limit: &Aimd,
    make: impl Fn() -> reqwest::RequestBuilder,
) -> anyhow::Result<T> {
    let res = provider_call::send(limit, "embedding provider", make).await?;
    res.json()
        .await
        .map_err(|e| anyhow!("the provider's answer could not be read: {e}"))
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap_or_default()
}

/// Provider A: `POST {base}/embeddings` with `{model, input, input_type}`, answering `{data: [{embedding, index}]}`.
pub struct ProviderA {
    http: reqwest::Client,
    limit: Aimd,
    base: String,
    key: Secret,
    model: String,
    dimensions: usize,
}

impl ProviderA {
    pub const BATCH: usize = 128;

    pub fn new(base: &str, key: Secret, model: &str, dimensions: usize, in_flight: usize) -> Self {
        ProviderA {
            http: client(),
            limit: Aimd::new(in_flight),
            base: base.trim_end_matches('/').to_owned(),
            key,
            model: model.to_owned(),
            dimensions,
        }
    }
}

#[async_trait]
impl Embedder for ProviderA {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn max_tokens(&self) -> usize {
        8_000
    }

    fn batch_size(&self) -> Option<usize> {
        Some(Self::BATCH)
    }

    async fn embed(&self, texts: Vec<String>, kind: InputKind) -> anyhow::Result<Vec<Vec<f32>>> {
        let input_type = if kind == InputKind::Query {
            "query"
        } else {
            "document"
        };
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(Self::BATCH) {
            let body = json!({ "model": self.model, "input": batch, "input_type": input_type, "encoding_format": "float" });
            let url = format!("{}/embeddings", self.base);
            let answer: AnswerA = post_json(&self.limit, || {
                self.http
                    .post(&url)
                    .bearer_auth(self.key.expose())
                    .json(&body)
            })
            .await?;
            let mut data = answer.data;
            data.sort_by_key(|d| d.index);
            if data.len() != batch.len() {
                bail!(
                    "provider A: {} embeddings for {} inputs",
                    data.len(),
                    batch.len()
                );
            }
            out.extend(data.into_iter().map(|d| d.embedding));
        }
        check_dims(&out, self.dimensions)?;
        Ok(out)
    }
}

/// Provider B: `POST {base}/models/{model}:batchEmbedContents` with retrieval task types.
pub struct ProviderB {
    http: reqwest::Client,
    limit: Aimd,
    base: String,
    key: Secret,
    model: String,
    dimensions: usize,
}

impl ProviderB {
    pub const BATCH: usize = 100;

    pub fn new(base: &str, key: Secret, model: &str, dimensions: usize, in_flight: usize) -> Self {
        ProviderB {
            http: client(),
            limit: Aimd::new(in_flight),
            base: base.trim_end_matches('/').to_owned(),
            key,
            model: model.to_owned(),
            dimensions,
        }
    }
}

#[async_trait]
impl Embedder for ProviderB {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn max_tokens(&self) -> usize {
        2_000
    }

    fn batch_size(&self) -> Option<usize> {
        Some(Self::BATCH)
    }

    async fn embed(&self, texts: Vec<String>, kind: InputKind) -> anyhow::Result<Vec<Vec<f32>>> {
        let task = if kind == InputKind::Query {
            "RETRIEVAL_QUERY"
        } else {
            "RETRIEVAL_DOCUMENT"
        };
        let model = format!("models/{}", self.model);
        let url = format!("{}/{model}:batchEmbedContents", self.base);
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(Self::BATCH) {
            let requests: Vec<Value> = batch
                .iter()
                .map(|t| json!({ "model": model, "content": { "parts": [{ "text": t }] }, "taskType": task, "outputDimensionality": self.dimensions }))
                .collect();
            let body = json!({ "requests": requests });
            let answer: AnswerB = post_json(&self.limit, || {
                self.http
                    .post(&url)
                    .header("x-goog-api-key", self.key.expose())
                    .json(&body)
            })
            .await?;
            let embeddings = answer.embeddings;
            if embeddings.len() != batch.len() {
                bail!(
                    "provider B: {} embeddings for {} inputs",
                    embeddings.len(),
                    batch.len()
                );
            }
            out.extend(embeddings.into_iter().map(|e| e.values));
        }
        check_dims(&out, self.dimensions)?;
        Ok(out)
    }
}

// Typed answers: a batch carries 100k+ floats, read straight into vectors rather than through
// `serde_json::Value`.
#[derive(serde::Deserialize)]
struct AnswerA {
    data: Vec<ItemA>,
}

#[derive(serde::Deserialize)]
struct ItemA {
    #[serde(default)]
    index: usize,
    embedding: Vec<f32>,
}

#[derive(serde::Deserialize)]
struct AnswerB {
    embeddings: Vec<ItemB>,
}

#[derive(serde::Deserialize)]
struct ItemB {
    values: Vec<f32>,
}

fn check_dims(vectors: &[Vec<f32>], dims: usize) -> anyhow::Result<()> {
    match vectors.iter().find(|v| v.len() != dims) {
        Some(v) => bail!(
            "the provider returned {} dimensions, expected {dims}",
            v.len()
        ),
        None => Ok(()),
    }
}
