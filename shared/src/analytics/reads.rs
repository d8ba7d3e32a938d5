//! The dashboard's aggregates over a period. Visitors are counted per day (the visitor hash
//! changes with the daily salt), so a period's unique visitors are the sum of daily ones.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

use super::rollup;
use crate::{AppError, AppResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Days7,
    Days30,
    Days90,
}

impl Period {
    /// `7d`, `30d` (the default) or `90d`; anything else is a 422.
    pub fn parse(v: Option<&str>) -> AppResult<Self> {
        match v.map(str::trim) {
            None | Some("") | Some("30d") => Ok(Period::Days30),
            Some("7d") => Ok(Period::Days7),
            Some("90d") => Ok(Period::Days90),
            Some(_) => Err(AppError::invalid(
                "validation_failed",
                "period",
                "must be one of: 7d, 30d, 90d",
            )),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Period::Days7 => "7d",
            Period::Days30 => "30d",
            Period::Days90 => "90d",
        }
    }

    fn days(self) -> i64 {
        match self {
            Period::Days7 => 7,
            Period::Days30 => 30,
            Period::Days90 => 90,
        }
    }
}

/// Where a read looks: daily summaries for `[start, cutoff)`, raw events from `cutoff` on (today,
/// and any closed day not summarised yet). A period is that many UTC days, today included.
struct Window {
    start: NaiveDate,
    cutoff: NaiveDate,
}

impl Window {
    async fn of(db: &PgPool, period: Period) -> AppResult<Self> {
        let start = Utc::now().date_naive() - Duration::days(period.days() - 1);
        let rolled = rollup::rolled_through(db).await?;
        let cutoff = rolled.map_or(start, |d| (d + Duration::days(1)).max(start));
        Ok(Window { start, cutoff })
    }

    fn raw_from(&self) -> DateTime<Utc> {
        rollup::bounds(self.cutoff).0
    }
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Row {
    pub key: String,
    pub views: i64,
    pub visitors: i64,
}

/// Views and visitors per value of one dimension, largest first: summaries for closed days plus
/// today's raw events, each day's visitors counted on their own (the daily salt).
async fn breakdown(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
    dim: &'static str,
    column: &'static str,
    page_views_only: bool,
) -> AppResult<Vec<Row>> {
    let window = Window::of(db, period).await?;
    let only = if page_views_only {
        "and name = 'page_view'"
    } else {
        ""
    };
    Ok(sqlx::query_as::<_, Row>(&format!(
        "select key, sum(views)::int8 as views, sum(visitors)::int8 as visitors from (
            select value as key, views, visitors from analytics_daily
            where project_id = $1 and dim = '{dim}' and day >= $2 and day < $3
            union all
            select key, sum(n)::int8, count(*) from (
                select {column} as key, (ts at time zone 'UTC')::date as day, visitor, count(*) as n
                from analytics_events
                where project_id = $1 and ts >= $4 and {column} is not null {only}
                group by 1, 2, 3
            ) per_visitor group by key, day
         ) x group by key order by views desc, visitors desc, key limit 100"
    ))
    .bind(project_id)
    .bind(window.start)
    .bind(window.cutoff)
    .bind(window.raw_from())
    .fetch_all(db)
    .await?)
}

fn rows(rows: Vec<Row>, label: &str) -> Vec<Value> {
    rows.into_iter()
        .map(|r| json!({ label: r.key, "views": r.views, "visitors": r.visitors }))
        .collect()
}

/// The three parts run at once, each on its own connection: a read is mostly today's raw rows,
/// scanned once per part, and the machine's cores can share that.
pub async fn overview(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let window = Window::of(db, period).await?;
    let totals = sqlx::query_as::<_, (i64, i64)>(
        "select coalesce(sum(views), 0)::int8, coalesce(sum(visitors), 0)::int8 from (
            select views, visitors from analytics_daily
            where project_id = $1 and dim = 'total' and day >= $2 and day < $3
            union all
            select count(*) filter (where name = 'page_view'), count(distinct visitor) from analytics_events
            where project_id = $1 and ts >= $4 group by (ts at time zone 'UTC')::date
         ) x",
    )
    .bind(project_id)
    .bind(window.start)
    .bind(window.cutoff)
    .bind(window.raw_from())
    .fetch_one(db);
    let ((page_views, unique_visitors), pages, referrers) = tokio::try_join!(
        async { Ok::<_, AppError>(totals.await?) },
        breakdown(db, project_id, period, "page", "path", true),
        breakdown(db, project_id, period, "referrer", "referrer_host", true),
    )?;
    let top = |rows: Vec<Row>| rows.into_iter().next().map(|r| r.key);
    Ok(json!({
        "period": period.label(), "page_views": page_views, "unique_visitors": unique_visitors,
        "top_page": top(pages), "top_referrer": top(referrers),
    }))
}

