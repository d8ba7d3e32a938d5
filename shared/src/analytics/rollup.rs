//! Storage upkeep done by the workers: a partition per day for the raw events, and daily summaries
//! kept current to within seconds, so reads over 90 days touch only the last seconds of raw events.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::PgPool;

use crate::AppResult;

/// A UTC day's bounds as timestamps.
pub fn bounds(day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let start = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    (start, start + Duration::days(1))
}

/// The advisory lock of a day's summaries: sealing a day for a roll takes it exclusively, storing
/// events of the day shares it, so a roll never misses events whose insert had begun (see `roll`).
pub const DAY_LOCK: i32 = 7431;

pub fn day_lock_key(day: NaiveDate) -> i32 {
    chrono::Datelike::num_days_from_ce(&day)
}

/// Creates the daily partitions for `days` days from `from`, if missing, and returns the days
/// settled: those with a partition, and those whose events already sit in the default partition
/// (their partition cannot be created; asking again would only rescan the default partition).
/// Partitions from today on get the indexes that intraday summaries and reads need (see `roll`).
pub async fn ensure_partitions(
    db: &PgPool,
    from: NaiveDate,
    days: i64,
) -> AppResult<Vec<NaiveDate>> {
    let today = Utc::now().date_naive();
    let mut settled = Vec::new();
    for day in (0..days).filter_map(|d| from.checked_add_signed(Duration::days(d))) {
        let (start, end) = bounds(day);
        let table = format!("analytics_events_{}", day.format("%Y%m%d"));
        let mut sql = vec![format!(
            "create table if not exists {table} partition of analytics_events for values from ('{}') to ('{}')",
            start.to_rfc3339(),
            end.to_rfc3339()
        )];
        if day >= today {
            for (name, columns) in [
                ("visitors", "project_id, visitor"),
                ("recent", "project_id, ts"),
            ] {
                sql.push(format!(
                    "create index if not exists {table}_{name} on {table} ({columns})"
                ));
            }
        }
        for sql in sql {
            match sqlx::query(&sql).execute(db).await {
                Ok(_) => {}
                // Another worker created it first (42P07, 23505), or rows for the day are already
                // in the default partition (23514, and then no table for the index: 42P01): all
                // leave a working table.
                Err(sqlx::Error::Database(e))
                    if matches!(
                        e.code().as_deref(),
                        Some("42P07" | "23505" | "23514" | "42P01")
                    ) => {}
                Err(e) => return Err(e.into()),
            }
        }
        settled.push(day);
    }
    Ok(settled)
}

/// The rows a summary pass reads: one day's events before `$3` (`$2` is the day's start), with
/// device, browser and OS decoded and the hour of day. An incremental pass takes only the events
/// of visitors seen since `$4`; see `SUMMARY_TOTALS`.
fn source(incremental: bool) -> String {
    let visitors = if incremental {
        "and (e.project_id, e.visitor) in (select project_id, visitor from analytics_events where ts >= $4 and ts < $3)"
    } else {
        ""
    };
    format!(
        "select e.project_id, e.ts, e.name, e.visitor, e.path, e.referrer_host, e.country, e.utm_source, e.utm_medium,
                e.utm_campaign, d.label as device, b.label as browser, o.label as os,
                to_char(e.ts at time zone 'UTC', 'HH24') as hour
         from analytics_events e
         join analytics_labels d on d.id = e.device join analytics_labels b on b.id = e.browser
         join analytics_labels o on o.id = e.os
         where e.ts >= $2 and e.ts < $3 {visitors}"
    )
}

/// What events since `$4` add to a value's views, and to its visitors: the distinct visitors
/// among all of the day's events minus those among the events before `$4`. Counted over every
/// event of the visitors seen since `$4`, that is exact: other visitors' counts do not change.
/// With `$4` at the day's start it is a plain count of the whole day.
const VIEWS: &str = "count(*) filter (where ts >= $4)";
const VISITORS: &str = "count(distinct visitor) - count(distinct visitor) filter (where ts < $4)";

