//! The event store on PostgreSQL: events in a partition per day (`store`, `rollup`), daily and
//! weekly summaries kept current by the workers' upkeep (`rollup`, `visits`), unfiltered reads
//! from the summaries plus the last seconds of raw rows (`reads`), filtered reads and funnels from
//! the days' events held as columns in memory (`explore`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use shipmate_core::replicas::Replicas;
use shipmate_core::AppResult;
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventRow, FunnelReport, Journeys, Overview, PageRow,
    PropertyRow, Realtime, ReferrerRow, Timeseries, Utm, VisitPageRow,
};
use sqlx::PgPool;
use uuid::Uuid;

use crate::funnels;
use crate::query::{Dim, Filters, ReadQuery};
use crate::seam::{Batch, EventStore, Reader};
use crate::seam::{Converted, RevenueSums, Row};
use reads::Read;

mod conversions;
mod engagement;
pub mod explore;
mod journeys;
pub mod reads;
pub mod realtime;
mod revenue;
pub mod rollup;
pub mod store;
pub mod visits;
mod window;

pub use explore::set_memory_budget;
use shipmate_types::analytics::Funnel;

pub struct Postgres {
    db: PgPool,
    /// Figures may come from a replica (`reading_from`); writes and upkeep use `db`.
    replicas: Replicas,
    /// Days whose partition exists (or never can: their rows are in the default partition).
    partitions: Mutex<BTreeSet<NaiveDate>>,
}

impl Postgres {
    pub fn new(db: PgPool) -> Self {
        Postgres {
            replicas: Replicas::primary_only(db.clone()),
            db,
            partitions: Mutex::new(BTreeSet::new()),
        }
    }

    /// Reads figures from `replicas` when one is healthy.
    pub fn reading_from(mut self, replicas: Replicas) -> Self {
        self.replicas = replicas;
        self
    }

    /// Partitions for yesterday to tomorrow, each day asked for once.
    async fn ensure_partitions(&self) -> AppResult<()> {
        let yesterday = Utc::now().date_naive() - chrono::Duration::days(1);
        let missing = {
            let known = self.partitions.lock().unwrap_or_else(|e| e.into_inner());
            !(0..3).all(|d| known.contains(&(yesterday + chrono::Duration::days(d))))
        };
        if missing {
            let settled = rollup::ensure_partitions(&self.db, yesterday, 3).await?;
            let mut known = self.partitions.lock().unwrap_or_else(|e| e.into_inner());
            known.retain(|d| *d >= yesterday);
            known.extend(settled);
        }
        Ok(())
    }
}

#[async_trait]
impl EventStore for Postgres {
    async fn label_ids(&self, labels: &[String]) -> AppResult<HashMap<String, i16>> {
        store::label_ids(&self.db, labels).await
    }

    async fn already_stored(&self, entries: &[i64]) -> AppResult<HashSet<i64>> {
        store::already_stored(&self.db, entries).await
    }

    async fn insert(&self, batch: Batch<'_>) -> AppResult<()> {
        store::insert(&self.db, batch).await
    }

    async fn forget_replays(&self, bound: i64) -> AppResult<u64> {
        store::forget_replays(&self.db, bound).await
    }

    /// Partitions ahead of time, then the summaries of closed days (five minutes after
    /// midnight, for events still queued) and of today up to `upto`, a week of days at most.
    async fn upkeep(&self, upto: DateTime<Utc>) -> AppResult<usize> {
        self.ensure_partitions().await?;
        // A deleted project's events went with it (foreign keys cascade): nothing else to delete.
        sqlx::query!("delete from analytics_forgotten_projects")
            .execute(&self.db)
            .await?;
        rollup::keep_current(&self.db, chrono::Duration::minutes(5), upto, 7).await
    }

    async fn reader<'a>(
        &'a self,
        project_id: Uuid,
        query: &'a ReadQuery,
    ) -> AppResult<Box<dyn Reader + 'a>> {
        // The replica is chosen for the whole read: its first query (the window) falls back to
        // the primary if the replica fails it.
        let read = self
            .replicas
            .run(|db| Read::new(db, project_id, query))
            .await?;
        Ok(Box::new(read))
    }

    async fn realtime(
        &self,
        project_id: Uuid,
        now: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<Realtime> {
        self.replicas
            .run(|db| realtime::realtime(db, project_id, now, filters))
            .await
    }

    async fn visitors_between(
        &self,
        project_id: Uuid,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<i64> {
        self.replicas
            .run(|db| realtime::visitors_between(db, project_id, (from, to), filters))
            .await
    }

    async fn first_day(&self, project_id: Uuid) -> AppResult<Option<NaiveDate>> {
        let first = sqlx::query_scalar!(
            "select min(ts) from analytics_events where project_id = $1",
            project_id
        )
        .fetch_one(&self.db)
        .await?;
        Ok(first.map(|t| t.date_naive()))
    }

    async fn funnel(&self, funnel: &Funnel, query: &ReadQuery) -> AppResult<FunnelReport> {
        self.replicas
            .run(|db| funnels::report(db, funnel, query))
            .await
    }
}

#[async_trait]
impl Reader for Read<'_> {
    async fn overview(&self) -> AppResult<Overview> {
        reads::overview(self).await
    }
    async fn timeseries(&self) -> AppResult<Timeseries> {
        reads::timeseries(self).await
    }
    async fn pages(&self) -> AppResult<Breakdown<PageRow>> {
        engagement::pages(self).await
    }
    async fn journeys(&self, page: &str) -> AppResult<Journeys> {
        journeys::journeys(self, page).await
    }
    async fn revenue(&self, currency: &str) -> AppResult<RevenueSums> {
        revenue::revenue(self, currency).await
    }
    async fn conversions(
        &self,
        dims: &[Dim],
        reached: &Filters,
        currency: Option<&str>,
    ) -> AppResult<Vec<Vec<Converted>>> {
        let each = dims
            .iter()
            .map(|d| conversions::conversions(self, *d, reached, currency));
        futures::future::try_join_all(each).await
    }
    async fn entry_pages(&self) -> AppResult<Breakdown<VisitPageRow>> {
        reads::entry_pages(self).await
    }
    async fn exit_pages(&self) -> AppResult<Breakdown<VisitPageRow>> {
        reads::exit_pages(self).await
    }
    async fn referrers(&self) -> AppResult<Breakdown<ReferrerRow>> {
        reads::referrers(self).await
    }
    async fn countries(&self) -> AppResult<Breakdown<CountryRow>> {
        reads::countries(self).await
    }
    async fn devices(&self) -> AppResult<Devices> {
        reads::devices(self).await
    }
    async fn utm(&self) -> AppResult<Utm> {
        reads::utm(self).await
    }
    async fn events(&self) -> AppResult<Breakdown<EventRow>> {
        let rows = reads::breakdown(self, Dim::Event).await?;
        Ok(crate::figures::events(self.period(), rows))
    }
    async fn breakdown(&self, dim: Dim) -> AppResult<Vec<Row>> {
        reads::breakdown(self, dim).await
    }
    async fn visitors(&self) -> AppResult<i64> {
        reads::visitors(self).await
    }
    async fn properties(&self, event: &str, property: &str) -> AppResult<Breakdown<PropertyRow>> {
        reads::properties(self, event, property).await
    }
}
