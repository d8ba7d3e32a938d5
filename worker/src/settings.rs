//! Typed settings of `shipmate-worker` (`--help` lists them all).

use clap::Parser;
use shipmate_config::CommonSettings;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "shipmate-worker",
    version,
    about = "Shipmate background worker: document embedding and analytics enrichment"
)]
pub struct WorkerSettings {
    #[command(flatten)]
    pub common: CommonSettings,
    /// Name of this consumer in the Redis consumer group (default: worker-<pid>).
    #[arg(long, env = "SHIPMATE_WORKER_NAME")]
    pub consumer: Option<String>,
    /// Seconds a worker holds claimed documents; a killed worker's documents are retried after it.
    #[arg(long, env = "SHIPMATE_EMBED_LEASE_SECS", default_value_t = 60)]
    pub embed_lease_secs: u64,
    /// Most documents claimed at a time (their chunks are batched together).
    #[arg(long, env = "SHIPMATE_EMBED_CLAIM", default_value_t = 64)]
    pub embed_claim: i64,
    /// About how many chunks a worker's claims of local-model documents hold at once (two claims of
    /// half each; a provider lane takes this times the provider concurrency): it bounds how long a
    /// document uploaded meanwhile waits for the worker (each document becomes `ready` as soon as
    /// its own chunks are written).
    #[arg(long, env = "SHIPMATE_EMBED_CLAIM_CHUNKS", default_value_t = 192)]
    pub embed_claim_chunks: i64,
    /// Most vector writes a provider lane keeps in flight (each one batch of finished documents,
    /// in one transaction). Postgres inserting into the graph is the ceiling, so writes beyond its
    /// cores only queue there, in front of searches on the same server.
    #[arg(long, env = "SHIPMATE_EMBED_WRITES", default_value_t = 2)]
    pub embed_writes: usize,
    /// Approximate tokens per inference batch (dynamic batching across documents).
    #[arg(long, env = "SHIPMATE_EMBED_BATCH_TOKENS", default_value_t = 4096)]
    pub embed_batch_tokens: usize,
    /// Nice value of the local models' threads: document batches yield the cores to searches
    /// (the api's query embeddings, Postgres) on the same machine; 0 leaves them at normal priority.
    #[arg(long, env = "SHIPMATE_EMBED_NICE", default_value_t = 10)]
    pub embed_nice: i32,
    /// Seconds before analytics batches a worker took but never acknowledged go to another worker.
    #[arg(long, env = "SHIPMATE_EVENTS_STALE_SECS", default_value_t = 30)]
    pub events_stale_secs: u64,
    /// Seconds the summaries of the day in progress stay behind the clock: events accepted since
    /// may still be queued. Reads add the raw events since, so this only moves work around.
    #[arg(long, env = "SHIPMATE_SUMMARY_LAG_SECS", default_value_t = 5)]
    pub summary_lag_secs: i64,
    /// Where to serve `/metrics` for Prometheus (`host:port`); off when unset, as several workers
    /// may share a machine.
    #[arg(long, env = "SHIPMATE_WORKER_METRICS_BIND")]
    pub metrics_bind: Option<std::net::SocketAddr>,
    /// Tries before a document is marked `failed`.
    #[arg(long, env = "SHIPMATE_EMBED_MAX_ATTEMPTS", default_value_t = 5)]
    pub embed_max_attempts: i32,
    /// When the weekly analytics report goes out (cron with seconds; UTC): Mondays at 07:00.
    #[arg(long, env = "SHIPMATE_WEEKLY_REPORT_CRON", default_value = "0 0 7 * * Mon", value_parser = cron_expression)]
    pub weekly_report_cron: String,
    /// When analytics alerts are checked, each over the hour before (cron with seconds).
    #[arg(long, env = "SHIPMATE_ALERTS_CRON", default_value = "0 */5 * * * *", value_parser = cron_expression)]
    pub alerts_cron: String,
    /// Base of the links in emails (the api's public address).
    #[arg(
        long,
        env = "SHIPMATE_PUBLIC_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub public_url: String,
}

/// A cron expression with seconds, checked at start (a bad one is a clear error, not a panic).
fn cron_expression(s: &str) -> Result<String, String> {
    <cron::Schedule as std::str::FromStr>::from_str(s)
        .map(|_| s.to_owned())
        .map_err(|e| format!("not a cron expression (sec min hour day month weekday): {e}"))
}
