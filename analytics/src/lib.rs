//! Cookie-free analytics: events accepted by the api (which derives the visitor before queueing),
//! enriched by workers, aggregated for reads.

pub mod alerts;
pub mod clickhouse;
pub mod conversions;
pub mod days;
pub mod engagement;
pub mod enrich;
pub mod events;
pub mod figures;
pub mod funnels;
pub mod goals;
pub mod imports;
pub mod journeys;
pub mod pg;
pub mod query;
pub mod report;
pub mod salts;
pub mod seam;
pub mod segments;
pub mod settings;
pub mod shares;
pub mod visitor;

pub use settings::AnalyticsSettings;

pub use query::ReadQuery;
pub use seam::{EventStore, Reader};

/// Most events one request may carry.
pub const MAX_BATCH: usize = 100;

/// The event store the settings name: ClickHouse when `SHIPMATE_CLICKHOUSE_URL` is set (its
/// tables made or brought up to date, waiting for the server as for the other stores), else
/// PostgreSQL.
pub async fn open_store(
    settings: &AnalyticsSettings,
    replicas: shipmate_core::replicas::Replicas,
) -> anyhow::Result<std::sync::Arc<dyn EventStore>> {
    let db = replicas.primary().clone();
    let store: std::sync::Arc<dyn EventStore> = match &settings.clickhouse_url {
        Some(url) => std::sync::Arc::new(
            shipmate_core::startup::retry("clickhouse", || {
                clickhouse::ClickHouse::connect(
                    url,
                    settings.clickhouse_cluster.as_deref(),
                    db.clone(),
                )
            })
            .await?,
        ),
        None => std::sync::Arc::new(pg::Postgres::new(db.clone()).reading_from(replicas)),
    };
    Ok(std::sync::Arc::new(imports::reads::WithImports::new(
        store, db,
    )))
}
