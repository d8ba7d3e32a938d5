//! Local ONNX models (BERT family) run with ONNX Runtime, off the async runtime.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{anyhow, Context};
use async_trait::async_trait;
use ndarray::Array2;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use serde::Deserialize;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::embed::{normalize, Embedder, InputKind};

/// `shipmate-model.json` in a model folder, beside `model.onnx` and `tokenizer.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub id: String,
    pub dimensions: usize,
    /// `mean` or `cls`.
    #[serde(default = "default_pooling")]
    pub pooling: String,
    #[serde(default = "default_true")]
    pub normalize: bool,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    #[serde(default)]
    pub query_prefix: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

fn default_pooling() -> String {
    "mean".into()
}
fn default_true() -> bool {
    true
}
fn default_max_tokens() -> usize {
    512
}

pub const MANIFEST: &str = "shipmate-model.json";

/// Model folders under `dir` that hold a manifest, a model and a tokenizer.
pub fn scan(dir: &Path) -> Vec<(Manifest, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(Manifest, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("model.onnx").is_file() && p.join("tokenizer.json").is_file())
        .filter_map(|p| {
            let text = std::fs::read_to_string(p.join(MANIFEST)).ok()?;
            match serde_json::from_str::<Manifest>(&text) {
                Ok(m) => Some((m, p)),
                Err(e) => {
                    tracing::warn!(folder = %p.display(), error = %e, "ignoring a model folder with a bad manifest");
                    None
                }
            }
        })
        .collect();
    found.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    found
}

/// ONNX Runtime allows one environment per process; it is created on first use from the library
/// that `ORT_DYLIB_PATH` names.
fn environment(dylib: Option<&Path>) -> anyhow::Result<&'static ort::environment::Environment> {
    static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let builder = match dylib {
            Some(p) => ort::init_from(p)
                .map_err(|e| format!("loading ONNX Runtime from {}: {e}", p.display()))?,
            None => ort::init(),
        };
        builder
            .with_name("shipmate")
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| anyhow!("{e}"))
}

pub struct LocalModel {
    inner: Arc<Inner>,
}

struct Inner {
    manifest: Manifest,
    /// Counts tokens for chunking: no truncation, no padding.
    sizer: Tokenizer,
    /// Prepares model input: truncated to `max_tokens`, padded to the batch's longest.
    runner: Tokenizer,
    /// The same for single queries, padded to a multiple of 16 tokens: ONNX Runtime plans each
    /// new input shape afresh, so a handful of recurring shapes keeps queries on warm plans.
    query_runner: Tokenizer,
    session: Mutex<Session>,
}

impl LocalModel {
    pub fn load(manifest: Manifest, folder: &Path, dylib: Option<&Path>) -> anyhow::Result<Self> {
        let env = environment(dylib)?;
        let mut sizer = Tokenizer::from_file(folder.join("tokenizer.json"))
            .map_err(|e| anyhow!("tokenizer: {e}"))?;
        // The shipped tokenizer.json may pin its own truncation and fixed padding; the manifest rules.
        sizer.with_truncation(None).map_err(|e| anyhow!("{e}"))?;
        sizer.with_padding(None);
        let mut runner = sizer.clone();
        runner
            .with_truncation(Some(TruncationParams {
                max_length: manifest.max_tokens,
                ..Default::default()
            }))
            .map_err(|e| anyhow!("{e}"))?;
        runner.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));
        let mut query_runner = runner.clone();
        query_runner.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_to_multiple_of: Some(16),
            ..Default::default()
        }));
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let session = Session::builder(env)
            .map_err(|e| anyhow!("{e}"))?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .map_err(|e| anyhow!("{e}"))?
            .with_intra_threads(threads)
            .map_err(|e| anyhow!("{e}"))?
            .commit_from_file(folder.join("model.onnx"))
            .map_err(|e| anyhow!("{e}"))
            .with_context(|| format!("loading {}", folder.display()))?;
        Ok(LocalModel {
            inner: Arc::new(Inner {
                manifest,
                sizer,
                runner,
                query_runner,
                session: Mutex::new(session),
            }),
        })
    }

    /// Embeds on the calling thread (callers run it in `spawn_blocking`).
    pub fn embed_blocking(
        &self,
        texts: &[String],
        kind: InputKind,
    ) -> anyhow::Result<Vec<Vec<f32>>> {
        self.inner.embed(texts, kind)
    }
}

impl Inner {
    fn embed(&self, texts: &[String], kind: InputKind) -> anyhow::Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<String> = match (&self.manifest.query_prefix, kind) {
            (Some(prefix), InputKind::Query) => {
                texts.iter().map(|t| format!("{prefix}{t}")).collect()
            }
            _ => texts.to_vec(),
        };
        // One text (a query) skips the batch encoder's thread pool, which would only contend
        // with ONNX Runtime's own threads.
        let encodings = match (kind, inputs.len()) {
            (InputKind::Query, 1) => vec![self
                .query_runner
                .encode(inputs[0].as_str(), true)
                .map_err(|e| anyhow!("tokenize: {e}"))?],
            _ => self
                .runner
                .encode_batch(inputs, true)
                .map_err(|e| anyhow!("tokenize: {e}"))?,
        };
        let batch = encodings.len();
        let len = encodings
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0);
        let mut ids = Array2::<i64>::zeros((batch, len));
        let mut mask = Array2::<i64>::zeros((batch, len));
        let types = Array2::<i64>::zeros((batch, len));
        for (row, enc) in encodings.iter().enumerate() {
            for (col, (&id, &m)) in enc
                .get_ids()
                .iter()
                .zip(enc.get_attention_mask())
                .enumerate()
            {
                ids[[row, col]] = i64::from(id);
                mask[[row, col]] = i64::from(m);
            }
        }
        let mut session = self
            .session
            .lock()
            .map_err(|_| anyhow!("model session poisoned"))?;
        let outputs = session.run(ort::inputs![
            "input_ids" => TensorRef::from_array_view(&ids)?,
            "attention_mask" => TensorRef::from_array_view(&mask)?,
            "token_type_ids" => TensorRef::from_array_view(&types)?,
        ])?;
        let hidden = outputs[0].try_extract_array::<f32>()?;
        let dims = self.manifest.dimensions;
        let mut out = Vec::with_capacity(batch);
        for row in 0..batch {
            let mut v = vec![0f32; dims];
            if self.manifest.pooling == "cls" {
                for (d, x) in v.iter_mut().enumerate() {
                    *x = hidden[[row, 0, d]];
                }
            } else {
                let mut n = 0f32;
                for col in 0..len {
                    if mask[[row, col]] == 1 {
                        n += 1.0;
                        for (d, x) in v.iter_mut().enumerate() {
                            *x += hidden[[row, col, d]];
                        }
                    }
                }
                v.iter_mut().for_each(|x| *x /= n.max(1.0));
            }
            if self.manifest.normalize {
                normalize(&mut v);
            }
            out.push(v);
        }
        Ok(out)
    }
}

#[async_trait]
impl Embedder for LocalModel {
    fn dimensions(&self) -> usize {
        self.inner.manifest.dimensions
    }

    fn tokenizer(&self) -> Option<&Tokenizer> {
        Some(&self.inner.sizer)
    }

    fn max_tokens(&self) -> usize {
        self.inner.manifest.max_tokens
    }

    async fn embed(&self, texts: Vec<String>, kind: InputKind) -> anyhow::Result<Vec<Vec<f32>>> {
        let inner = self.inner.clone();
        let span = tracing::Span::current();
        tokio::task::spawn_blocking(move || span.in_scope(|| inner.embed(&texts, kind))).await?
    }
}
