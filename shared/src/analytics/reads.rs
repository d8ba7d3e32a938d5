//! The dashboard's aggregates over a period. Visitors are counted per day (the visitor hash
//! changes with the daily salt), so a period's unique visitors are the sum of daily ones.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventRow, Interval, Overview, PageRow, Point, ReferrerRow,
    Timeseries, Utm,
};
use sqlx::PgPool;
use uuid::Uuid;

use super::rollup;
use crate::{AppError, AppResult};

pub use shipmate_types::analytics::Period;

/// The read endpoints, as `/v1/analytics/{name}`.
pub const ENDPOINTS: [&str; 8] = [
    "overview",
    "pages",
    "referrers",
    "countries",
    "devices",
    "events",
    "timeseries",
    "utm",
];

/// Where a read looks: daily summaries up to `raw_from`, raw events from it on. A period is that
/// many UTC days, today included. The summaries usually reach to a few seconds ago; the raw events
/// since are counted as a summary pass would count them (`rollup::pass`).
struct Window {
    start: NaiveDate,
    raw_from: DateTime<Utc>,
}

impl Window {
    async fn of(db: &PgPool, period: Period) -> AppResult<Self> {
        let start = Utc::now().date_naive() - Duration::days(period.days() - 1);
        let start_ts = rollup::bounds(start).0;
        let raw_from = rollup::covered_until(db)
            .await?
            .map_or(start_ts, |c| c.max(start_ts));
        Ok(Window { start, raw_from })
    }

    /// Binds `$2` (first day) and `$3` (`raw_from`) after the project (`$1`).
    fn bind<'q, O>(
        &'q self,
        query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
        project_id: Uuid,
    ) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
        query.bind(project_id).bind(self.start).bind(self.raw_from)
    }
}

/// The summary rows of `dim` that a read takes (see `Window`), per value, or per day and value
/// when `by_day`.
fn summaries(dim: &str, by_day: bool) -> String {
    let (day, group) = if by_day {
        ("day", "day, value")
    } else {
        ("null::date", "value")
    };
    format!(
        "select {day} as day, value, sum(views) as views, sum(visitors) as visitors from analytics_daily
         where project_id = $1 and dim = '{dim}' and day >= $2 and day::timestamp at time zone 'UTC' < $3
         group by {group}"
    )
}

/// What the project's raw events since `raw_from` add to `dim`, per value (and per day or hour
/// when `by_since`).
fn tail(dim: &str, by_since: bool) -> String {
    rollup::pass(
        &[dim],
        "e.project_id = $1 and e.ts >= $3",
        "$3",
        by_since,
        true,
    )
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Row {
    pub key: String,
    pub views: i64,
    pub visitors: i64,
}

/// Views and visitors per value of one dimension, largest first: summaries plus the raw events
/// since, each day's visitors counted on their own (the daily salt).
async fn breakdown(
    db: &PgPool,
    window: &Window,
    project_id: Uuid,
    dim: &'static str,
) -> AppResult<Vec<Row>> {
    let (summaries, tail) = (summaries(dim, false), tail(dim, false));
    let query = format!(
        "select key, sum(views)::int8 as views, sum(visitors)::int8 as visitors from (
            select value as key, views, visitors from ({summaries}) s
            union all
            select value, views, visitors from ({tail}) t
         ) x group by key order by views desc, visitors desc, key limit 100"
    );
    Ok(window
        .bind(sqlx::query_as::<_, Row>(&query), project_id)
        .fetch_all(db)
        .await?)
}

/// One breakdown as a read of its own.
async fn single(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
    dim: &'static str,
) -> AppResult<Vec<Row>> {
    let window = Window::of(db, period).await?;
    breakdown(db, &window, project_id, dim).await
}

/// Rows named for their dimension (`{"page": ..., "views", "visitors"}`).
fn rows<T: From<(String, i64, i64)>>(rows: Vec<Row>) -> Vec<T> {
    rows.into_iter()
        .map(|r| T::from((r.key, r.views, r.visitors)))
        .collect()
}

async fn report<T: From<(String, i64, i64)>>(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
    dim: &'static str,
) -> AppResult<Breakdown<T>> {
    Ok(Breakdown {
        period,
        data: rows(single(db, project_id, period, dim).await?),
    })
}