/// Adds a pass to the summaries (on a clean slate, the whole day's).
const UPSERT: &str = "on conflict (project_id, day, dim, value) do update
    set views = analytics_daily.views + excluded.views, visitors = analytics_daily.visitors + excluded.visitors";

/// A day's totals (`total`), hours (`hour`) and event names (`event`), over every event.
fn summary_totals(incremental: bool) -> String {
    let source = source(incremental);
    format!(
        "insert into analytics_daily (project_id, day, dim, value, views, visitors)
         select * from (
            select project_id, $1::date,
                   case when grouping(name) = 0 then 'event' when grouping(hour) = 0 then 'hour' else 'total' end,
                   coalesce(name, hour, ''),
                   case when grouping(name) = 0 then {VIEWS} else count(*) filter (where ts >= $4 and name = 'page_view') end,
                   {VISITORS}
            from ({source}) e
            group by grouping sets ((project_id), (project_id, hour), (project_id, name))
         ) s(project_id, day, dim, value, views, visitors) where views > 0 or visitors > 0
         {UPSERT}"
    )
}

/// A day's breakdowns, over page views only.
fn summary_breakdowns(incremental: bool) -> String {
    let source = source(incremental);
    format!(
        "insert into analytics_daily (project_id, day, dim, value, views, visitors)
         select project_id, $1::date, dim, value, views, visitors from (
            select project_id,
                   case when grouping(path) = 0 then 'page' when grouping(referrer_host) = 0 then 'referrer'
                        when grouping(country) = 0 then 'country' when grouping(device) = 0 then 'device'
                        when grouping(browser) = 0 then 'browser' when grouping(os) = 0 then 'os'
                        when grouping(utm_source) = 0 then 'utm_source' when grouping(utm_medium) = 0 then 'utm_medium'
                        else 'utm_campaign' end as dim,
                   coalesce(path, referrer_host, country, device, browser, os, utm_source, utm_medium, utm_campaign) as value,
                   {VIEWS} as views, {VISITORS} as visitors
            from ({source}) e where name = 'page_view'
            group by grouping sets ((project_id, path), (project_id, referrer_host), (project_id, country),
                                    (project_id, device), (project_id, browser), (project_id, os),
                                    (project_id, utm_source), (project_id, utm_medium), (project_id, utm_campaign))
         ) s where value is not null and (views > 0 or visitors > 0)
         {UPSERT}"
    )
}

/// Brings `day`'s summaries (every project's) up to the events before `upto`: only what changed
/// since they were last brought up to date, or from scratch when `afresh`, when the day has none,
/// or when late events made them dirty. Summaries already that far are left alone. A day
/// summarised to its end loses its (project, ts) and (project, visitor) indexes: only intraday
/// passes and reads of the last seconds use them.
///
/// Storing events never waits for the summaries to be computed, only for a short seal: rollers of
/// a day take turns (a session lock, as the roll spans two transactions); the first transaction
/// seals the day up to `upto` under the day's exclusive lock, so that from then on storing events
/// before `upto` marks the day dirty; the second computes the summaries, holding the rollup row,
/// so such a mark waits for it and is never lost.
async fn roll(db: &PgPool, day: NaiveDate, upto: DateTime<Utc>, afresh: bool) -> AppResult<()> {
    let mut conn = db.acquire().await?;
    sqlx::query("select pg_advisory_lock($1, $2)")
        .bind(ROLLER_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *conn)
        .await?;
    let rolled = seal_and_summarise(&mut conn, day, upto, afresh).await;
    let unlocked = sqlx::query("select pg_advisory_unlock($1, $2)")
        .bind(ROLLER_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *conn)
        .await;
    if unlocked.is_err() {
        // A connection that may still hold the lock must not go back to the pool.
        drop(conn.detach());
    }
    rolled
}

/// Takes turns between the rollers of a day (see `roll`).
const ROLLER_LOCK: i32 = 7433;

