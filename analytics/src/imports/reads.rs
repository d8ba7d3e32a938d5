//! Imported days in the reads, above the store seam (so both stores answer alike): a read without
//! filters gets the store's answer plus the imported figures of its days before the project's
//! first own event (days with own events keep them). Counts add up; the bounce rate is taken over
//! both; the visit duration is the visit-weighted mean of the own median and the imported average
//! (Plausible's export keeps only total seconds). Hourly series, filtered reads, properties,
//! goals, funnels and journeys are the own events' alone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use shipmate_core::AppResult;
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventRow, Figures, FunnelReport, Interval, Journeys, Overview,
    PageRow, PropertyRow, Ranked, Realtime, ReferrerRow, Timeseries, Utm, VisitPageRow,
};
use sqlx::PgPool;
use uuid::Uuid;

use super::Kind;
use crate::query::{percent, Dim, Filters, Range, ReadQuery};
use crate::seam::{Batch, Converted, EventStore, Reader, RevenueSums, Row};
use shipmate_types::analytics::Funnel;

/// An event store whose reads add the project's imported days.
pub struct WithImports {
    inner: Arc<dyn EventStore>,
    db: PgPool,
    /// Each project's first own day, as last looked up.
    first: Mutex<HashMap<Uuid, (Instant, Option<NaiveDate>)>>,
}

impl WithImports {
    pub fn new(inner: Arc<dyn EventStore>, db: PgPool) -> Self {
        WithImports {
            inner,
            db,
            first: Mutex::default(),
        }
    }

    /// The project's first day with own events. A known one never moves later (events arrive
    /// with the time they arrive), so it is kept for minutes; "none yet" for seconds.
    async fn first_own(&self, project_id: Uuid) -> AppResult<Option<NaiveDate>> {
        let kept = |e: &(Instant, Option<NaiveDate>)| {
            let ttl = if e.1.is_some() { 600 } else { 5 };
            e.0.elapsed() < Duration::from_secs(ttl)
        };
        if let Some(e) = self.lock().get(&project_id).filter(|e| kept(e)) {
            return Ok(e.1);
        }
        let day = self.inner.first_day(project_id).await?;
        self.lock().insert(project_id, (Instant::now(), day));
        Ok(day)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, (Instant, Option<NaiveDate>)>> {
        self.first.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The imported days of `range` the reads add: before the first own day.
    async fn span(&self, project_id: Uuid, range: &Range) -> AppResult<Option<Span>> {
        let bounds = sqlx::query!(
            "select min(greatest(from_day, $2)) as first, max(least(to_day, $3)) as last
             from analytics_imports
             where project_id = $1 and status = 'done' and from_day <= $3 and to_day >= $2",
            project_id,
            range.start,
            range.end
        )
        .fetch_one(&self.db)
        .await?;
        let (Some(first), Some(mut last)) = (bounds.first, bounds.last) else {
            return Ok(None);
        };
        if let Some(own) = self.first_own(project_id).await? {
            match own.pred_opt() {
                Some(before) => last = last.min(before),
                None => return Ok(None),
            }
        }
        Ok((first <= last).then_some(Span {
            project_id,
            first,
            last,
        }))
    }
}

/// A project's imported days a read adds.
#[derive(Clone, Copy)]
struct Span {
    project_id: Uuid,
    first: NaiveDate,
    last: NaiveDate,
}

#[async_trait]
impl EventStore for WithImports {
    async fn label_ids(&self, labels: &[String]) -> AppResult<HashMap<String, i16>> {
        self.inner.label_ids(labels).await
    }
    async fn already_stored(&self, entries: &[i64]) -> AppResult<std::collections::HashSet<i64>> {
        self.inner.already_stored(entries).await
    }
    async fn insert(&self, batch: Batch<'_>) -> AppResult<()> {
        self.inner.insert(batch).await
    }
    async fn forget_replays(&self, bound: i64) -> AppResult<u64> {
        self.inner.forget_replays(bound).await
    }
    async fn upkeep(&self, upto: DateTime<Utc>) -> AppResult<usize> {
        self.inner.upkeep(upto).await
    }
    async fn reader<'a>(
        &'a self,
        project_id: Uuid,
        query: &'a ReadQuery,
    ) -> AppResult<Box<dyn Reader + 'a>> {
        let inner = self.inner.reader(project_id, query).await?;
        if !query.filters.0.is_empty() {
            return Ok(inner);
        }
        let span = self.span(project_id, &query.range).await?;
        let previous = match query.compare {
            true => self.span(project_id, &query.previous().range).await?,
            false => None,
        };
        if span.is_none() && previous.is_none() {
            return Ok(inner);
        }
        Ok(Box::new(Imported {
            inner,
            db: &self.db,
            span,
            previous,
        }))
    }
    async fn realtime(
        &self,
        project_id: Uuid,
        now: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<Realtime> {
        self.inner.realtime(project_id, now, filters).await
    }
    async fn visitors_between(
        &self,
        project_id: Uuid,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        filters: &Filters,
    ) -> AppResult<i64> {
        self.inner
            .visitors_between(project_id, from, to, filters)
            .await
    }
    async fn funnel(&self, funnel: &Funnel, query: &ReadQuery) -> AppResult<FunnelReport> {
        self.inner.funnel(funnel, query).await
    }
    async fn first_day(&self, project_id: Uuid) -> AppResult<Option<NaiveDate>> {
        self.inner.first_day(project_id).await
    }
    async fn reachable(&self) -> Option<bool> {
        self.inner.reachable().await
    }
    fn pacing(&self) -> (usize, Duration) {
        self.inner.pacing()
    }
}

/// A read with imported days.
struct Imported<'a> {
    inner: Box<dyn Reader + 'a>,
    db: &'a PgPool,
    span: Option<Span>,
    previous: Option<Span>,
}

