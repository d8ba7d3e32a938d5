//! Cookie-free analytics: events accepted by the api (which derives the visitor before queueing),
//! enriched by workers, aggregated for reads.

pub mod enrich;
pub mod events;
pub mod reads;
pub mod realtime;
pub mod rollup;
pub mod store;
pub mod visitor;

/// Most events one request may carry.
pub const MAX_BATCH: usize = 100;
