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

/// Where a read looks: daily summaries up to `raw_from`, raw events from it on. A period is that
/// many UTC days, today included. The summaries usually reach to a few seconds ago, the middle of
/// today: the visitors of the events since then are counted exactly by also reading their earlier
/// events of the day (`tail`).
struct Window {
    start: NaiveDate,
    raw_from: DateTime<Utc>,
    /// The start of `raw_from`'s day.
    day_from: DateTime<Utc>,
    /// The visitors with events since `raw_from`, when that is not a day's start.
    visitors: Vec<i64>,
}

impl Window {
    async fn of(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Self> {
        let start = Utc::now().date_naive() - Duration::days(period.days() - 1);
        let start_ts = rollup::bounds(start).0;
        let raw_from = rollup::covered_until(db)
            .await?
            .map_or(start_ts, |c| c.max(start_ts));
        let day_from = rollup::bounds(raw_from.date_naive()).0;
        let visitors = if day_from < raw_from {
            sqlx::query_scalar(
                "select distinct visitor from analytics_events where project_id = $1 and ts >= $2",
            )
            .bind(project_id)
            .bind(raw_from)
            .fetch_all(db)
            .await?
        } else {
            Vec::new()
        };
        Ok(Window {
            start,
            raw_from,
            day_from,
            visitors,
        })
    }

    /// Binds `$2` (first day), `$3` (`raw_from`), `$4` (`day_from`) and `$5` (the visitors) after
    /// the project (`$1`).
    fn bind<'q, O>(
        &'q self,
        query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
        project_id: Uuid,
    ) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
        query
            .bind(project_id)
            .bind(self.start)
            .bind(self.raw_from)
            .bind(self.day_from)
            .bind(&self.visitors)
    }
}

/// The summary rows of `dim` that a read takes (see `Window`).
fn summaries(dim: &str) -> String {
    format!(
        "select day, value, views, visitors from analytics_daily
         where project_id = $1 and dim = '{dim}' and day >= $2 and day::timestamp at time zone 'UTC' < $3"
    )
}

/// The raw rows a read takes, with `key` as the grouping value: the events since `raw_from`,
/// and the earlier events of the day of the visitors among them (see `rollup::VIEWS`).
fn tail(key: &str) -> String {
    let (key, join) = match key {
        "device" | "browser" | "os" => (
            "l.label".to_owned(),
            format!("join analytics_labels l on l.id = e.{key}"),
        ),
        other => (other.to_owned(), String::new()),
    };
    format!(
        "select {key} as key, e.ts, e.name, e.visitor from analytics_events e {join}
         where e.project_id = $1 and e.ts >= $3
         union all
         select {key}, e.ts, e.name, e.visitor from analytics_events e {join}
         where e.project_id = $1 and e.ts >= $4 and e.ts < $3 and e.visitor = any($5)"
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
    column: &'static str,
    page_views_only: bool,
) -> AppResult<Vec<Row>> {
    let only = if page_views_only {
        "and name = 'page_view'"
    } else {
        ""
    };
    let (summaries, tail) = (summaries(dim), tail(column));
    let query = format!(
        "select key, sum(views)::int8 as views, sum(visitors)::int8 as visitors from (
            select value as key, views, visitors from ({summaries}) s
            union all
            select key, {VIEWS}, {VISITORS} from ({tail}) t
            where key is not null {only}
            group by key, (ts at time zone 'UTC')::date
         ) x group by key order by views desc, visitors desc, key limit 100"
    );
    Ok(window
        .bind(sqlx::query_as::<_, Row>(&query), project_id)
        .fetch_all(db)
        .await?)
}

/// What raw events since `raw_from` ($3) add; see `rollup::VIEWS`.
const VIEWS: &str = "count(*) filter (where ts >= $3)";
const VISITORS: &str = "count(distinct visitor) - count(distinct visitor) filter (where ts < $3)";
const PAGE_VIEWS: &str = "count(*) filter (where ts >= $3 and name = 'page_view')";

