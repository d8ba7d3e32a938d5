//! Visits: a visitor's events with gaps under 30 minutes (a visitor hash lives one UTC day, so a
//! visit never spans midnight). Only visits with a page view count; a bounce is a visit of one
//! page view, its duration the time from its first event to its last, its entry and exit pages
//! its first and last page views.
//!
//! The workers' roller keeps `analytics_visits` for the visits that may still go on, extending
//! each visitor's open visit as their events are summarised; a visit half an hour over (and
//! every visit of a closed day) becomes summary rows (`visits`, `visit_duration`, `entry_page`,
//! `exit_page`) and leaves the table.
//! Reads take the summaries, the kept visits, and the raw events since the last pass merged into
//! them, so a visit is counted the moment its page view is, and closed days cost a few rows.
//! Filtered reads count visits from the events in memory instead (`explore`).

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use shipmate_core::AppResult;

/// A new visit starts after this long without events.
pub const GAP: &str = "interval '30 minutes'";

/// Visits made of the events `e` matching `rows`, each visitor's first one continuing their
/// newest kept visit since `open_from` when it is less than the gap later (`started_at` is then
/// that visit's). Columns: project_id, visitor, started_at, ended_at, page_views, entry, exit.
pub fn groups(rows: &str, open_from: &str) -> String {
    format!(
        "with ev as (
            select e.project_id, e.visitor, e.ts, e.name, e.path
            from analytics_events e where {rows}
         ), open as (
            select distinct on (v.project_id, v.visitor) v.project_id, v.visitor, v.started_at, v.ended_at
            from analytics_visits v
            where v.visitor in (select visitor from ev) and v.started_at >= {open_from}
            order by v.project_id, v.visitor, v.started_at desc
         ), marked as (
            select ev.*, o.started_at as open_start,
                   case when coalesce(lag(ev.ts) over w, o.ended_at) is null
                          or ev.ts - coalesce(lag(ev.ts) over w, o.ended_at) >= {GAP} then 1 else 0 end as brk
            from ev left join open o on o.project_id = ev.project_id and o.visitor = ev.visitor
            window w as (partition by ev.project_id, ev.visitor order by ev.ts)
         ), numbered as (
            select *, sum(brk) over (partition by project_id, visitor order by ts rows unbounded preceding) as n
            from marked
         )
         select project_id, visitor,
                case when n = 0 then min(open_start) else min(ts) end as started_at, max(ts) as ended_at,
                count(*) filter (where name = 'page_view')::int4 as page_views,
                (array_agg(path order by ts) filter (where name = 'page_view' and path is not null))[1] as entry,
                (array_agg(path order by ts desc) filter (where name = 'page_view' and path is not null))[1] as exit
         from numbered group by project_id, visitor, n"
    )
}

/// Brings the kept visits of `day` (every project's, or `project`'s) up to its events in
/// `[from, upto)` (from its start afresh). Run by the roller in its summary transaction, so visits
/// and summaries move together.
pub async fn sessionize(
    tx: &mut PgConnection,
    project: Option<Uuid>,
    day: NaiveDate,
    from: DateTime<Utc>,
    upto: DateTime<Utc>,
) -> AppResult<()> {
    let (start, _) = crate::days::bounds(day);
    if from <= start {
        sqlx::query!(
            "delete from analytics_visits where started_at >= $1 and started_at < $2
             and ($3::uuid is null or project_id = $3)",
            start,
            crate::days::bounds(day).1,
            project
        )
        .execute(&mut *tx)
        .await?;
    }
    let rows = match project {
        Some(_) => "e.ts >= $1 and e.ts < $2 and e.project_id = $4",
        None => "e.ts >= $1 and e.ts < $2",
    };
    let groups = groups(rows, "$3");
    let sql = format!(
        "insert into analytics_visits (project_id, visitor, started_at, ended_at, page_views, entry_page, exit_page)
         select project_id, visitor, started_at, ended_at, page_views, entry, exit from ({groups}) g
         on conflict (project_id, started_at, visitor) do update
            set ended_at = greatest(analytics_visits.ended_at, excluded.ended_at),
                page_views = analytics_visits.page_views + excluded.page_views,
                entry_page = coalesce(analytics_visits.entry_page, excluded.entry_page),
                exit_page = coalesce(excluded.exit_page, analytics_visits.exit_page)"
    );
    let insert = sqlx::query(&sql).bind(from).bind(upto).bind(start);
    let insert = match project {
        Some(project) => insert.bind(project),
        None => insert,
    };
    insert.execute(&mut *tx).await?;
    Ok(())
}