pub async fn pages(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(breakdown(db, project_id, period, "page", "path", true).await?, "page") }),
    )
}

pub async fn referrers(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(breakdown(db, project_id, period, "referrer", "referrer_host", true).await?, "referrer") }),
    )
}

pub async fn countries(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(breakdown(db, project_id, period, "country", "country", true).await?, "country") }),
    )
}

pub async fn devices(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let (devices, browsers, oses) = tokio::try_join!(
        breakdown(db, project_id, period, "device", "device", true),
        breakdown(db, project_id, period, "browser", "browser", true),
        breakdown(db, project_id, period, "os", "os", true),
    )?;
    Ok(json!({
        "period": period.label(),
        "data": rows(devices, "device"),
        "browsers": rows(browsers, "browser"),
        "operating_systems": rows(oses, "os"),
    }))
}

pub async fn utm(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let (sources, mediums, campaigns) = tokio::try_join!(
        breakdown(db, project_id, period, "utm_source", "utm_source", true),
        breakdown(db, project_id, period, "utm_medium", "utm_medium", true),
        breakdown(db, project_id, period, "utm_campaign", "utm_campaign", true),
    )?;
    Ok(json!({
        "period": period.label(),
        "sources": rows(sources, "utm_source"),
        "mediums": rows(mediums, "utm_medium"),
        "campaigns": rows(campaigns, "utm_campaign"),
    }))
}

/// Every event name, `page_view` included, with its count and visitors.
pub async fn events(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let data: Vec<Value> = breakdown(db, project_id, period, "event", "name", false)
        .await?
        .into_iter()
        .map(|r| json!({ "name": r.key, "count": r.views, "visitors": r.visitors }))
        .collect();
    Ok(json!({ "period": period.label(), "data": data }))
}

/// Page views and visitors per day (per hour for 7d), with empty buckets filled with zeros.
pub async fn timeseries(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let unit = if period == Period::Days7 {
        "hour"
    } else {
        "day"
    };
    let window = Window::of(db, period).await?;
    // A summary row's bucket: its day, plus its hour for hourly series.
    let (dim, offset) = if unit == "hour" {
        ("hour", "make_interval(hours => value::int)")
    } else {
        ("total", "interval '0'")
    };
    let points: Vec<(DateTime<Utc>, i64, i64)> = sqlx::query_as(&format!(
        "with buckets as (
            select generate_series(date_trunc('{unit}', $5::timestamptz, 'UTC'), date_trunc('{unit}', now(), 'UTC'), interval '1 {unit}') as bucket
         ), points as (
            select (day::timestamp at time zone 'UTC') + {offset} as bucket, views, visitors from analytics_daily
            where project_id = $1 and dim = '{dim}' and day >= $2 and day < $3
            union all
            select date_trunc('{unit}', ts, 'UTC'), count(*) filter (where name = 'page_view'), count(distinct visitor)
            from analytics_events where project_id = $1 and ts >= $4 group by 1
         )
         select b.bucket, coalesce(sum(p.views), 0)::int8, coalesce(sum(p.visitors), 0)::int8
         from buckets b left join points p on p.bucket = b.bucket
         group by b.bucket order by b.bucket"
    ))
    .bind(project_id)
    .bind(window.start)
    .bind(window.cutoff)
    .bind(window.raw_from())
    .bind(rollup::bounds(window.start).0)
    .fetch_all(db)
    .await?;
    let data: Vec<Value> = points
        .into_iter()
        .map(|(t, views, visitors)| json!({ "date": t, "views": views, "visitors": visitors }))
        .collect();
    Ok(json!({ "period": period.label(), "interval": unit, "data": data }))
}
