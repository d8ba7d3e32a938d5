//! The event store on ClickHouse (`SHIPMATE_CLICKHOUSE_URL`), for teams past what one PostgreSQL
//! holds: events in a MergeTree table (`schema`), written a worker read per block (`store`), every
//! read one aggregation over the raw events (`reads`). What is not events (goals, funnels, shares,
//! salts, bot counts) stays in PostgreSQL, as in PostgreSQL mode.
//! Visits and funnels are cut from each visitor's day of events as arrays (`visits`), closed
//! days' visits once by the workers' upkeep (`summaries`).

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventRow, Funnel, FunnelReport, Journeys, Overview, PageRow,
    PropertyRow, Realtime, ReferrerRow, Timeseries, Utm, VisitPageRow,
};
use sqlx::PgPool;
use uuid::Uuid;

use crate::query::{Dim, Filters, ReadQuery};
use crate::seam::{Batch, Converted, EventStore, Reader, RevenueSums, Row};
use reads::Read;
use shipmate_core::AppResult;

mod by_filter;
pub mod client;
mod conversions;
pub mod copy;
mod engagement;
pub mod forget;
mod funnels;
mod journeys;
mod open_day;
pub mod reads;
pub mod schema;
pub mod sql;
pub mod store;
pub mod summaries;
mod summary_rows;
pub mod visits;

pub struct ClickHouse {
    client: client::Client,
    /// Projects (to drop a deleted project's events) and bot counts.
    db: PgPool,
}

impl ClickHouse {
    /// Connects to `url` and brings its tables up to date, on `cluster` when given.
    pub async fn connect(
        url: &str,
        cluster: Option<&str>,
        db: PgPool,
    ) -> anyhow::Result<ClickHouse> {
        let client = client::Client::new(url, cluster, Duration::from_secs(30))?;
        schema::migrate(&client).await?;
        Ok(ClickHouse { client, db })
    }
}

#[async_trait]
impl EventStore for ClickHouse {
    /// Names are stored as they are: the codes only have to be stable within the worker.
    async fn label_ids(&self, labels: &[String]) -> AppResult<HashMap<String, i16>> {
        Ok(labels.iter().map(|l| (l.clone(), 0)).collect())
    }

    async fn already_stored(&self, entries: &[i64]) -> AppResult<HashSet<i64>> {
        store::already_stored(&self.client, entries).await
    }

    async fn insert(&self, batch: Batch<'_>) -> AppResult<()> {
        store::insert(&self.client, &self.db, batch).await
    }

    /// The entries are in the rows themselves; there is no record to forget.
    async fn forget_replays(&self, _bound: i64) -> AppResult<u64> {
        Ok(0)
    }

    /// Closed days' summaries, made once (`summaries`), deleted projects' rows deleted
    /// (`forget`), then saved funnels' counts of the closed days (`funnels`): last, as a cache
    /// whose failure must not hold up the rest.
    async fn upkeep(&self, upto: DateTime<Utc>) -> AppResult<usize> {
        let summarised = summaries::keep_current(&self.client, upto)
            .await
            .map_err(reads::failed)?;
        open_day::keep(&self.client, upto)
            .await
            .map_err(reads::failed)?;
        forget::forget_deleted(&self.client, &self.db)
            .await
            .map_err(reads::failed)?;
        funnels::keep_saved(&self.client, &self.db, upto).await?;
        Ok(summarised)
    }

