//! The dashboard's aggregates over a period. Visitors are counted per day (the visitor hash
//! changes with the daily salt), so a period's unique visitors are the sum of daily ones.

use chrono::{DateTime, Duration, Utc};
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, Figures, Interval, Overview, Point, PropertyRow, ReferrerRow,
    Timeseries, Utm, VisitPageRow,
};
use sqlx::PgPool;
use uuid::Uuid;

use super::explore::{self, scan, Snapshot};
use super::visits;
use super::window::{daily_summaries, reach, summaries, tail, weekly_or_daily, Window};
use crate::figures::VisitFigures;
use crate::query::{Dim, Filters, ReadQuery};
use crate::seam::Row;
use shipmate_core::AppResult;

pub use shipmate_types::analytics::Period;

/// The read endpoints, as `/v1/analytics/{name}`.
pub const ENDPOINTS: [&str; 10] = [
    "overview",
    "pages",
    "referrers",
    "countries",
    "devices",
    "events",
    "timeseries",
    "utm",
    "entry-pages",
    "exit-pages",
];

/// One read: the project, what was asked, and where to look.
pub struct Read<'a> {
    pub(super) db: &'a PgPool,
    project_id: Uuid,
    query: &'a ReadQuery,
    window: Window,
    /// A filtered read's events in memory, taken once for all its parts.
    events: tokio::sync::OnceCell<Snapshot>,
}

impl<'a> Read<'a> {
    pub async fn new(db: &'a PgPool, project_id: Uuid, query: &'a ReadQuery) -> AppResult<Self> {
        Ok(Read {
            db,
            project_id,
            query,
            window: Window::of(db, &query.range).await?,
            events: tokio::sync::OnceCell::new(),
        })
    }

    /// The range's events in memory, and the filters as their codes.
    pub(super) async fn explore(&self) -> AppResult<(&Snapshot, scan::Matcher)> {
        let events = self
            .events
            .get_or_try_init(|| {
                let range = &self.query.range;
                Snapshot::take(
                    self.db,
                    self.project_id,
                    range.start,
                    range.end,
                    self.window.until,
                )
            })
            .await?;
        Ok((events, events.matcher(self.filters())))
    }

    pub(super) fn period(&self) -> Period {
        self.query.range.period
    }

    pub(super) fn filters(&self) -> &Filters {
        &self.query.filters
    }

    /// Binds a raw read's `$1` (project), `$2` (first instant), `$3` (`until`) and the
    /// filter values from `$4` on.
    pub(super) fn bind_raw<'q, O>(
        &'q self,
        query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
    ) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
        let query = query
            .bind(self.project_id)
            .bind(self.query.range.from_ts())
            .bind(self.window.until);
        self.filters().values().fold(query, |q, v| q.bind(v))
    }
}

/// The matching raw events of a read of properties (`e`, bound by `Read::bind_raw`).
pub(super) fn matching(filters: &Filters) -> String {
    format!(
        "analytics_events e where e.project_id = $1 and e.ts >= $2 and e.ts < $3{}",
        filters.sql(4)
    )
}

/// Views and visitors per value of one dimension, largest first. Unfiltered: summaries plus the
/// raw events since, each day's visitors counted on their own (the daily salt). Filtered: the
/// matching events in memory, visitors counted per day likewise.
pub async fn breakdown(read: &Read<'_>, dim: Dim) -> AppResult<Vec<Row>> {
    if !read.filters().is_empty() {
        let (events, filters) = read.explore().await?;
        let Some(filters) = filters else {
            return Ok(Vec::new());
        };
        let col = explore::column(dim);
        let rows = events
            .run(move |days, codes| scan::breakdown(days, codes, &filters, col))
            .await?;
        return Ok(events
            .named(rows)
            .into_iter()
            .map(|(key, views, visitors)| Row {
                key,
                views,
                visitors,
            })
            .collect());
    }
    let (summaries, tail) = (
        summaries(dim.param(), read.window.weeks()),
        tail(dim.param(), false),
    );
    let query = format!(
        "select key, sum(views)::int8 as views, sum(visitors)::int8 as visitors from (
            select value as key, views, visitors from ({summaries}) s
            union all
            select value, views, visitors from ({tail}) t
         ) x group by key order by views desc, visitors desc, key limit 100"
    );
    Ok(read
        .window
        .bind(sqlx::query_as::<_, Row>(&query), read.project_id)
        .fetch_all(read.db)
        .await?)
}