impl Imported<'_> {
    /// The imported rows of one kind, largest first, 100 at most: (value, count, visitors), the
    /// count being visits for entry and exit pages, views (occurrences for events) otherwise.
    async fn rows(&self, kind: Kind) -> AppResult<Vec<(String, i64, i64)>> {
        let Some(s) = self.span else {
            return Ok(Vec::new());
        };
        let rows = sqlx::query!(
            r#"select key, sum(case when kind in (2, 3) then visits else views end)::int8 as "count!",
                      sum(visitors)::int8 as "visitors!"
               from analytics_imported
               where project_id = $1 and kind = $2 and day between $3 and $4
               group by key order by 2 desc, 3 desc, key limit 100"#,
            s.project_id,
            kind as i16,
            s.first,
            s.last
        )
        .fetch_all(self.db)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| (r.key, r.count, r.visitors))
            .collect())
    }

    async fn merged<T: Ranked>(&self, mut rows: Vec<T>, kind: Kind) -> AppResult<Vec<T>> {
        merge(&mut rows, self.rows(kind).await?);
        Ok(rows)
    }

    async fn ranked<T: Ranked>(&self, b: Breakdown<T>, kind: Kind) -> AppResult<Breakdown<T>> {
        Ok(Breakdown {
            period: b.period,
            data: self.merged(b.data, kind).await?,
        })
    }
}

/// The day totals of a span: visitors, views, visits, bounces, seconds.
async fn totals(db: &PgPool, span: Option<Span>) -> AppResult<Option<super::Figures>> {
    let Some(s) = span else {
        return Ok(None);
    };
    let t = sqlx::query!(
        r#"select coalesce(sum(visitors), 0)::int8 as "visitors!", coalesce(sum(views), 0)::int8 as "views!",
                  coalesce(sum(visits), 0)::int8 as "visits!", coalesce(sum(bounces), 0)::int8 as "bounces!",
                  coalesce(sum(duration), 0)::int8 as "duration!"
           from analytics_imported where project_id = $1 and kind = 0 and day between $2 and $3"#,
        s.project_id,
        s.first,
        s.last
    )
    .fetch_one(db)
    .await?;
    Ok(Some(super::Figures {
        visitors: t.visitors,
        views: t.views,
        visits: t.visits,
        bounces: t.bounces,
        duration: t.duration,
    }))
}

/// Adds imported rows to a read's rows, keeping them ranked (count, visitors, value), 100 at most.
fn merge<T: Ranked>(rows: &mut Vec<T>, imported: Vec<(String, i64, i64)>) {
    if imported.is_empty() {
        return;
    }
    for (key, count, visitors) in imported {
        match rows.iter_mut().find(|r| r.key() == key) {
            Some(r) => {
                let (c, v) = r.counts();
                *c += count;
                *v += visitors;
            }
            None => rows.push(T::from((key, count, visitors))),
        }
    }
    rows.sort_by(|a, b| {
        (b.count(), b.visitors())
            .cmp(&(a.count(), a.visitors()))
            .then_with(|| a.key().cmp(b.key()))
    });
    rows.truncate(100);
}

/// The overview's figures over own and imported days.
fn combine(own: Figures, imported: Option<super::Figures>) -> Figures {
    let Some(i) = imported else {
        return own;
    };
    let visits = own.visits + i.visits;
    let own_bounces = (own.bounce_rate * own.visits as f64 / 100.0).round() as i64;
    let duration = match visits {
        0 => 0,
        v => ((own.visit_duration * own.visits + i.duration) as f64 / v as f64).round() as i64,
    };
    Figures {
        page_views: own.page_views + i.views,
        unique_visitors: own.unique_visitors + i.visitors,
        visits,
        bounce_rate: percent(own_bounces + i.bounces, visits),
        visit_duration: duration,
    }
}