/// One breakdown as a read of its own.
async fn single(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
    dim: &'static str,
    column: &'static str,
    page_views_only: bool,
) -> AppResult<Vec<Row>> {
    let window = Window::of(db, project_id, period).await?;
    breakdown(db, &window, project_id, dim, column, page_views_only).await
}

fn rows(rows: Vec<Row>, label: &str) -> Vec<Value> {
    rows.into_iter()
        .map(|r| json!({ label: r.key, "views": r.views, "visitors": r.visitors }))
        .collect()
}

/// The three parts run at once, each on its own connection.
pub async fn overview(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let window = Window::of(db, project_id, period).await?;
    let (summaries, tail) = (summaries("total"), tail("''"));
    let query = format!(
        "select coalesce(sum(views), 0)::int8, coalesce(sum(visitors), 0)::int8 from (
            select views, visitors from ({summaries}) s
            union all
            select {PAGE_VIEWS}, {VISITORS} from ({tail}) t group by (ts at time zone 'UTC')::date
         ) x"
    );
    let totals = window
        .bind(sqlx::query_as::<_, (i64, i64)>(&query), project_id)
        .fetch_one(db);
    let ((page_views, unique_visitors), pages, referrers) = tokio::try_join!(
        async { Ok::<_, AppError>(totals.await?) },
        breakdown(db, &window, project_id, "page", "path", true),
        breakdown(db, &window, project_id, "referrer", "referrer_host", true),
    )?;
    let top = |rows: Vec<Row>| rows.into_iter().next().map(|r| r.key);
    Ok(json!({
        "period": period.label(), "page_views": page_views, "unique_visitors": unique_visitors,
        "top_page": top(pages), "top_referrer": top(referrers),
    }))
}

pub async fn pages(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(single(db, project_id, period, "page", "path", true).await?, "page") }),
    )
}

pub async fn referrers(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(single(db, project_id, period, "referrer", "referrer_host", true).await?, "referrer") }),
    )
}

pub async fn countries(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(single(db, project_id, period, "country", "country", true).await?, "country") }),
    )
}

pub async fn devices(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let window = Window::of(db, project_id, period).await?;
    let (devices, browsers, oses) = tokio::try_join!(
        breakdown(db, &window, project_id, "device", "device", true),
        breakdown(db, &window, project_id, "browser", "browser", true),
        breakdown(db, &window, project_id, "os", "os", true),
    )?;
    Ok(json!({
        "period": period.label(),
        "data": rows(devices, "device"),
        "browsers": rows(browsers, "browser"),
        "operating_systems": rows(oses, "os"),
    }))
}

pub async fn utm(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let window = Window::of(db, project_id, period).await?;
    let (sources, mediums, campaigns) = tokio::try_join!(
        breakdown(db, &window, project_id, "utm_source", "utm_source", true),
        breakdown(db, &window, project_id, "utm_medium", "utm_medium", true),
        breakdown(
            db,
            &window,
            project_id,
            "utm_campaign",
            "utm_campaign",
            true
        ),
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
    let data: Vec<Value> = single(db, project_id, period, "event", "name", false)
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
    let window = Window::of(db, project_id, period).await?;
    // A summary row's bucket: its day, plus its hour for hourly series.
    let (dim, offset) = if unit == "hour" {
        ("hour", "make_interval(hours => value::int)")
    } else {
        ("total", "interval '0'")
    };
    let (summaries, tail) = (summaries(dim), tail("''"));
    let query = format!(
        "with buckets as (
            select generate_series(date_trunc('{unit}', $6::timestamptz, 'UTC'), date_trunc('{unit}', now(), 'UTC'), interval '1 {unit}') as bucket
         ), points as (
            select (day::timestamp at time zone 'UTC') + {offset} as bucket, views, visitors from ({summaries}) s
            union all
            select date_trunc('{unit}', ts, 'UTC'), {PAGE_VIEWS}, {VISITORS} from ({tail}) t group by 1
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
    let data: Vec<Value> = points
        .into_iter()
        .map(|(t, views, visitors)| json!({ "date": t, "views": views, "visitors": visitors }))
        .collect();
    Ok(json!({ "period": period.label(), "interval": unit, "data": data }))
}