    async fn reader<'a>(
        &'a self,
        project_id: Uuid,
        query: &'a ReadQuery,
    ) -> AppResult<Box<dyn Reader + 'a>> {
        Ok(Box::new(Read::open(&self.client, project_id, query).await?))
    }

    async fn realtime(
        &self,
        project_id: Uuid,
        now: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<Realtime> {
        reads::realtime(&self.client, project_id, now, filters).await
    }

    async fn reachable(&self) -> Option<bool> {
        Some(self.client.ping().await)
    }

    /// Fewer, larger blocks: each insert makes a part the server merges later, so one per few
    /// requests at thousands of requests a second took the cores the api needs (single-event
    /// ingest at 65 % of PostgreSQL mode's, `benches/README.md`). A fifth of a second more on
    /// the way to the charts.
    fn pacing(&self) -> (usize, Duration) {
        (4096, Duration::from_millis(200))
    }

    async fn visitors_between(
        &self,
        project_id: Uuid,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<i64> {
        reads::visitors_between(&self.client, project_id, (from, to), filters).await
    }

    async fn first_day(&self, project_id: Uuid) -> AppResult<Option<NaiveDate>> {
        #[derive(serde::Deserialize)]
        struct First {
            day: String,
            n: u64,
        }
        let rows: Vec<First> = self
            .client
            .rows(&format!(
                "SELECT toString(min(day)) AS day, count() AS n FROM events WHERE project_id = {}",
                client::quote(&project_id.to_string())
            ))
            .await
            .map_err(reads::failed)?;
        Ok(rows
            .first()
            .filter(|f| f.n > 0)
            .and_then(|f| f.day.parse().ok()))
    }

    async fn funnel(&self, funnel: &Funnel, query: &ReadQuery) -> AppResult<FunnelReport> {
        let read = Read::open(&self.client, funnel.project_id, query).await?;
        funnels::funnel(&read, funnel).await
    }
}

/// Rows named for their dimension (`{"page": ..., "views", "visitors"}`).
fn named<T: From<(String, i64, i64)>>(rows: Vec<Row>) -> Vec<T> {
    rows.into_iter()
        .map(|r| T::from((r.key, r.views, r.visitors)))
        .collect()
}

impl Read<'_> {
    async fn report<T: From<(String, i64, i64)>>(&self, dim: Dim) -> AppResult<Breakdown<T>> {
        Ok(Breakdown {
            period: self.period(),
            data: named(reads::breakdown(self, dim).await?),
        })
    }

    async fn three(&self, dims: [Dim; 3]) -> AppResult<[Vec<Row>; 3]> {
        let (a, b, c) = tokio::try_join!(
            reads::breakdown(self, dims[0]),
            reads::breakdown(self, dims[1]),
            reads::breakdown(self, dims[2]),
        )?;
        Ok([a, b, c])
    }
}

#[async_trait]
impl Reader for Read<'_> {
    async fn overview(&self) -> AppResult<Overview> {
        visits::overview(self).await
    }
    async fn timeseries(&self) -> AppResult<Timeseries> {
        reads::timeseries(self).await
    }
    async fn pages(&self) -> AppResult<Breakdown<PageRow>> {
        // The days holding engagement events are found beside the breakdown, whose pages the
        // medians are read for.
        let (mut pages, engaged) = tokio::try_join!(
            self.report::<PageRow>(Dim::Page),
            self.holding(crate::engagement::EVENT)
        )?;
        if let Some(engaged) = engaged {
            let paths: Vec<String> = pages.data.iter().map(|p| p.page.clone()).collect();
            crate::engagement::apply(
                &mut pages.data,
                &engagement::medians(&engaged, &paths).await?,
            );
        }
        Ok(pages)
    }
    async fn journeys(&self, page: &str) -> AppResult<Journeys> {
        journeys::journeys(self, page).await
    }
    async fn revenue(&self, currency: &str) -> AppResult<RevenueSums> {
        reads::revenue(self, currency).await
    }
    async fn conversions(
        &self,
        dims: &[Dim],
        reached: &Filters,
        currency: Option<&str>,
    ) -> AppResult<Vec<Vec<Converted>>> {
        conversions::conversions(self, dims, reached, currency).await
    }
    async fn entry_pages(&self) -> AppResult<Breakdown<VisitPageRow>> {
        visits::visit_pages(self, false).await
    }
    async fn exit_pages(&self) -> AppResult<Breakdown<VisitPageRow>> {
        visits::visit_pages(self, true).await
    }
    async fn referrers(&self) -> AppResult<Breakdown<ReferrerRow>> {
        self.report(Dim::Referrer).await
    }
    async fn countries(&self) -> AppResult<Breakdown<CountryRow>> {
        self.report(Dim::Country).await
    }
    async fn devices(&self) -> AppResult<Devices> {
        let [devices, browsers, oses] = self.three([Dim::Device, Dim::Browser, Dim::Os]).await?;
        Ok(Devices {
            period: self.period(),
            data: named(devices),
            browsers: named(browsers),
            operating_systems: named(oses),
        })
    }
    async fn utm(&self) -> AppResult<Utm> {
        let [sources, mediums, campaigns] = self
            .three([Dim::UtmSource, Dim::UtmMedium, Dim::UtmCampaign])
            .await?;
        Ok(Utm {
            period: self.period(),
            sources: named(sources),
            mediums: named(mediums),
            campaigns: named(campaigns),
        })
    }
    async fn events(&self) -> AppResult<Breakdown<EventRow>> {
        let rows = reads::breakdown(self, Dim::Event).await?;
        Ok(crate::figures::events(self.period(), rows))
    }
    async fn breakdown(&self, dim: Dim) -> AppResult<Vec<Row>> {
        reads::breakdown(self, dim).await
    }
    async fn visitors(&self) -> AppResult<i64> {
        Ok(reads::totals(self).await?.1)
    }
    async fn properties(&self, event: &str, property: &str) -> AppResult<Breakdown<PropertyRow>> {
        reads::properties(self, event, property).await
    }
}
