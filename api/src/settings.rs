//! Typed settings of `shipmate-api`, from flags or the environment (`--help` lists them all).

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Parser, Subcommand};
use shipmate_accounts::auth::oauth::OAuthSettings;
use shipmate_accounts::auth::Registration;
use shipmate_config::CommonSettings;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "shipmate-api",
    version,
    about = "Shipmate HTTP API, public pages and dashboard"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub settings: ApiSettings,
}

#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Apply pending database migrations and exit.
    Migrate,
    /// Print the OpenAPI document (the SDK's types are generated from it) and exit.
    Openapi,
    /// Analytics maintenance.
    Analytics {
        #[command(subcommand)]
        command: AnalyticsCommand,
    },
}

#[derive(Subcommand, Debug, Clone)]
pub enum AnalyticsCommand {
    /// Copy the events stored in PostgreSQL into ClickHouse (`SHIPMATE_CLICKHOUSE_URL`), hour by
    /// hour: resumable (run it again to go on), idempotent (a second run adds nothing), with
    /// progress and a final count check. Copies the hours that ended before it started.
    CopyToClickhouse {
        /// Copy at most this many hours (of one project each), then stop.
        #[arg(long)]
        hours: Option<usize>,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct ApiSettings {
    #[command(flatten)]
    pub common: CommonSettings,
    /// Listen address.
    #[arg(long, env = "SHIPMATE_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Base of the links the service prints; `http://<SHIPMATE_BIND>` when unset.
    #[arg(long, env = "SHIPMATE_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// `1` enables `POST /v1/auth/dev-login` (development and tests only).
    #[arg(long, env = "SHIPMATE_DEV_LOGIN", default_value = "0", value_parser = BoolishValueParser::new(), action = ArgAction::Set)]
    pub dev_login: bool,
    /// Comma-separated CIDRs; only from these peers is `X-Forwarded-For` believed.
    #[arg(long, env = "SHIPMATE_TRUSTED_PROXIES", default_value = "")]
    pub trusted_proxies: String,
    /// Comma-separated CIDRs whose clients may read `/metrics`, besides loopback.
    #[arg(long, env = "SHIPMATE_METRICS_ALLOW", default_value = "")]
    pub metrics_allow: String,
    /// Who may create an account: `invite` (only with an invite for that email), `open`, `closed`.
    #[arg(
        long,
        env = "SHIPMATE_REGISTRATION",
        value_enum,
        default_value = "invite"
    )]
    pub registration: Registration,
    #[command(flatten)]
    pub oauth: OAuthSettings,
    /// Public writes (feedback, testimonials, through the publishable key or a public form) per
    /// minute from one client (IPv6: per /64) to one project; 0 turns the limit off.
    #[arg(long, env = "SHIPMATE_RATE_WRITES_PER_MINUTE", default_value_t = 30)]
    pub rate_writes_per_minute: u32,
    /// Analytics events per second from one client to one project through a public key (a batch
    /// counts each event); 0 turns the limit off. The secret key has no per-client limit.
    #[arg(long, env = "SHIPMATE_RATE_EVENTS_PER_SECOND", default_value_t = 200)]
    pub rate_events_per_second: u32,
    /// Sign-in work per minute from one client (IPv6: per /64): login, register, setup, password
    /// reset and its confirmation, email verification; 0 turns the limit off.
    #[arg(long, env = "SHIPMATE_RATE_AUTH_PER_MINUTE", default_value_t = 20)]
    pub rate_auth_per_minute: u32,
    /// Votes per minute by one user; 0 turns the limit off.
    #[arg(long, env = "SHIPMATE_RATE_VOTES_PER_MINUTE", default_value_t = 60)]
    pub rate_votes_per_minute: u32,
    /// Analytics ingestion: events per second for one API key (bursts up to one second's worth).
    #[arg(
        long,
        env = "SHIPMATE_EVENTS_RATE_PER_SECOND",
        default_value_t = 50_000
    )]
    pub events_rate_per_second: u32,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "SHIPMATE_MAX_BODY_BYTES", default_value_t = 1_048_576)]
    pub max_body_bytes: usize,
}

impl ApiSettings {
    /// Settings from explicit flags only (tests); the environment still fills what flags leave out.
    pub fn from_args<I, T>(args: I) -> anyhow::Result<Self>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        Ok(Cli::try_parse_from(args)?.settings)
    }

    pub fn trusted_proxies(&self) -> anyhow::Result<Vec<ipnet::IpNet>> {
        cidrs("SHIPMATE_TRUSTED_PROXIES", &self.trusted_proxies)
    }

    pub fn metrics_allow(&self) -> anyhow::Result<Vec<ipnet::IpNet>> {
        cidrs("SHIPMATE_METRICS_ALLOW", &self.metrics_allow)
    }
}

/// A comma-separated list of CIDRs (a bare address counts as its own /32 or /128).
fn cidrs(setting: &str, raw: &str) -> anyhow::Result<Vec<ipnet::IpNet>> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ipnet::IpNet>()
                .or_else(|_| s.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| anyhow::anyhow!("{setting}: {s} is not a CIDR"))
        })
        .collect()
}