#[async_trait]
impl Reader for Imported<'_> {
    async fn overview(&self) -> AppResult<Overview> {
        let (mut o, now, before) = tokio::try_join!(
            self.inner.overview(),
            totals(self.db, self.span),
            totals(self.db, self.previous),
        )?;
        let f = combine(
            Figures {
                page_views: o.page_views,
                unique_visitors: o.unique_visitors,
                visits: o.visits,
                bounce_rate: o.bounce_rate,
                visit_duration: o.visit_duration,
            },
            now,
        );
        (o.page_views, o.unique_visitors, o.visits) = (f.page_views, f.unique_visitors, f.visits);
        (o.bounce_rate, o.visit_duration) = (f.bounce_rate, f.visit_duration);
        o.previous = o.previous.map(|p| combine(p, before));
        // A range without own page views names the imported days' top page and referrer.
        if o.top_page.is_none() {
            o.top_page = self.rows(Kind::Page).await?.first().map(|r| r.0.clone());
        }
        if o.top_referrer.is_none() {
            o.top_referrer = self
                .rows(Kind::Referrer)
                .await?
                .first()
                .map(|r| r.0.clone());
        }
        Ok(o)
    }
    async fn timeseries(&self) -> AppResult<Timeseries> {
        let mut series = self.inner.timeseries().await?;
        let (Some(s), Interval::Day) = (self.span, series.interval) else {
            return Ok(series);
        };
        let days = sqlx::query!(
            r#"select day, sum(views)::int8 as "views!", sum(visitors)::int8 as "visitors!"
               from analytics_imported where project_id = $1 and kind = 0 and day between $2 and $3
               group by day"#,
            s.project_id,
            s.first,
            s.last
        )
        .fetch_all(self.db)
        .await?;
        let by_day: HashMap<NaiveDate, (i64, i64)> = days
            .into_iter()
            .map(|d| (d.day, (d.views, d.visitors)))
            .collect();
        for p in &mut series.data {
            if let Some((views, visitors)) = by_day.get(&p.date.date_naive()) {
                p.views += views;
                p.visitors += visitors;
            }
        }
        Ok(series)
    }
    async fn pages(&self) -> AppResult<Breakdown<PageRow>> {
        self.ranked(self.inner.pages().await?, Kind::Page).await
    }
    async fn entry_pages(&self) -> AppResult<Breakdown<VisitPageRow>> {
        self.ranked(self.inner.entry_pages().await?, Kind::Entry)
            .await
    }
    async fn exit_pages(&self) -> AppResult<Breakdown<VisitPageRow>> {
        self.ranked(self.inner.exit_pages().await?, Kind::Exit)
            .await
    }
    async fn referrers(&self) -> AppResult<Breakdown<ReferrerRow>> {
        self.ranked(self.inner.referrers().await?, Kind::Referrer)
            .await
    }
    async fn countries(&self) -> AppResult<Breakdown<CountryRow>> {
        self.ranked(self.inner.countries().await?, Kind::Country)
            .await
    }
    async fn devices(&self) -> AppResult<Devices> {
        let d = self.inner.devices().await?;
        Ok(Devices {
            period: d.period,
            data: self.merged(d.data, Kind::Device).await?,
            browsers: self.merged(d.browsers, Kind::Browser).await?,
            operating_systems: self.merged(d.operating_systems, Kind::Os).await?,
        })
    }
    async fn utm(&self) -> AppResult<Utm> {
        let u = self.inner.utm().await?;
        Ok(Utm {
            period: u.period,
            sources: self.merged(u.sources, Kind::UtmSource).await?,
            mediums: self.merged(u.mediums, Kind::UtmMedium).await?,
            campaigns: self.merged(u.campaigns, Kind::UtmCampaign).await?,
        })
    }
    async fn events(&self) -> AppResult<Breakdown<EventRow>> {
        let b = self.inner.events().await?;
        let mut imported = self.rows(Kind::Event).await?;
        if let Some(t) = totals(self.db, self.span).await?.filter(|t| t.views > 0) {
            imported.push(("page_view".into(), t.views, t.visitors));
        }
        let mut data = b.data;
        merge(&mut data, imported);
        Ok(Breakdown {
            period: b.period,
            data,
        })
    }
    async fn breakdown(&self, dim: Dim) -> AppResult<Vec<Row>> {
        self.inner.breakdown(dim).await
    }
    async fn visitors(&self) -> AppResult<i64> {
        self.inner.visitors().await
    }
    async fn properties(&self, event: &str, property: &str) -> AppResult<Breakdown<PropertyRow>> {
        self.inner.properties(event, property).await
    }
    async fn revenue(&self, currency: &str) -> AppResult<RevenueSums> {
        self.inner.revenue(currency).await
    }
    async fn journeys(&self, page: &str) -> AppResult<Journeys> {
        self.inner.journeys(page).await
    }
    async fn conversions(
        &self,
        dims: &[Dim],
        reached: &Filters,
        currency: Option<&str>,
    ) -> AppResult<Vec<Vec<Converted>>> {
        self.inner.conversions(dims, reached, currency).await
    }
}
