//! Embedding vendors over HTTP: provider A (OpenAI-compatible `/embeddings`) and provider B
//! (`batchEmbedContents`). Both batch, retry 429/5xx with backoff honouring `Retry-After`, and time out.

use std::time::Duration;

use anyhow::{anyhow, bail};
use async_trait::async_trait;
use serde_json::{json, Value};

use super::embed::{Embedder, InputKind};
use crate::config::Secret;

const ATTEMPTS: u32 = 5;

/// Sends the request built by `make`, retrying transient failures; returns the JSON answer.
async fn post_json(make: impl Fn() -> reqwest::RequestBuilder) -> anyhow::Result<Value> {
    let mut delay = Duration::from_millis(200);
    for attempt in 1..=ATTEMPTS {
        let last = attempt == ATTEMPTS;
        match make().send().await {
            Ok(res) if res.status().is_success() => return Ok(res.json().await?),
            Ok(res) if res.status().as_u16() == 429 || res.status().is_server_error() => {
                let status = res.status();
                if last {
                    bail!("embedding provider answered {status} after {ATTEMPTS} attempts");
                }
                let wait = res
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .map(|s| Duration::from_secs_f64(s.clamp(0.0, 60.0)))
                    .unwrap_or(delay);
                tracing::warn!(%status, attempt, wait_ms = wait.as_millis() as u64, "embedding provider busy; retrying");
                tokio::time::sleep(wait).await;
            }
            Ok(res) => {
                let status = res.status();
                let body = res.text().await.unwrap_or_default();
                bail!(
                    "embedding provider refused the request ({status}): {}",
                    body.chars().take(300).collect::<String>()
                );
            }
            Err(e) if last => return Err(e.into()),
            Err(e) => {
                tracing::warn!(error = %e, attempt, "embedding provider unreachable; retrying");
                tokio::time::sleep(delay).await;
            }
        }
        delay = (delay * 2).min(Duration::from_secs(10));
    }
    Err(anyhow!("embedding provider retries exhausted"))
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
    base: String,
    key: Secret,
    model: String,
    dimensions: usize,
}

impl ProviderA {
    pub const BATCH: usize = 128;

    pub fn new(base: &str, key: Secret, model: &str, dimensions: usize) -> Self {
        ProviderA {
            http: client(),
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
            let answer = post_json(|| {
                self.http
                    .post(&url)
                    .bearer_auth(self.key.expose())
                    .json(&body)
            })
            .await?;
            let mut data: Vec<(u64, Vec<f32>)> = answer["data"]
                .as_array()
                .ok_or_else(|| anyhow!("provider A: no data in the answer"))?
                .iter()
                .map(|d| (d["index"].as_u64().unwrap_or(0), floats(&d["embedding"])))
                .collect();
            data.sort_by_key(|(i, _)| *i);
            if data.len() != batch.len() {
                bail!(
                    "provider A: {} embeddings for {} inputs",
                    data.len(),
                    batch.len()
                );
            }
            out.extend(data.into_iter().map(|(_, v)| v));
        }
        check_dims(&out, self.dimensions)?;
        Ok(out)
    }
}

/// Provider B: `POST {base}/models/{model}:batchEmbedContents` with retrieval task types.
pub struct ProviderB {
    http: reqwest::Client,
    base: String,
    key: Secret,
    model: String,
    dimensions: usize,
}

impl ProviderB {
    pub const BATCH: usize = 100;

    pub fn new(base: &str, key: Secret, model: &str, dimensions: usize) -> Self {
        ProviderB {
            http: client(),
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
            let answer = post_json(|| {
                self.http
                    .post(&url)
                    .header("x-goog-api-key", self.key.expose())
                    .json(&body)
            })
            .await?;
            let embeddings = answer["embeddings"]
                .as_array()
                .ok_or_else(|| anyhow!("provider B: no embeddings in the answer"))?;
            if embeddings.len() != batch.len() {
                bail!(
                    "provider B: {} embeddings for {} inputs",
                    embeddings.len(),
                    batch.len()
                );
            }
            out.extend(embeddings.iter().map(|e| floats(&e["values"])));
        }
        check_dims(&out, self.dimensions)?;
        Ok(out)
    }
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(|x| x as f32)
                .collect()
        })
        .unwrap_or_default()
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
