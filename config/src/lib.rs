//! `shipmate-config`: the settings the binaries share, read from the environment (a `.env` may fill
//! it) or flags. The connections are here; each area's own settings (`KbSettings`,
//! `AnalyticsSettings`, `OutboundSettings`) live in its crate and are flattened in, so no area reads
//! the whole configuration.

use shipmate_core::masked::mask_url;

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
    /// Seed nodes of a Redis Cluster (comma-separated `redis://host:port`): the analytics and
    /// document streams live there; apalis jobs stay on `REDIS_URL`.
    #[arg(long, env = "REDIS_CLUSTER_URLS", value_delimiter = ',')]
    pub redis_cluster_urls: Vec<String>,
    /// PostgreSQL streaming replicas (comma-separated) for reads that may lag.
    #[arg(long, env = "DATABASE_READ_URLS", value_delimiter = ',')]
    pub database_read_urls: Vec<String>,
    /// A replica further behind than this (or down) is skipped, and a session reads from the
    /// primary this long after its own write.
    #[arg(long, env = "SHIPMATE_REPLICA_MAX_LAG_SECONDS", default_value_t = 10)]
    pub replica_max_lag_seconds: u64,
    /// Prefix of this deployment's Redis keys.
    #[arg(long, env = "SHIPMATE_QUEUE_PREFIX", default_value = "shipmate")]
    pub queue_prefix: String,
    /// Database connections per process.
    #[arg(long, env = "SHIPMATE_DB_POOL", default_value_t = 16)]
    pub db_pool: u32,
    #[command(flatten)]
    pub analytics: shipmate_analytics::AnalyticsSettings,
    #[command(flatten)]
    pub kb: shipmate_kb::KbSettings,
    #[command(flatten)]
    pub outbound: shipmate_outbound::OutboundSettings,
}

/// Settings whose values are URLs that may carry a password.
const URL_SETTINGS: &[&str] = &[
    "DATABASE_URL",
    "REDIS_URL",
    "REDIS_CLUSTER_URLS",
    "DATABASE_READ_URLS",
    "SHIPMATE_PROVIDER_A_URL",
    "SHIPMATE_PROVIDER_B_URL",
    "SHIPMATE_CHAT_URL",
    "SHIPMATE_SMTP_URL",
    "SHIPMATE_CLICKHOUSE_URL",
];

/// Parses the command line, with a `--help` that never prints a secret: URL settings show their
/// value with the password as `***`, and secret settings only whether they are set.
pub fn parse_masked<P: clap::Parser>() -> P {
    let matches = mask_help(P::command()).get_matches();
    P::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

fn mask_help(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|arg| {
        let Some(env) = arg.get_env().and_then(|e| e.to_str()).map(str::to_owned) else {
            return arg;
        };
        let value = std::env::var(&env).ok().filter(|v| !v.is_empty());
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        if URL_SETTINGS.contains(&env.as_str()) {
            let shown = value
                .map(|v| format!(" [env: {env}={}]", mask_url(&v)))
                .unwrap_or_default();
            arg.hide_env_values(true).help(format!("{help}{shown}"))
        } else if arg.is_hide_env_values_set() {
            let state = if value.is_some() { "set" } else { "unset" };
            arg.help(format!("{help} [env: {env} is {state}]"))
        } else {
            arg
        }
    })
}