/// Moves the day's finished kept visits (every project's, or `project`'s) into its summary rows: every one when the day is closed
/// (`upto` its end), otherwise those that ended a gap or more before `upto` (no later event can
/// continue them; a late one makes the day dirty, and it is summarised afresh). So the kept
/// visits that reads go through stay about half an hour of traffic, however long the day. A
/// visitor with two finished visits entering (or leaving) on the same page, moved by different
/// passes, counts twice among that page's visitors.
pub async fn fold(
    tx: &mut PgConnection,
    project: Option<Uuid>,
    day: NaiveDate,
    upto: DateTime<Utc>,
) -> AppResult<()> {
    let (start, end) = crate::days::bounds(day);
    let before = if upto >= end {
        end
    } else {
        upto - chrono::Duration::minutes(30)
    };
    let bucket = bucket();
    sqlx::query(&format!(
        "with gone as (
            delete from analytics_visits
            where started_at >= $2 and started_at < $3 and ended_at < $4
              and ($5::uuid is null or project_id = $5)
            returning *
         ), v as (select * from gone where page_views > 0)
         insert into analytics_daily (project_id, day, dim, value, views, visitors)
         select project_id, $1::date, dim, value, sum(n)::int8, count(distinct visitor)::int8 from (
            select project_id, 'visits' as dim, 'all' as value, 1 as n, visitor from v
            union all select project_id, 'visits', 'bounced', 1, visitor from v where page_views = 1
            union all select project_id, 'visit_duration', ({bucket})::text, 1, visitor from v
            union all select project_id, 'entry_page', entry_page, 1, visitor from v where entry_page is not null
            union all select project_id, 'exit_page', exit_page, 1, visitor from v where exit_page is not null
         ) x group by project_id, dim, value
         on conflict (project_id, day, dim, value) do update
            set views = analytics_daily.views + excluded.views,
                visitors = analytics_daily.visitors + excluded.visitors"
    ))
    .bind(day)
    .bind(start)
    .bind(end)
    .bind(before)
    .bind(project)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A closed day keeps its visits' durations as a histogram: exact under a minute, then in steps
/// of 10 s up to 10 minutes, of a minute up to an hour, of 10 minutes beyond (a few hundred rows
/// a day at most, so a 90-day median reads little; the median of closed days is the step's start).
fn bucket() -> String {
    let d = DURATION;
    format!(
        "case when {d} < 60 then {d} when {d} < 600 then {d} / 10 * 10
              when {d} < 3600 then {d} / 60 * 60 else {d} / 600 * 600 end"
    )
}

/// A visit's duration in whole seconds (begun seconds do not count), as SQL on a row with
/// `started_at` and `ended_at`.
pub const DURATION: &str = "floor(extract(epoch from ended_at - started_at))::int8";

/// The visits an unfiltered read counts, as SQL over rows with visitor, started_at, ended_at,
/// page_views, entry, exit: the kept visits of the project in `[$2, $3)` merged with what its raw
/// events since `reach` (where the summaries reach, never before `$4`, itself never before `$2`)
/// add. Closed days are then added from the summaries by the caller. Filtered reads count visits
/// in memory (`explore`).
pub fn counted(reach: &str) -> String {
    let tail = groups(
        &format!("e.project_id = $1 and e.ts >= $4 and e.ts >= {reach} and e.ts < $3"),
        "$2",
    );
    format!(
        "select coalesce(s.visitor, t.visitor) as visitor, coalesce(s.started_at, t.started_at) as started_at,
                greatest(s.ended_at, t.ended_at) as ended_at,
                coalesce(s.page_views, 0) + coalesce(t.page_views, 0) as page_views,
                coalesce(s.entry_page, t.entry) as entry, coalesce(t.exit, s.exit_page) as exit
         from (select * from analytics_visits where project_id = $1 and started_at >= $2 and started_at < $3) s
         full join ({tail}) t on t.visitor = s.visitor and t.started_at = s.started_at"
    )
}