/// The three parts run at once, each on its own connection.
pub async fn overview(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Overview> {
    let window = Window::of(db, period).await?;
    let (summaries, tail) = (summaries("total", false), tail("total", false));
    let query = format!(
        "select coalesce(sum(views), 0)::int8, coalesce(sum(visitors), 0)::int8 from (
            select views, visitors from ({summaries}) s
            union all
            select views, visitors from ({tail}) t
         ) x"
    );
    let totals = window
        .bind(sqlx::query_as::<_, (i64, i64)>(&query), project_id)
        .fetch_one(db);
    let ((page_views, unique_visitors), pages, referrers) = tokio::try_join!(
        async { Ok::<_, AppError>(totals.await?) },
        breakdown(db, &window, project_id, "page"),
        breakdown(db, &window, project_id, "referrer"),
    )?;
    let top = |rows: Vec<Row>| rows.into_iter().next().map(|r| r.key);
    Ok(Overview {
        period,
        page_views,
        unique_visitors,
        top_page: top(pages),
        top_referrer: top(referrers),
    })
}

pub async fn pages(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Breakdown<PageRow>> {
    report(db, project_id, period, "page").await
}

pub async fn referrers(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
) -> AppResult<Breakdown<ReferrerRow>> {
    report(db, project_id, period, "referrer").await
}

pub async fn countries(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
) -> AppResult<Breakdown<CountryRow>> {
    report(db, project_id, period, "country").await
}

/// Three breakdowns over one window, read at once.
async fn three(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
    dims: [&'static str; 3],
) -> AppResult<[Vec<Row>; 3]> {
    let window = Window::of(db, period).await?;
    let (a, b, c) = tokio::try_join!(
        breakdown(db, &window, project_id, dims[0]),
        breakdown(db, &window, project_id, dims[1]),
        breakdown(db, &window, project_id, dims[2]),
    )?;
    Ok([a, b, c])
}

pub async fn devices(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Devices> {
    let [devices, browsers, oses] =
        three(db, project_id, period, ["device", "browser", "os"]).await?;
    Ok(Devices {
        period,
        data: rows(devices),
        browsers: rows(browsers),
        operating_systems: rows(oses),
    })
}

pub async fn utm(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Utm> {
    let [sources, mediums, campaigns] = three(
        db,
        project_id,
        period,
        ["utm_source", "utm_medium", "utm_campaign"],
    )
    .await?;
    Ok(Utm {
        period,
        sources: rows(sources),
        mediums: rows(mediums),
        campaigns: rows(campaigns),
    })
}

/// Every event name, `page_view` included, with its count and visitors.
pub async fn events(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
) -> AppResult<Breakdown<EventRow>> {
    let data = single(db, project_id, period, "event")
        .await?
        .into_iter()
        .map(|r| EventRow {
            name: r.key,
            count: r.views,
            visitors: r.visitors,
        })
        .collect();
    Ok(Breakdown { period, data })
}

/// Page views and visitors per day (per hour for 7d), with empty buckets filled with zeros.
pub async fn timeseries(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Timeseries> {
    let interval = if period == Period::Days7 {
        Interval::Hour
    } else {
        Interval::Day
    };
    let unit = interval.as_str();
    let window = Window::of(db, period).await?;
    // A summary row's bucket: its day, plus its hour for hourly series.
    let (dim, offset) = if unit == "hour" {
        ("hour", "make_interval(hours => value::int)")
    } else {
        ("total", "interval '0'")
    };
    let (summaries, tail) = (summaries(dim, true), tail(dim, true));
    let query = format!(
        "with buckets as (
            select generate_series(date_trunc('{unit}', $4::timestamptz, 'UTC'), date_trunc('{unit}', now(), 'UTC'), interval '1 {unit}') as bucket
         ), points as (
            select (day::timestamp at time zone 'UTC') + {offset} as bucket, views, visitors from ({summaries}) s
            union all
            select since, views, visitors from ({tail}) t
         )
         select b.bucket, coalesce(sum(p.views), 0)::int8, coalesce(sum(p.visitors), 0)::int8
         from buckets b left join points p on p.bucket = b.bucket
         group by b.bucket order by b.bucket"
    );
    let points: Vec<(DateTime<Utc>, i64, i64)> = window
        .bind(sqlx::query_as(&query), project_id)
        .bind(rollup::bounds(window.start).0)
        .fetch_all(db)
        .await?;
    let data = points
        .into_iter()
        .map(|(date, views, visitors)| Point {
            date,
            views,
            visitors,
        })
        .collect();
    Ok(Timeseries {
        period,
        interval,
        data,
    })
}
