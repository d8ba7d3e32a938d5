//! The knowledge base's settings: where local models live and which embedding providers to call.

use std::path::PathBuf;

use shipmate_core::secret::Secret;

/// Local ONNX models and embedding providers, for the api's queries and the worker's documents.
#[derive(clap::Args, Debug, Clone)]
pub struct KbSettings {
    /// Folder of local ONNX embedding models, one folder per model.
    #[arg(long, env = "SHIPMATE_MODELS_DIR", default_value = "./models")]
    pub models_dir: PathBuf,
    /// The ONNX Runtime shared library (found by scripts/setup).
    #[arg(long, env = "ORT_DYLIB_PATH")]
    pub ort_dylib_path: Option<PathBuf>,
    /// OpenAI-compatible `/embeddings` API serving the `provider-a-*` models.
    #[arg(
        long,
        env = "SHIPMATE_PROVIDER_A_URL",
        default_value = "https://api.openai.com/v1"
    )]
    pub provider_a_url: String,
    /// API key for provider A; its models are unavailable without one.
    #[arg(long, env = "SHIPMATE_PROVIDER_A_KEY", hide_env_values = true)]
    pub provider_a_key: Option<Secret>,
    /// `batchEmbedContents`-style API serving `provider-b-embedding-001`.
    #[arg(
        long,
        env = "SHIPMATE_PROVIDER_B_URL",
        default_value = "https://generativelanguage.googleapis.com/v1beta"
    )]
    pub provider_b_url: String,
    /// API key for provider B; its model is unavailable without one.
    #[arg(long, env = "SHIPMATE_PROVIDER_B_KEY", hide_env_values = true)]
    pub provider_b_key: Option<Secret>,
    /// ONNX Runtime sessions per local model and process, each on its own thread with an equal
    /// share of the cores: more sessions run more queries (or parts of a batch) at once, each
    /// holding its own copy of the model in memory.
    #[arg(long, env = "SHIPMATE_EMBED_SESSIONS", default_value_t = crate::local::DEFAULT_SESSIONS)]
    pub embed_sessions: usize,
    /// Most calls in flight to one embedding provider per process (the worker's document
    /// batches, the api's queries). A 429 or 503 halves the limit for a while (AIMD).
    #[arg(long, env = "SHIPMATE_EMBED_PROVIDER_CONCURRENCY", default_value_t = 8)]
    pub embed_provider_concurrency: usize,
    /// Below this many ready chunks in an index a vector search scans them all (exact, perfect
    /// recall, and at this size about as fast as the graph); from it on the graph answers. A
    /// metadata filter scans exactly below the lesser of this and 2,000 matching chunks.
    #[arg(long, env = "SHIPMATE_SEARCH_EXACT_BELOW", default_value_t = crate::search::EXACT_BELOW)]
    pub search_exact_below: i64,
    /// Search analytics call a query low confidence when its searches' mean top similarity is
    /// under this (vector and hybrid searches).
    #[arg(long, env = "SHIPMATE_SEARCH_LOW_SCORE", default_value_t = 0.3)]
    pub search_low_score: f64,
    /// Log every search for the indexes' search analytics (queries may hold what people typed
    /// about themselves: `false` keeps none, and analytics stay empty).
    #[arg(long, env = "SHIPMATE_SEARCH_LOG", default_value_t = true, action = clap::ArgAction::Set)]
    pub search_log: bool,
    /// An OpenAI-compatible chat API's base for answers (the client posts to
    /// `{url}/chat/completions`); with only `SHIPMATE_CHAT_KEY` set, OpenAI's. Neither: answers
    /// are refused 503 `chat_not_configured`.
    #[arg(long, env = "SHIPMATE_CHAT_URL")]
    pub chat_url: Option<String>,
    /// The chat API's key, sent as a bearer token (local servers may need none).
    #[arg(long, env = "SHIPMATE_CHAT_KEY", hide_env_values = true)]
    pub chat_key: Option<Secret>,
    /// The chat model answers are asked of.
    #[arg(long, env = "SHIPMATE_CHAT_MODEL", default_value = "gpt-4o-mini")]
    pub chat_model: String,
    /// A chat call that has not answered in this long (streaming: not sent its next piece) is
    /// cut and the answer refused 502.
    #[arg(long, env = "SHIPMATE_CHAT_TIMEOUT_SECONDS", default_value_t = 30)]
    pub chat_timeout_seconds: u64,
    /// Most chat calls in flight per process; a 429 or 503 halves it for a while (AIMD).
    #[arg(long, env = "SHIPMATE_CHAT_CONCURRENCY", default_value_t = 16)]
    pub chat_concurrency: usize,
    /// Most answers one project has in flight at once; beyond them 429 `rate_limited`.
    #[arg(long, env = "SHIPMATE_CHAT_PROJECT_CONCURRENCY", default_value_t = 4)]
    pub chat_project_concurrency: usize,
}

impl KbSettings {
    /// The chat API's base, if answers are configured.
    pub fn chat_base(&self) -> Option<String> {
        match (&self.chat_url, &self.chat_key) {
            (Some(url), _) if !url.trim().is_empty() => Some(url.trim().to_owned()),
            (_, Some(_)) => Some("https://api.openai.com/v1".to_owned()),
            _ => None,
        }
    }
}
