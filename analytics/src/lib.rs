//! Cookie-free analytics: events accepted by the api (which derives the visitor before queueing),
//! enriched by workers, aggregated for reads.

pub mod days;
pub mod enrich;
pub mod events;
pub mod explore;
pub mod funnels;
pub mod goals;
pub mod query;
pub mod reads;
pub mod realtime;
pub mod report;
pub mod rollup;
pub mod salts;
pub mod settings;
pub mod shares;
pub mod store;
pub mod visitor;
pub mod visits;

pub use settings::AnalyticsSettings;

pub use query::ReadQuery;

/// Most events one request may carry.
pub const MAX_BATCH: usize = 100;