/// Page views and visitors (with any event) of the range.
async fn totals(read: &Read<'_>) -> AppResult<(i64, i64)> {
    if !read.filters().is_empty() {
        let (events, filters) = read.explore().await?;
        let Some(filters) = filters else {
            return Ok((0, 0));
        };
        return events
            .run(move |days, _| scan::totals(days, &filters))
            .await;
    }
    let (summaries, tail) = (
        summaries("total", read.window.weeks()),
        tail("total", false),
    );
    let query = format!(
        "select coalesce(sum(views), 0)::int8, coalesce(sum(visitors), 0)::int8 from (
            select views, visitors from ({summaries}) s
            union all
            select views, visitors from ({tail}) t
         ) x"
    );
    Ok(read
        .window
        .bind(sqlx::query_as(&query), read.project_id)
        .fetch_one(read.db)
        .await?)
}

/// Rows named for their dimension (`{"page": ..., "views", "visitors"}`).
fn rows<T: From<(String, i64, i64)>>(rows: Vec<Row>) -> Vec<T> {
    rows.into_iter()
        .map(|r| T::from((r.key, r.views, r.visitors)))
        .collect()
}

pub(super) async fn report<T: From<(String, i64, i64)>>(
    read: &Read<'_>,
    dim: Dim,
) -> AppResult<Breakdown<T>> {
    Ok(Breakdown {
        period: read.period(),
        data: rows(breakdown(read, dim).await?),
    })
}

/// Binds an unfiltered visit read's parameters: `$1` project, `$2` first instant, `$3` `until`,
/// `$4` the summaries' reach as read first (each statement takes its own from it,
/// `window::reach`), `$5` and `$6` the first and last day whose summaries count.
fn bind_visits<'q, O>(
    read: &'q Read<'_>,
    query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
    query
        .bind(read.project_id)
        .bind(read.query.range.from_ts())
        .bind(read.window.until)
        .bind(read.window.raw_from)
        .bind(read.window.start)
        .bind(read.window.end)
}

/// Summary rows of a visit dimension (of one of its values, if given), as `columns` of (value,
/// views, visitors): weekly for the complete weeks of the range, daily for its other days.
fn closed(read: &Read<'_>, dim: &str, value: Option<&str>, columns: &str) -> String {
    let which = match value {
        Some(value) => format!("dim = '{dim}' and value = '{value}'"),
        None => format!("dim = '{dim}'"),
    };
    let rows = weekly_or_daily(&which, ("$5", "$6"), None, read.window.weeks());
    format!("union all select {columns} from ({rows}) c")
}

/// An unfiltered read's visits: one pass over the counted visits, plus the closed days' duration
/// histograms and bounced visits: rows of (seconds, visits, bounced), the bounces of closed days
/// on a row of their own (seconds -1). Filtered reads count them in memory (`scan::overview`).
async fn visit_figures(read: &Read<'_>) -> AppResult<VisitFigures> {
    let counted = visits::counted(&reach("$4"));
    let (durations, bounced) = (
        closed(read, "visit_duration", None, "value::int8, views, 0::int8"),
        closed(read, "visits", Some("bounced"), "-1::int8, 0::int8, views"),
    );
    let query = format!(
        "select seconds, sum(n)::int8, sum(b)::int8 from (
            select {duration} as seconds, 1::int8 as n, (page_views = 1)::int4::int8 as b
            from ({counted}) v where page_views > 0
            {durations} {bounced}
         ) x group by seconds order by seconds",
        duration = visits::DURATION,
    );
    let rows: Vec<(i64, i64, i64)> = bind_visits(read, sqlx::query_as(&query))
        .fetch_all(read.db)
        .await?;
    let mut figures = VisitFigures::default();
    for (seconds, n, bounced) in rows {
        figures.bounced += bounced;
        if seconds >= 0 {
            figures.visits += n;
            figures.durations.push((seconds, n));
        }
    }
    Ok(figures)
}

