//! Who is on the site now: read straight from the stored raw events of the last 30 minutes, not
//! from the daily summaries (those count per day; "now" needs minutes). Events are stamped when
//! the api accepts them, so a figure lags by the ingest pipeline's delay (queue to table), not
//! by the summaries'.

use chrono::{DateTime, Duration, Utc};
use shipmate_types::analytics::{Realtime, RealtimePage};
use sqlx::PgPool;
use uuid::Uuid;

use crate::query::Filters;
use shipmate_core::AppResult;

/// `visitors` and `pages` count the last 5 minutes.
pub const VISITORS_WINDOW: Duration = Duration::minutes(5);
/// `page_views` counts the last 30 minutes.
pub const PAGE_VIEWS_WINDOW: Duration = Duration::minutes(30);
/// Most pages listed.
pub const TOP_PAGES: i64 = 10;

/// The realtime figures as of `now`, of the events matching `filters`. Both statements bound `ts`
/// from below on the project, so they read only the last minutes: partition pruning leaves
/// today's partition (and yesterday's just after midnight), where the `(ts)` index the intraday
/// summaries use finds the rows. A visitor hash changes with the daily salt, so across midnight
/// one person counts twice.
pub async fn realtime(
    db: &PgPool,
    project_id: Uuid,
    now: DateTime<Utc>,
    filters: &Filters,
) -> AppResult<Realtime> {
    let live_from = now - VISITORS_WINDOW;
    let views_from = now - PAGE_VIEWS_WINDOW;
    let matching = format!(
        "from analytics_events e where e.project_id = $1 and e.ts >= $2 and e.ts <= $3{}",
        filters.sql(5)
    );
    let totals = format!(
        "select count(distinct e.visitor) filter (where e.ts >= $4)::int8,
                count(*) filter (where e.name = 'page_view')::int8
         {matching}"
    );
    let pages = format!(
        "select e.path, count(distinct e.visitor)::int8 {matching}
           and e.ts >= $4 and e.name = 'page_view' and e.path is not null
         group by e.path order by 2 desc, e.path limit {TOP_PAGES}"
    );
    let args = (project_id, views_from, now, live_from);
    let (totals, pages): ((i64, i64), Vec<(String, i64)>) = tokio::try_join!(
        bind(&totals, args, filters).fetch_one(db),
        bind(&pages, args, filters).fetch_all(db)
    )?;
    Ok(Realtime {
        visitors: totals.0,
        page_views: totals.1,
        pages: pages
            .into_iter()
            .map(|(page, visitors)| RealtimePage { page, visitors })
            .collect(),
    })
}

/// Binds `$1` project, `$2` start of the page views' window, `$3` now, `$4` start of the
/// visitors' window, then the filter values.
fn bind<'q, O>(
    sql: &'q str,
    (project_id, views_from, now, live_from): (Uuid, DateTime<Utc>, DateTime<Utc>, DateTime<Utc>),
    filters: &'q Filters,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>
where
    O: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
{
    filters.values().fold(
        sqlx::query_as(sql)
            .bind(project_id)
            .bind(views_from)
            .bind(now)
            .bind(live_from),
        |q, v| q.bind(v),
    )
}

/// Visitors with an event matching `filters` in `[from, to)`, each once per UTC day. Recent
/// instants: the `(ts)` index of today's partition finds the rows.
pub async fn visitors_between(
    db: &PgPool,
    project_id: Uuid,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    filters: &Filters,
) -> AppResult<i64> {
    let sql = format!(
        "select count(distinct (e.visitor, (e.ts at time zone 'UTC')::date))::int8
         from analytics_events e where e.project_id = $1 and e.ts >= $2 and e.ts < $3{}",
        filters.sql(4)
    );
    let query = sqlx::query_scalar::<_, i64>(&sql)
        .bind(project_id)
        .bind(from)
        .bind(to);
    Ok(filters
        .values()
        .fold(query, |q, v| q.bind(v))
        .fetch_one(db)
        .await?)
}
