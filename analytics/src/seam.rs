//! The analytics store's seam. Every write of events and every read of figures goes through
//! [`EventStore`] (and the [`Reader`] it opens for one read): the api and the worker hold an
//! `Arc<dyn EventStore>` and nothing else of the store, so a second store (ClickHouse, "Analytics
//! past one machine") is one more implementation of these two traits, not a rewrite.
//! [`crate::pg::Postgres`] is the implementation on PostgreSQL (a partition per day, daily
//! summaries, the in-memory column store for filtered reads).
//!
//! What is not events stays in PostgreSQL whatever the store: goals, funnels, share links,
//! salts and the weekly report's bookkeeping (their own modules).

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use shipmate_core::AppResult;
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventRow, FunnelReport, Journeys, Overview, PageRow,
    PropertyRow, Realtime, ReferrerRow, Timeseries, Utm, VisitPageRow,
};
use uuid::Uuid;

use crate::enrich::Enriched;
use crate::events::IncomingEvent;
use crate::query::{Dim, Filters, ReadQuery};
use shipmate_types::analytics::Funnel;

/// One event ready to store, with its request's project and arrival time.
pub struct Stored {
    /// The queue entry of its request (`queue::entry_key`): a store that cannot lock uses it to
    /// find a retried request's events.
    pub entry: i64,
    pub project_id: Uuid,
    pub ts: DateTime<Utc>,
    pub event: IncomingEvent,
    pub enriched: Enriched,
}

/// What one worker read stores: its events (device, browser and OS coded by `labels`), the bots it
/// dropped per project and day, and the queue entries they all came from; `redelivered` if some of
/// those were taken over from another worker.
pub struct Batch<'a> {
    pub rows: &'a [Stored],
    pub labels: &'a HashMap<String, i16>,
    pub bots: &'a [(Uuid, NaiveDate, i64)],
    pub entries: &'a [i64],
    pub redelivered: bool,
}

/// Views and visitors of one value of a dimension.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, sqlx::FromRow)]
pub struct Row {
    pub key: String,
    pub views: i64,
    pub visitors: i64,
}

/// Revenue in one currency over a read's events: the sum (millionths), the events counted, and
/// the events with revenue in another currency (left out, not converted).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize, sqlx::FromRow,
)]
pub struct RevenueSums {
    pub total: i64,
    pub counted: i64,
    pub skipped: i64,
}

impl std::ops::AddAssign for RevenueSums {
    fn add_assign(&mut self, other: RevenueSums) {
        self.total += other.total;
        self.counted += other.counted;
        self.skipped += other.skipped;
    }
}

/// One source's conversions of a goal: its visitors (per day) who reached the goal, and the
/// revenue of their events that reached it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Converted {
    pub key: String,
    pub conversions: i64,
    pub revenue: RevenueSums,
}

/// Where events are written and figures read.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// The codes of device, browser and OS names, adding the names not seen before.
    async fn label_ids(&self, labels: &[String]) -> AppResult<HashMap<String, i16>>;
    /// The queue entries among `entries` whose events are already stored (redelivered jobs).
    async fn already_stored(&self, entries: &[i64]) -> AppResult<HashSet<i64>>;
    /// Stores one worker read whole, or nothing of it; refused when another worker stored one of
    /// its entries meanwhile.
    async fn insert(&self, batch: Batch<'_>) -> AppResult<()>;
    /// Forgets which entries below `bound` were stored: the queue never delivers them again.
    async fn forget_replays(&self, bound: i64) -> AppResult<u64>;
    /// Keeps the store ready and its summaries current up to `upto` (events accepted since may
    /// still be on their way from the queue). Returns how many days it summarised.
    async fn upkeep(&self, upto: DateTime<Utc>) -> AppResult<usize>;
    /// Opens one read of a project's figures: what was asked, over one window of time, shared by
    /// every figure taken from it.
    async fn reader<'a>(
        &'a self,
        project_id: Uuid,
        query: &'a ReadQuery,
    ) -> AppResult<Box<dyn Reader + 'a>>;
    /// The last minutes' figures as of `now`, of the events matching `filters`.
    async fn realtime(
        &self,
        project_id: Uuid,
        now: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<Realtime>;
    /// Visitors (per UTC day, as every read counts them) with an event matching `filters` in
    /// `[from, to)`: the alerts' last hour.
    async fn visitors_between(
        &self,
        project_id: Uuid,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<i64>;
    /// The project's first day with an event stored (imported days count before it).
    async fn first_day(&self, project_id: Uuid) -> AppResult<Option<NaiveDate>>;
    /// Visitors at each step of the funnel, over the read's range and filters.
    async fn funnel(&self, funnel: &Funnel, query: &ReadQuery) -> AppResult<FunnelReport>;
    /// Whether a store of its own (not the PostgreSQL every process needs) answers: `None` when
    /// the events live in PostgreSQL.
    async fn reachable(&self) -> Option<bool> {
        None
    }
    /// How a worker feeds the store: the most queue entries (requests) one read takes, and how
    /// long after a store that kept up (a read not full) the next read waits, gathering what
    /// arrives meanwhile into one insert.
    fn pacing(&self) -> (usize, std::time::Duration) {
        (256, std::time::Duration::ZERO)
    }
}

/// The figures of one read (see [`EventStore::reader`]).
#[async_trait]
pub trait Reader: Send + Sync {
    async fn overview(&self) -> AppResult<Overview>;
    async fn timeseries(&self) -> AppResult<Timeseries>;
    async fn pages(&self) -> AppResult<Breakdown<PageRow>>;
    async fn entry_pages(&self) -> AppResult<Breakdown<VisitPageRow>>;
    async fn exit_pages(&self) -> AppResult<Breakdown<VisitPageRow>>;
    async fn referrers(&self) -> AppResult<Breakdown<ReferrerRow>>;
    async fn countries(&self) -> AppResult<Breakdown<CountryRow>>;
    async fn devices(&self) -> AppResult<Devices>;
    async fn utm(&self) -> AppResult<Utm>;
    async fn events(&self) -> AppResult<Breakdown<EventRow>>;
    /// Views and visitors per value of one dimension, largest first (100 at most).
    async fn breakdown(&self, dim: Dim) -> AppResult<Vec<Row>>;
    /// Visitors of the range with any matching event.
    async fn visitors(&self) -> AppResult<i64>;
    /// A custom property's values on one event name, most frequent first.
    async fn properties(&self, event: &str, property: &str) -> AppResult<Breakdown<PropertyRow>>;
    /// Revenue in `currency` of the read's matching events.
    async fn revenue(&self, currency: &str) -> AppResult<RevenueSums>;
    /// The pages viewed right after and right before `page` within visits (`crate::journeys`).
    async fn journeys(&self, page: &str) -> AppResult<Journeys>;
    /// Per value of each source dimension of `dims` (referrer, UTM), in their order, its visitors
    /// who also have an event matching `reached` (a goal's filters), and with `currency` the
    /// revenue of those events (`crate::conversions`).
    async fn conversions(
        &self,
        dims: &[Dim],
        reached: &Filters,
        currency: Option<&str>,
    ) -> AppResult<Vec<Vec<Converted>>>;
}