/// Visits and visitors per entry (or exit) page, most visits first.
async fn visit_pages(read: &Read<'_>, exit: bool) -> AppResult<Breakdown<VisitPageRow>> {
    let rows: Vec<(String, i64, i64)> = if read.filters().is_empty() {
        let (column, dim) = if exit {
            ("exit", "exit_page")
        } else {
            ("entry", "entry_page")
        };
        let counted = visits::counted(&reach("$4"));
        let closed = closed(read, dim, None, "value, views, visitors");
        let query = format!(
            "select page, sum(visits)::int8, sum(visitors)::int8 from (
                select {column} as page, count(*) as visits, count(distinct visitor) as visitors
                from ({counted}) v where page_views > 0 and {column} is not null group by 1
                {closed}
             ) x group by page order by 2 desc, 3 desc, page limit 100"
        );
        bind_visits(read, sqlx::query_as(&query))
            .fetch_all(read.db)
            .await?
    } else {
        let (events, filters) = read.explore().await?;
        match filters {
            None => Vec::new(),
            Some(filters) => events.named(
                events
                    .run(move |days, codes| scan::visit_pages(days, codes, &filters, exit))
                    .await?,
            ),
        }
    };
    Ok(Breakdown {
        period: read.period(),
        data: rows
            .into_iter()
            .map(|(page, visits, visitors)| VisitPageRow {
                page,
                visits,
                visitors,
            })
            .collect(),
    })
}

pub async fn entry_pages(read: &Read<'_>) -> AppResult<Breakdown<VisitPageRow>> {
    visit_pages(read, false).await
}

pub async fn exit_pages(read: &Read<'_>) -> AppResult<Breakdown<VisitPageRow>> {
    visit_pages(read, true).await
}

/// The overview's numbers: filtered, in one pass over the events in memory; otherwise each part
/// on its own connection at once.
async fn figures(read: &Read<'_>) -> AppResult<crate::figures::Figured> {
    if !read.filters().is_empty() {
        return filtered_figures(read).await;
    }
    let ((page_views, unique_visitors), pages, referrers, visits) = tokio::try_join!(
        totals(read),
        breakdown(read, Dim::Page),
        breakdown(read, Dim::Referrer),
        visit_figures(read),
    )?;
    let top = |rows: Vec<Row>| rows.into_iter().next().map(|r| r.key);
    Ok((
        visits.of(page_views, unique_visitors),
        top(pages),
        top(referrers),
    ))
}

async fn filtered_figures(read: &Read<'_>) -> AppResult<(Figures, Option<String>, Option<String>)> {
    let (events, filters) = read.explore().await?;
    let Some(filters) = filters else {
        return Ok((VisitFigures::default().of(0, 0), None, None));
    };
    let o = events
        .run(move |days, codes| scan::overview(days, codes, &filters))
        .await?;
    let top = |rows| events.named(rows).into_iter().next().map(|r| r.0);
    let (visits, bounced, durations) = o.visits;
    let visits = VisitFigures {
        visits,
        bounced,
        durations,
    };
    Ok((
        visits.of(o.totals.0, o.totals.1),
        top(o.pages),
        top(o.referrers),
    ))
}

/// The range's figures, and with `compare` the same for the range before, read at once.
pub async fn overview(read: &Read<'_>) -> AppResult<Overview> {
    let before = read.query.previous();
    let previous = async {
        if !read.query.compare {
            return Ok(None);
        }
        let before = Read::new(read.db, read.project_id, &before).await?;
        Ok(Some(figures(&before).await?.0))
    };
    let (now, previous) = tokio::try_join!(figures(read), previous)?;
    Ok(crate::figures::overview(read.period(), now, previous))
}

pub async fn referrers(read: &Read<'_>) -> AppResult<Breakdown<ReferrerRow>> {
    report(read, Dim::Referrer).await
}

pub async fn countries(read: &Read<'_>) -> AppResult<Breakdown<CountryRow>> {
    report(read, Dim::Country).await
}

/// Three breakdowns over one window, read at once.
async fn three(read: &Read<'_>, dims: [Dim; 3]) -> AppResult<[Vec<Row>; 3]> {
    let (a, b, c) = tokio::try_join!(
        breakdown(read, dims[0]),
        breakdown(read, dims[1]),
        breakdown(read, dims[2]),
    )?;
    Ok([a, b, c])
}

pub async fn devices(read: &Read<'_>) -> AppResult<Devices> {
    let [devices, browsers, oses] = three(read, [Dim::Device, Dim::Browser, Dim::Os]).await?;
    Ok(Devices {
        period: read.period(),
        data: rows(devices),
        browsers: rows(browsers),
        operating_systems: rows(oses),
    })
}

