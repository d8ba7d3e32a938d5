//! The dashboard's aggregates over a period. Visitors are counted per day (the visitor hash
//! changes with the daily salt), so a period's unique visitors are the sum of daily ones.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

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

    pub fn since(self) -> DateTime<Utc> {
        let days = match self {
            Period::Days7 => 7,
            Period::Days30 => 30,
            Period::Days90 => 90,
        };
        Utc::now() - Duration::days(days)
    }
}

const VISITORS: &str = "count(distinct (date_trunc('day', ts), visitor))";

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Row {
    pub key: String,
    pub views: i64,
    pub visitors: i64,
}

/// Page views grouped by one column (from a fixed list), largest first.
async fn breakdown(
    db: &PgPool,
    project_id: Uuid,
    period: Period,
    column: &'static str,
    page_views_only: bool,
) -> AppResult<Vec<Row>> {
    let only = if page_views_only {
        "and name = 'page_view'"
    } else {
        ""
    };
    Ok(sqlx::query_as::<_, Row>(&format!(
        "select {column} as key, count(*) as views, {VISITORS} as visitors
         from analytics_events where project_id = $1 and ts >= $2 and {column} is not null {only}
         group by {column} order by views desc, visitors desc, key limit 100"
    ))
    .bind(project_id)
    .bind(period.since())
    .fetch_all(db)
    .await?)
}

fn rows(rows: Vec<Row>, label: &str) -> Vec<Value> {
    rows.into_iter()
        .map(|r| json!({ label: r.key, "views": r.views, "visitors": r.visitors }))
        .collect()
}

pub async fn overview(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let (page_views, unique_visitors): (i64, i64) = sqlx::query_as(&format!(
        "select count(*) filter (where name = 'page_view'), {VISITORS}
         from analytics_events where project_id = $1 and ts >= $2"
    ))
    .bind(project_id)
    .bind(period.since())
    .fetch_one(db)
    .await?;
    let top_page = breakdown(db, project_id, period, "path", true)
        .await?
        .into_iter()
        .next()
        .map(|r| r.key);
    let top_referrer = breakdown(db, project_id, period, "referrer_host", true)
        .await?
        .into_iter()
        .next()
        .map(|r| r.key);
    Ok(json!({
        "period": period.label(), "page_views": page_views, "unique_visitors": unique_visitors,
        "top_page": top_page, "top_referrer": top_referrer,
    }))
}

pub async fn pages(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(breakdown(db, project_id, period, "path", true).await?, "page") }),
    )
}

pub async fn referrers(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(breakdown(db, project_id, period, "referrer_host", true).await?, "referrer") }),
    )
}

pub async fn countries(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(
        json!({ "period": period.label(), "data": rows(breakdown(db, project_id, period, "country", true).await?, "country") }),
    )
}

pub async fn devices(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(json!({
        "period": period.label(),
        "data": rows(breakdown(db, project_id, period, "device", true).await?, "device"),
        "browsers": rows(breakdown(db, project_id, period, "browser", true).await?, "browser"),
        "operating_systems": rows(breakdown(db, project_id, period, "os", true).await?, "os"),
    }))
}

pub async fn utm(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    Ok(json!({
        "period": period.label(),
        "sources": rows(breakdown(db, project_id, period, "utm_source", true).await?, "utm_source"),
        "mediums": rows(breakdown(db, project_id, period, "utm_medium", true).await?, "utm_medium"),
        "campaigns": rows(breakdown(db, project_id, period, "utm_campaign", true).await?, "utm_campaign"),
    }))
}

/// Every event name, `page_view` included, with its count and visitors.
pub async fn events(db: &PgPool, project_id: Uuid, period: Period) -> AppResult<Value> {
    let data: Vec<Value> = breakdown(db, project_id, period, "name", false)
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
    let points: Vec<(DateTime<Utc>, i64, i64)> = sqlx::query_as(&format!(
        "with buckets as (
            select generate_series(date_trunc('{unit}', $2::timestamptz), date_trunc('{unit}', now()), interval '1 {unit}') as bucket
         )
         select b.bucket, count(e.*) filter (where e.name = 'page_view'),
                count(distinct (date_trunc('day', e.ts), e.visitor)) filter (where e.id is not null)
         from buckets b left join analytics_events e
           on e.project_id = $1 and e.ts >= $2 and date_trunc('{unit}', e.ts) = b.bucket
         group by b.bucket order by b.bucket"
    ))
    .bind(project_id)
    .bind(period.since())
    .fetch_all(db)
    .await?;
    let data: Vec<Value> = points
        .into_iter()
        .map(|(t, views, visitors)| json!({ "date": t, "views": views, "visitors": visitors }))
        .collect();
    Ok(json!({ "period": period.label(), "interval": unit, "data": data }))
}