async fn seal_and_summarise(
    conn: &mut sqlx::PgConnection,
    day: NaiveDate,
    upto: DateTime<Utc>,
    afresh: bool,
) -> AppResult<()> {
    let (start, end) = bounds(day);
    let upto = upto.min(end);
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    // Exclusive: waits for inserts of the day's events in flight; later ones see the seal.
    sqlx::query("select pg_advisory_xact_lock($1, $2)")
        .bind(DAY_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "insert into analytics_rollups (day, through, sealed) values ($1, $2, $3)
         on conflict (day) do update set sealed = greatest(analytics_rollups.sealed, $3)",
    )
    .bind(day)
    .bind(start)
    .bind(upto)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;

    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let (through, dirty): (DateTime<Utc>, bool) =
        sqlx::query_as("select through, dirty from analytics_rollups where day = $1 for update")
            .bind(day)
            .fetch_one(&mut *tx)
            .await?;
    let from = if afresh || dirty || through <= start {
        sqlx::query("delete from analytics_daily where day = $1")
            .bind(day)
            .execute(&mut *tx)
            .await?;
        start
    } else if through >= upto {
        return Ok(());
    } else {
        through
    };
    let incremental = from > start;
    for sql in [summary_totals(incremental), summary_breakdowns(incremental)] {
        sqlx::query(&sql)
            .bind(day)
            .bind(start)
            .bind(upto)
            .bind(from)
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query(
        "update analytics_rollups set through = $2, dirty = false, rolled_at = now() where day = $1",
    )
    .bind(day)
    .bind(upto)
    .execute(&mut *tx)
    .await?;
    if upto == end {
        let table = format!("analytics_events_{}", day.format("%Y%m%d"));
        sqlx::query(&format!(
            "drop index if exists {table}_visitors, {table}_recent"
        ))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Summarises a whole day: with `again`, afresh; otherwise only what is not summarised yet.
pub async fn roll_day(db: &PgPool, day: NaiveDate, again: bool) -> AppResult<()> {
    roll(db, day, bounds(day).1, again).await
}

/// Up to where the summaries reach: reads take summaries before it and raw events from it on.
/// Days are summarised in order, so every day before it is summarised to its end.
pub async fn covered_until(db: &PgPool) -> AppResult<Option<DateTime<Utc>>> {
    Ok(
        sqlx::query_scalar("select max(through) from analytics_rollups")
            .fetch_one(db)
            .await?,
    )
}

/// Keeps the summaries current, at most `limit` days per call so a long history is caught up a
/// few days at a time: days made dirty by late events afresh, closed days once `grace` has passed
/// after their end (events accepted just before midnight may still be queued), and then the day
/// in progress up to `lag` ago (events younger than that may still be on their way from the
/// queue; older ones that arrive later make the day dirty). Returns how many days were rolled.
pub async fn keep_current(
    db: &PgPool,
    grace: Duration,
    lag: Duration,
    limit: usize,
) -> AppResult<usize> {
    let now = Utc::now();
    let dirty: Vec<NaiveDate> =
        sqlx::query_scalar("select day from analytics_rollups where dirty order by day limit $1")
            .bind(limit as i64)
            .fetch_all(db)
            .await?;
    for day in &dirty {
        roll(db, *day, now - lag, true).await?;
    }
    let last_closed = (now - grace).date_naive() - Duration::days(1);
    let complete: Option<NaiveDate> = sqlx::query_scalar(
        "select max(day) from analytics_rollups where through >= (day + 1)::timestamp at time zone 'UTC'",
    )
    .fetch_one(db)
    .await?;
    let mut day = match complete {
        Some(d) => d + Duration::days(1),
        None => match sqlx::query_scalar::<_, Option<DateTime<Utc>>>(
            "select min(ts) from analytics_events",
        )
        .fetch_one(db)
        .await?
        {
            Some(ts) => ts.date_naive(),
            None => return Ok(dirty.len()),
        },
    };
    let mut rolled = dirty.len();
    while day <= last_closed && rolled < limit {
        roll_day(db, day, false).await?;
        rolled += 1;
        day += Duration::days(1);
    }
    // Only once every earlier day is complete, so the summaries stay contiguous.
    if day > last_closed && bounds(day).0 < now - lag {
        roll(db, day, now - lag, false).await?;
        rolled += 1;
    }
    Ok(rolled)
}