pub async fn utm(read: &Read<'_>) -> AppResult<Utm> {
    let [sources, mediums, campaigns] =
        three(read, [Dim::UtmSource, Dim::UtmMedium, Dim::UtmCampaign]).await?;
    Ok(Utm {
        period: read.period(),
        sources: rows(sources),
        mediums: rows(mediums),
        campaigns: rows(campaigns),
    })
}

/// Visitors of the range with any matching event.
pub async fn visitors(read: &Read<'_>) -> AppResult<i64> {
    Ok(totals(read).await?.1)
}

/// Page views and visitors per day (per hour for ranges of up to 7 days), with empty buckets
/// filled with zeros, up to now.
pub async fn timeseries(read: &Read<'_>) -> AppResult<Timeseries> {
    let interval = if read.query.range.days() <= 7 {
        Interval::Hour
    } else {
        Interval::Day
    };
    let unit = interval.as_str();
    let points: Vec<(DateTime<Utc>, i64, i64)> = if read.filters().is_empty() {
        // A summary row's bucket: its day, plus its hour for hourly series.
        let (dim, offset) = if unit == "hour" {
            ("hour", "make_interval(hours => value::int)")
        } else {
            ("total", "interval '0'")
        };
        let (summaries, tail) = (daily_summaries(dim), tail(dim, true));
        // From the range's first instant ($6) to `until` ($5).
        let buckets = format!(
            "select generate_series(date_trunc('{unit}', $6::timestamptz, 'UTC'), date_trunc('{unit}', $5::timestamptz - interval '1 microsecond', 'UTC'), interval '1 {unit}') as bucket"
        );
        let query = format!(
            "with buckets as ({buckets}), points as (
                select (day::timestamp at time zone 'UTC') + {offset} as bucket, views, visitors from ({summaries}) s
                union all
                select since, views, visitors from ({tail}) t
             )
             select b.bucket, coalesce(sum(p.views), 0)::int8, coalesce(sum(p.visitors), 0)::int8
             from buckets b left join points p on p.bucket = b.bucket
             group by b.bucket order by b.bucket"
        );
        read.window
            .bind(sqlx::query_as(&query), read.project_id)
            .bind(read.query.range.from_ts())
            .fetch_all(read.db)
            .await?
    } else {
        let (events, filters) = read.explore().await?;
        let from = read.query.range.from_ts();
        let step = if unit == "hour" {
            Duration::hours(1)
        } else {
            Duration::days(1)
        };
        let micros = step.num_microseconds().unwrap_or(1);
        // As the SQL series: every bucket that begins before `until`.
        let span = (read.window.until - from).num_microseconds().unwrap_or(0);
        let buckets = ((span - 1).div_euclid(micros) + 1).max(0) as usize;
        let counts = match filters {
            None => vec![(0, 0); buckets],
            Some(filters) => {
                let bucketing = (from.timestamp_micros(), micros, buckets);
                events
                    .run(move |days, _| scan::timeseries(days, &filters, bucketing))
                    .await?
            }
        };
        counts
            .into_iter()
            .zip(0..)
            .map(|((views, visitors), k)| (from + step * k, views, visitors))
            .collect()
    };
    let data = points
        .into_iter()
        .map(|(date, views, visitors)| Point {
            date,
            views,
            visitors,
        })
        .collect();
    Ok(Timeseries {
        period: read.period(),
        interval,
        data,
    })
}

/// A custom property's values on one event name, most frequent first (always from the raw
/// events: properties are not summarised).
pub async fn properties(
    read: &Read<'_>,
    event: &str,
    property: &str,
) -> AppResult<Breakdown<PropertyRow>> {
    let n = 4 + read.filters().0.len();
    let query = format!(
        "select e.properties ->> ${p} as value, count(*)::int8 as count, count(distinct e.visitor)::int8 as visitors
         from {matching} and e.name = ${n} and e.properties ->> ${p} is not null
         group by 1 order by 2 desc, 3 desc, 1 limit 100",
        p = n + 1,
        matching = matching(read.filters())
    );
    let rows: Vec<(String, i64, i64)> = read
        .bind_raw(sqlx::query_as(&query))
        .bind(event)
        .bind(property)
        .fetch_all(read.db)
        .await?;
    Ok(Breakdown {
        period: read.period(),
        data: rows
            .into_iter()
            .map(|(value, count, visitors)| PropertyRow {
                value,
                count,
                visitors,
            })
            .collect(),
    })
}
