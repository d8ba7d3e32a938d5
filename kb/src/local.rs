//! Local ONNX models (BERT family) run with ONNX Runtime on a small pool of sessions, each on a
//! thread of its own, off the async runtime.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{anyhow, Context};
use async_trait::async_trait;
use ndarray::Array2;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use serde::Deserialize;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};
use tokio::sync::oneshot;
use uuid::Uuid;

use super::embed::{normalize, Embedder, InputKind};
use super::pool::{Busy, FairQueue};

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

/// How a local model runs: `sessions` ONNX Runtime sessions, each on a thread of its own, share
/// the cores (`threads` each, so the pool never asks for more threads than there are cores).
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    pub sessions: usize,
    pub threads: usize,
    /// Jobs of one kind one tenant may have waiting; more are refused with [`Busy`].
    pub queue_per_tenant: usize,
    /// The session threads' nice value (0: unchanged); threads ONNX Runtime starts inherit it.
    pub nice: i32,
}

impl PoolOptions {
    /// `sessions` sessions (at least one) splitting this machine's cores between them.
    pub fn for_machine(sessions: usize) -> Self {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let sessions = sessions.max(1);
        PoolOptions {
            sessions,
            threads: (cores / sessions).max(1),
            queue_per_tenant: QUEUE_PER_TENANT,
            nice: 0,
        }
    }
}

/// Two sessions of one thread each on the usual two cores: a query need not wait for another's,
/// and a document batch split in two keeps both cores busy (the benches' figures).
pub const DEFAULT_SESSIONS: usize = 2;

/// About a quarter of a second of queries on two sessions: a project searching faster than that
/// is told to back off instead of making everyone's queue longer.
const QUEUE_PER_TENANT: usize = 32;

pub struct LocalModel {
    inner: Arc<Inner>,
    sessions: usize,
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
    /// Work for the session threads, queries first and tenants in turn.
    queue: FairQueue<Uuid, Job>,
}

type Vectors = anyhow::Result<Vec<Vec<f32>>>;

struct Job {
    texts: Vec<String>,
    kind: InputKind,
    reply: oneshot::Sender<Vectors>,
    span: tracing::Span,
}

impl LocalModel {
    pub fn load(
        manifest: Manifest,
        folder: &Path,
        dylib: Option<&Path>,
        pool: PoolOptions,
    ) -> anyhow::Result<Self> {
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
        // Dropped on an error below, which closes the queue and ends the threads already started.
        let model = LocalModel {
            inner: Arc::new(Inner {
                manifest,
                sizer,
                runner,
                query_runner,
                queue: FairQueue::new(pool.queue_per_tenant),
            }),
            sessions: pool.sessions.max(1),
        };
        let (started, outcomes) = std::sync::mpsc::channel();
        for n in 0..model.sessions {
            let (inner, started, file) = (
                model.inner.clone(),
                started.clone(),
                folder.join("model.onnx"),
            );
            std::thread::Builder::new()
                .name(format!("embed-{n}"))
                .spawn(move || {
                    if pool.nice != 0 {
                        set_nice(pool.nice);
                    }
                    match session(env, &file, pool.threads) {
                        Ok(session) => {
                            let _ = started.send(Ok(()));
                            inner.serve(session);
                        }
                        Err(e) => {
                            let _ = started.send(Err(e));
                        }
                    }
                })?;
        }
        drop(started);
        for outcome in outcomes.iter().take(model.sessions) {
            outcome.with_context(|| format!("loading {}", folder.display()))?;
        }
        Ok(model)
    }

    /// Queues `texts` for `tenant`: a query as one job, a document batch split into one contiguous
    /// part per session, so the batch uses every core while a query can still take the next free
    /// session between parts.
    fn submit(
        &self,
        tenant: Uuid,
        texts: Vec<String>,
        kind: InputKind,
    ) -> Result<Vec<oneshot::Receiver<Vectors>>, Busy> {
        let parts = match kind {
            InputKind::Query => 1,
            InputKind::Document => self.sessions.min(texts.len()).max(1),
        };
        let size = texts.len().div_ceil(parts).max(1);
        let mut texts = texts.into_iter().peekable();
        let mut replies = Vec::with_capacity(parts);
        while texts.peek().is_some() {
            let (reply, answer) = oneshot::channel();
            let job = Job {
                texts: texts.by_ref().take(size).collect(),
                kind,
                reply,
                span: tracing::Span::current(),
            };
            self.inner.queue.push(kind, tenant, job)?;
            replies.push(answer);
        }
        Ok(replies)
    }

    /// Embeds and waits on the calling thread (the benchmarks' raw figure). Unconstrained: on a
    /// runtime thread tokio's cooperative budget would otherwise keep the reply "not ready" forever.
    pub fn embed_blocking(&self, texts: &[String], kind: InputKind) -> Vectors {
        let embedding = self.embed_for(Uuid::nil(), texts.to_vec(), kind);
        futures::executor::block_on(tokio::task::unconstrained(embedding))
    }
}

impl Drop for LocalModel {
    fn drop(&mut self) {
        self.inner.queue.close();
    }
}

/// Sets the calling thread's nice value (on Linux it applies per thread). Best effort: a failure
/// only costs the priority.
fn set_nice(nice: i32) {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), nice) {
        tracing::warn!(error = %e, nice, "could not set the embedding threads' priority");
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// One session; with more than one thread, the threads sleep between runs instead of spinning,
/// which would take the cores from the other sessions and processes.
fn session(
    env: &ort::environment::Environment,
    file: &Path,
    threads: usize,
) -> anyhow::Result<Session> {
    Session::builder(env)
        .map_err(|e| anyhow!("{e}"))?
        .with_optimization_level(GraphOptimizationLevel::Level3)
        .map_err(|e| anyhow!("{e}"))?
        .with_intra_threads(threads)
        .map_err(|e| anyhow!("{e}"))?
        .with_intra_op_spinning(false)
        .map_err(|e| anyhow!("{e}"))?
        .commit_from_file(file)
        .map_err(|e| anyhow!("{e}"))
}

impl Inner {
    /// A session thread: runs jobs until the model is dropped.
    fn serve(&self, mut session: Session) {
        while let Some(job) = self.queue.pop() {
            let result = job.span.in_scope(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.embed(&mut session, &job.texts, job.kind)
                }))
                .unwrap_or_else(|_| Err(anyhow!("the model panicked")))
            });
            let _ = job.reply.send(result);
        }
    }

    fn embed(&self, session: &mut Session, texts: &[String], kind: InputKind) -> Vectors {
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

    async fn embed(&self, texts: Vec<String>, kind: InputKind) -> Vectors {
        self.embed_for(Uuid::nil(), texts, kind).await
    }

    async fn embed_for(&self, tenant: Uuid, texts: Vec<String>, kind: InputKind) -> Vectors {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::with_capacity(texts.len());
        for answer in self.submit(tenant, texts, kind)? {
            out.extend(answer.await.map_err(|_| anyhow!("the model stopped"))??);
        }
        Ok(out)
    }
}
