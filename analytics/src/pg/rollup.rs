//! Storage upkeep done by the workers: a partition per day for the raw events, and daily summaries
//! kept current to within seconds, so reads over 90 days touch only the last seconds of raw events.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::days::{bounds, day_lock_key, DAY_LOCK};
use shipmate_core::AppResult;

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
            for (name, columns) in [("visitors", "project_id, visitor, ts"), ("recent", "ts")] {
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

/// The dimensions a summary row can have, each as (name, value, counted, earlier): `value` is the
/// row's value of it (NULL: the event does not count there), `counted` whether the event adds to
/// `views` (page views, but every event for `event`), and `earlier` how an earlier event `p` of the
/// same visitor matches the value (device, browser and OS compare codes, decoded at the end).
const DIMS: [(&str, &str, &str, &str); 12] = [
    ("total", "''", "e.name = 'page_view'", "true"),
    (
        "hour",
        "to_char(e.hour at time zone 'UTC', 'HH24')",
        "e.name = 'page_view'",
        "true",
    ),
    ("event", "e.name", "true", "p.name = g.value"),
    ("page", "e.path", "true", "p.path = g.value"),
    (
        "referrer",
        "e.referrer_host",
        "true",
        "p.referrer_host = g.value",
    ),
    ("country", "e.country", "true", "p.country = g.value"),
    (
        "device",
        "e.device::text",
        "true",
        "p.device::text = g.value",
    ),
    (
        "browser",
        "e.browser::text",
        "true",
        "p.browser::text = g.value",
    ),
    ("os", "e.os::text", "true", "p.os::text = g.value"),
    (
        "utm_source",
        "e.utm_source",
        "true",
        "p.utm_source = g.value",
    ),
    (
        "utm_medium",
        "e.utm_medium",
        "true",
        "p.utm_medium = g.value",
    ),
    (
        "utm_campaign",
        "e.utm_campaign",
        "true",
        "p.utm_campaign = g.value",
    ),
];

/// Views and visitors that the events matching `rows` (on `analytics_events e`) bring to the
/// values of `dims` (events alike in every dimension and hour are counted together first, so a
/// burst of repeats costs little), per project, dimension and value (and per day or hour, `since`, when
/// `by_since`). A visitor is counted only without an earlier event of theirs that day (that hour,
/// for `hour`) with the same value, before `before`; the check reads only that visitor's events,
/// newest first, through the day's (project, visitor, ts) index, and only for values the day's
/// summaries already have, so a pass costs about what its own events cost, however busy the day
/// (a visitor's first event with a value others had that day costs a scan of their day). With `check` false nothing earlier is looked for (a pass from the day's
/// start). The summaries' passes and the reads' raw tail both count this way.
pub(crate) fn pass(dims: &[&str], rows: &str, before: &str, by_since: bool, check: bool) -> String {
    let dims: Vec<_> = DIMS.iter().filter(|d| dims.contains(&d.0)).collect();
    let values: Vec<String> = dims
        .iter()
        .map(|(dim, value, counted, _)| {
            let value = match *dim {
                "total" | "hour" | "event" => (*value).to_owned(),
                _ => format!("case when e.name = 'page_view' then {value} end"),
            };
            let since = if *dim == "hour" {
                "e.hour"
            } else {
                "date_trunc('day', e.hour, 'UTC')"
            };
            format!("('{dim}', {value}, {counted}, {since})")
        })
        .collect();
    let values = values.join(", ");
    let earlier = if check {
        let matches: String = dims
            .iter()
            .map(|(dim, _, _, m)| match *dim {
                "total" | "hour" | "event" => format!(" when '{dim}' then {m}"),
                _ => format!(" when '{dim}' then p.name = 'page_view' and {m}"),
            })
            .collect();
        // No summary of the value that day: nobody had it before, no need to look. Otherwise
        // the newest matching event first: a visitor who had the value mostly had it lately.
        format!(
            "(exists (select 1 from analytics_daily s
                      where s.project_id = g.project_id and s.day = (g.since at time zone 'UTC')::date
                        and s.dim = g.dim and s.value = coalesce(l.label, g.value))
              and (select p.ts from analytics_events p
                   where p.project_id = g.project_id and p.visitor = g.visitor
                     and p.ts >= g.since and p.ts < {before} and case g.dim{matches} end
                   order by p.ts desc limit 1) is not null)"
        )
    } else {
        "false".to_owned()
    };
    let since = if by_since {
        "g.since"
    } else {
        "null::timestamptz"
    };
    format!(
        "select g.project_id, g.dim, coalesce(l.label, g.value) as value, {since} as since,
                sum(g.views)::int8 as views, count(*) filter (where not {earlier})::int8 as visitors
         from (
            select e.project_id, x.dim, x.value, e.visitor, x.since,
                   coalesce(sum(e.n) filter (where x.counted), 0) as views
            from (
                select e.project_id, e.visitor, e.name, e.path, e.referrer_host, e.country, e.device, e.browser,
                       e.os, e.utm_source, e.utm_medium, e.utm_campaign, date_trunc('hour', e.ts, 'UTC') as hour,
                       count(*) as n
                from analytics_events e where {rows}
                group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
            ) e
            cross join lateral (values {values}) x(dim, value, counted, since)
            where x.value is not null
            group by 1, 2, 3, 4, 5
         ) g
         left join analytics_labels l on l.id = case when g.dim in ('device', 'browser', 'os') then g.value::int2 end
         group by g.project_id, g.dim, coalesce(l.label, g.value), {since}"
    )
}

