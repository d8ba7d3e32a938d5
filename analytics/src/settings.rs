//! The analytics area's settings: where countries come from, how much memory filtered reads get,
//! and which store holds the events.

use std::path::PathBuf;

/// Country enrichment and the in-process column store's memory.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalyticsSettings {
    /// MaxMind-format country database (`.mmdb`).
    #[arg(long, env = "SHIPMATE_GEOIP_DB")]
    pub geoip_db: Option<PathBuf>,
    /// Memory for filtered analytics reads and funnels: the api keeps the days of events they
    /// read as columns, about 50 bytes per event, and each project's dictionary of their values;
    /// beyond this it drops the days read longest ago, and a project's dictionary with its last.
    #[arg(long, env = "SHIPMATE_ANALYTICS_MEMORY_MB", default_value_t = 1024)]
    pub analytics_memory_mb: usize,
    /// `http://user:password@host:8123/database`: events are stored in ClickHouse and every
    /// analytics read is answered from it (docs/scaling.md); unset, PostgreSQL serves.
    #[arg(long, env = "SHIPMATE_CLICKHOUSE_URL")]
    pub clickhouse_url: Option<String>,
    /// A cluster from the ClickHouse servers' `remote_servers`: the tables are made `ON CLUSTER`,
    /// replicated per shard under a table sharded by visitor (docs/scaling.md).
    #[arg(long, env = "SHIPMATE_CLICKHOUSE_CLUSTER")]
    pub clickhouse_cluster: Option<String>,
}
