//! Storage upkeep done by the workers: a partition per day for the raw events, and daily summaries
//! for every closed day, so reads over 90 days touch at most one day of raw events.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::PgPool;

use crate::AppResult;

/// A UTC day's bounds as timestamps.
pub fn bounds(day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let start = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    (start, start + Duration::days(1))
}

/// The advisory lock of a day's summaries: rolling takes it exclusively, storing events of the day
/// shares it, so a roll never misses events whose insert had begun (see `store::insert`).
pub const DAY_LOCK: i32 = 7431;

pub fn day_lock_key(day: NaiveDate) -> i32 {
    chrono::Datelike::num_days_from_ce(&day)
}

/// Creates the daily partitions for `days` days from `from`, if missing, and returns the days
/// settled: those with a partition, and those whose events already sit in the default partition
/// (their partition cannot be created; asking again would only rescan the default partition).
pub async fn ensure_partitions(
    db: &PgPool,
    from: NaiveDate,
    days: i64,
) -> AppResult<Vec<NaiveDate>> {
    let mut settled = Vec::new();
    for day in (0..days).filter_map(|d| from.checked_add_signed(Duration::days(d))) {
        let (start, end) = bounds(day);
        let sql = format!(
            "create table if not exists analytics_events_{} partition of analytics_events for values from ('{}') to ('{}')",
            day.format("%Y%m%d"),
            start.to_rfc3339(),
            end.to_rfc3339()
        );
        match sqlx::query(&sql).execute(db).await {
            Ok(_) => settled.push(day),
            // Another worker created it first (42P07, 23505), or rows for the day are already in
            // the default partition (23514): both leave a working table.
            Err(sqlx::Error::Database(e))
                if matches!(e.code().as_deref(), Some("42P07" | "23505" | "23514")) =>
            {
                settled.push(day)
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(settled)
}

/// A day's totals (`total`), hours (`hour`) and event names (`event`), over every event.
const SUMMARY_TOTALS: &str = "insert into analytics_daily (project_id, day, dim, value, views, visitors)
         select project_id, $1,
                case when grouping(name) = 0 then 'event' when grouping(hour) = 0 then 'hour' else 'total' end,
                coalesce(name, hour, ''),
                case when grouping(name) = 0 then count(*) else count(*) filter (where name = 'page_view') end,
                count(distinct visitor)
         from (select project_id, name, visitor, to_char(ts at time zone 'UTC', 'HH24') as hour
               from analytics_events where ts >= $2 and ts < $3) e
         group by grouping sets ((project_id), (project_id, hour), (project_id, name))";

/// A day's breakdowns, over page views only.
const SUMMARY_BREAKDOWNS: &str = "insert into analytics_daily (project_id, day, dim, value, views, visitors)
         select project_id, $1, dim, value, views, visitors from (
            select project_id,
                   case when grouping(path) = 0 then 'page' when grouping(referrer_host) = 0 then 'referrer'
                        when grouping(country) = 0 then 'country' when grouping(device) = 0 then 'device'
                        when grouping(browser) = 0 then 'browser' when grouping(os) = 0 then 'os'
                        when grouping(utm_source) = 0 then 'utm_source' when grouping(utm_medium) = 0 then 'utm_medium'
                        else 'utm_campaign' end as dim,
                   coalesce(path, referrer_host, country, device, browser, os, utm_source, utm_medium, utm_campaign) as value,
                   count(*) as views, count(distinct visitor) as visitors
            from analytics_events where ts >= $2 and ts < $3 and name = 'page_view'
            group by grouping sets ((project_id, path), (project_id, referrer_host), (project_id, country),
                                    (project_id, device), (project_id, browser), (project_id, os),
                                    (project_id, utm_source), (project_id, utm_medium), (project_id, utm_campaign))
         ) s where value is not null";

/// Computes one day's summaries for every project, atomically. With `again` false, a day another
/// worker has summarised meanwhile is left as it is.
pub async fn roll_day(db: &PgPool, day: NaiveDate, again: bool) -> AppResult<()> {
    let (start, end) = bounds(day);
    let mut tx = db.begin().await?;
    // Exclusive: waits for inserts of the day's events in flight, and for another roller.
    sqlx::query("select pg_advisory_xact_lock($1, $2)")
        .bind(DAY_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *tx)
        .await?;
    if !again {
        let done: bool =
            sqlx::query_scalar("select exists (select 1 from analytics_rollups where day = $1)")
                .bind(day)
                .fetch_one(&mut *tx)
                .await?;
        if done {
            return Ok(());
        }
    }
    sqlx::query("delete from analytics_daily where day = $1")
        .bind(day)
        .execute(&mut *tx)
        .await?;
    // Totals, hours and event names over every event; breakdowns over page views.
    for sql in [SUMMARY_TOTALS, SUMMARY_BREAKDOWNS] {
        sqlx::query(sql)
            .bind(day)
            .bind(start)
            .bind(end)
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query(
        "insert into analytics_rollups (day) values ($1) on conflict (day) do update set rolled_at = now()",
    )
    .bind(day)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The latest day whose summaries are complete (reads use summaries up to it).
pub async fn rolled_through(db: &PgPool) -> AppResult<Option<NaiveDate>> {
    Ok(sqlx::query_scalar("select max(day) from analytics_rollups")
        .fetch_one(db)
        .await?)
}

/// Rolls closed days not rolled yet, in order, once `grace` has passed after their end (events
/// accepted just before midnight may still be in the queue); at most `limit` days per call, so a
/// long history is caught up a few days at a time. Returns the days rolled.
pub async fn roll_due(db: &PgPool, grace: Duration, limit: usize) -> AppResult<Vec<NaiveDate>> {
    let last_closed = (Utc::now() - grace).date_naive() - Duration::days(1);
    let first = match rolled_through(db).await? {
        Some(d) => d + Duration::days(1),
        None => match sqlx::query_scalar::<_, Option<DateTime<Utc>>>(
            "select min(ts) from analytics_events",
        )
        .fetch_one(db)
        .await?
        {
            Some(ts) => ts.date_naive(),
            None => return Ok(Vec::new()),
        },
    };
    let mut rolled = Vec::new();
    let mut day = first;
    while day <= last_closed && rolled.len() < limit {
        roll_day(db, day, false).await?;
        rolled.push(day);
        day += Duration::days(1);
    }
    Ok(rolled)
}

/// Rolls again any of `days` that already has summaries: events that arrived late for a closed
/// day (a long queue, a worker down across midnight) must show in the reads.
pub async fn reroll_closed(db: &PgPool, days: &[NaiveDate]) -> AppResult<()> {
    let Some(through) = rolled_through(db).await? else {
        return Ok(());
    };
    for day in days.iter().filter(|d| **d <= through) {
        roll_day(db, *day, true).await?;
    }
    Ok(())
}
