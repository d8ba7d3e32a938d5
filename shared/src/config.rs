//! Settings shared by the binaries, read from the environment (a `.env` may fill it) or flags.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A secret that never prints.
#[derive(Clone, Default)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_owned()))
    }
}

/// Connections and model/provider settings that both the api and the worker need.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonSettings {
    /// PostgreSQL with the `vector` extension.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://127.0.0.1:5432/shipmate"
    )]
    pub database_url: String,
    /// Redis holding the job queues.
    #[arg(long, env = "REDIS_URL", default_value = "redis://127.0.0.1:6379")]
    pub redis_url: String,
    /// Prefix of this deployment's Redis keys.
    #[arg(long, env = "SHIPMATE_QUEUE_PREFIX", default_value = "shipmate")]
    pub queue_prefix: String,
    /// Folder of local ONNX embedding models, one folder per model.
    #[arg(long, env = "SHIPMATE_MODELS_DIR", default_value = "./models")]
    pub models_dir: PathBuf,
    /// The ONNX Runtime shared library (found by scripts/setup).
    #[arg(long, env = "ORT_DYLIB_PATH")]
    pub ort_dylib_path: Option<PathBuf>,
    /// MaxMind-format country database (`.mmdb`).
    #[arg(long, env = "SHIPMATE_GEOIP_DB")]
    pub geoip_db: Option<PathBuf>,
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
    /// Database connections per process.
    #[arg(long, env = "SHIPMATE_DB_POOL", default_value_t = 16)]
    pub db_pool: u32,
}