/// Adds to day `$1`'s summaries what its events in `[$3, $2)` bring (see `pass`): every
/// project's, or with `one_project` only project `$4`'s.
fn summary(incremental: bool, one_project: bool) -> String {
    let names: Vec<&str> = DIMS.iter().map(|d| d.0).collect();
    let rows = if one_project {
        "e.ts >= $3 and e.ts < $2 and e.project_id = $4"
    } else {
        "e.ts >= $3 and e.ts < $2"
    };
    let pass = pass(&names, rows, "$3", false, incremental);
    format!(
        "insert into analytics_daily (project_id, day, dim, value, views, visitors)
         select project_id, $1::date, dim, value, views, visitors from ({pass}) s
         on conflict (project_id, day, dim, value) do update
            set views = analytics_daily.views + excluded.views, visitors = analytics_daily.visitors + excluded.visitors"
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
    take_turn(&mut conn, day).await?;
    let rolled = seal_and_summarise(&mut conn, day, upto, afresh).await;
    end_turn(conn, day).await;
    rolled
}

/// Summarises one project's day again from its start up to where the day's summaries reach,
/// after its late events made it dirty: only that project's summary rows, kept visits and weeks
/// are rebuilt, and only its generation moved, so every other tenant's reads of the day stay on
/// their summaries and their kept explore days.
async fn roll_again(db: &PgPool, project: Uuid, day: NaiveDate) -> AppResult<()> {
    let mut conn = db.acquire().await?;
    take_turn(&mut conn, day).await?;
    let rolled = summarise_project(&mut conn, project, day).await;
    end_turn(conn, day).await;
    rolled
}

async fn take_turn(conn: &mut sqlx::PgConnection, day: NaiveDate) -> AppResult<()> {
    // runtime-checked: an advisory lock, taken for its effect
    sqlx::query("select pg_advisory_lock($1, $2)")
        .bind(ROLLER_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

async fn end_turn(mut conn: sqlx::pool::PoolConnection<sqlx::Postgres>, day: NaiveDate) {
    // runtime-checked: an advisory lock, released for its effect
    let unlocked = sqlx::query("select pg_advisory_unlock($1, $2)")
        .bind(ROLLER_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *conn)
        .await;
    if unlocked.is_err() {
        // A connection that may still hold the lock must not go back to the pool.
        drop(conn.detach());
    }
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
    // runtime-checked: an advisory lock, taken for its effect
    sqlx::query("select pg_advisory_xact_lock($1, $2)")
        .bind(DAY_LOCK)
        .bind(day_lock_key(day))
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "insert into analytics_seals (day, through, sealed) values ($1, $2, $3)
         on conflict (day) do update set sealed = greatest(analytics_seals.sealed, $3)",
        day,
        start,
        upto
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;

    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let through = sqlx::query_scalar!(
        "select through from analytics_seals where day = $1 for update",
        day
    )
    .fetch_one(&mut *tx)
    .await?;
    let from = if afresh || through <= start {
        sqlx::query!("delete from analytics_daily where day = $1", day)
            .execute(&mut *tx)
            .await?;
        start
    } else if through >= upto {
        return Ok(());
    } else {
        through
    };
    // A burst of events is grouped in memory, not sorted in temporary files that compete with
    // the commit flushes of Postgres and Redis for the disk.
    sqlx::query!("set local work_mem = '64MB'")
        .execute(&mut *tx)
        .await?;
    sqlx::query(&summary(from > start, false))
        .bind(day)
        .bind(upto)
        .bind(from)
        .execute(&mut *tx)
        .await?;
    super::visits::sessionize(&mut tx, None, day, from, upto).await?;
    super::visits::fold(&mut tx, None, day, upto).await?;
    sqlx::query!(
        "update analytics_seals set through = $2, rolled_at = now() where day = $1",
        day,
        upto
    )
    .execute(&mut *tx)
    .await?;
    if afresh {
        // Summarised afresh to `upto`: late events before it are in, for every project.
        sqlx::query!(
            "update analytics_rollups set dirty = false, rolled_at = now() where day = $1 and dirty",
            day
        )
        .execute(&mut *tx)
        .await?;
    }
    if upto == end {
        weekly(&mut tx, None, day).await?;
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

/// The project's row of the day is held while its summaries are rebuilt: a late event stored
/// meanwhile waits for the commit, then marks the day dirty again.
async fn summarise_project(
    conn: &mut sqlx::PgConnection,
    project: Uuid,
    day: NaiveDate,
) -> AppResult<()> {
    let (start, _) = bounds(day);
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let dirty = sqlx::query_scalar!(
        "select dirty from analytics_rollups where project_id = $1 and day = $2 for update",
        project,
        day
    )
    .fetch_optional(&mut *tx)
    .await?;
    let through = sqlx::query_scalar!("select through from analytics_seals where day = $1", day)
        .fetch_optional(&mut *tx)
        .await?;
    let (Some(true), Some(through)) = (dirty, through) else {
        return Ok(());
    };
    sqlx::query!(
        "delete from analytics_daily where project_id = $1 and day = $2",
        project,
        day
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!("set local work_mem = '64MB'")
        .execute(&mut *tx)
        .await?;
    sqlx::query(&summary(false, true))
        .bind(day)
        .bind(through)
        .bind(start)
        .bind(project)
        .execute(&mut *tx)
        .await?;
    super::visits::sessionize(&mut tx, Some(project), day, start, through).await?;
    super::visits::fold(&mut tx, Some(project), day, through).await?;
    sqlx::query!(
        "update analytics_rollups set dirty = false, rolled_at = now() where project_id = $1 and day = $2",
        project,
        day
    )
    .execute(&mut *tx)
    .await?;
    weekly(&mut tx, Some(project), day).await?;
    tx.commit().await?;
    Ok(())
}

/// The Monday of `day`'s week.
pub fn week_of(day: NaiveDate) -> NaiveDate {
    day - Duration::days(i64::from(
        chrono::Datelike::weekday(&day).num_days_from_monday(),
    ))
}

/// Rewrites the weekly summaries of `day`'s week (every project's, or `project`'s) from its daily ones once its
/// Sunday is summarised to its end: in the transaction that completes the Sunday (days are
/// completed in order, so the rest of the week is), and again whenever a day of a complete week
/// is summarised afresh. So a read that takes a week's rows never finds them behind its days'.
async fn weekly(
    tx: &mut sqlx::PgConnection,
    project: Option<Uuid>,
    day: NaiveDate,
) -> AppResult<()> {
    let week = week_of(day);
    let sunday = week + Duration::days(6);
    let complete = sqlx::query_scalar!(
        r#"select exists (select 1 from analytics_seals
                         where day = $1 and through >= ($1 + 1)::timestamp at time zone 'UTC') as "complete!""#,
        sunday
    )
    .fetch_one(&mut *tx)
    .await?;
    if !complete {
        return Ok(());
    }
    sqlx::query!(
        "delete from analytics_weekly where week = $1 and ($2::uuid is null or project_id = $2)",
        week,
        project
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "insert into analytics_weekly (project_id, dim, week, value, views, visitors)
         select project_id, dim, $1, value, sum(views)::int8, sum(visitors)::int8 from analytics_daily
         where day >= $1 and day <= $2 and dim <> 'hour' and ($3::uuid is null or project_id = $3)
         group by project_id, dim, value",
        week,
        sunday,
        project
    )
    .execute(&mut *tx)
    .await?;
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
        sqlx::query_scalar!("select max(through) from analytics_seals")
            .fetch_one(db)
            .await?,
    )
}

/// Keeps the summaries current, at most `limit` days per call so a long history is caught up a
/// few days at a time: a project's day made dirty by its late events afresh (that project's
/// summaries only), closed days once `grace` has passed
/// after their end (events accepted just before midnight may still be queued), and then the day
/// in progress up to `upto` (events accepted since may still be on their way from the queue;
/// older ones that arrive later make the day dirty). Returns how many days were rolled.
pub async fn keep_current(
    db: &PgPool,
    grace: Duration,
    upto: DateTime<Utc>,
    limit: usize,
) -> AppResult<usize> {
    let now = Utc::now();
    let dirty = sqlx::query!(
        "select project_id, day from analytics_rollups where dirty order by day, project_id limit $1",
        limit as i64
    )
    .fetch_all(db)
    .await?;
    for r in &dirty {
        roll_again(db, r.project_id, r.day).await?;
    }
    let last_closed = (now - grace).date_naive() - Duration::days(1);
    let complete: Option<NaiveDate> = sqlx::query_scalar!("select max(day) from analytics_seals where through >= (day + 1)::timestamp at time zone 'UTC'")
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
    if day > last_closed && bounds(day).0 < upto {
        roll(db, day, upto, false).await?;
        rolled += 1;
    }
    Ok(rolled)
}
