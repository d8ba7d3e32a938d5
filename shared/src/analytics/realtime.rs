//! Who is on the site now: read straight from the stored raw events of the last 30 minutes, not
//! from the daily summaries (those count per day; "now" needs minutes). Events are stamped when
//! the api accepts them, so a figure lags by the ingest pipeline's delay (queue to table), not
//! by the summaries'.

use chrono::{DateTime, Duration, Utc};
use shipmate_types::analytics::{Realtime, RealtimePage};
use sqlx::PgPool;
use uuid::Uuid;

use crate::{AppError, AppResult};

/// `visitors` and `pages` count the last 5 minutes.
pub const VISITORS_WINDOW: Duration = Duration::minutes(5);
/// `page_views` counts the last 30 minutes.
pub const PAGE_VIEWS_WINDOW: Duration = Duration::minutes(30);
/// Most pages listed.
pub const TOP_PAGES: i64 = 10;

/// The realtime figures as of `now`. Both statements bound `ts` from below on the project, so
/// they read only the last minutes: partition pruning leaves today's partition (and yesterday's
/// just after midnight), where the `(ts)` index the intraday summaries use finds the rows.
/// A visitor hash changes with the daily salt, so across midnight one person counts twice.
pub async fn realtime(db: &PgPool, project_id: Uuid, now: DateTime<Utc>) -> AppResult<Realtime> {
    let live_from = now - VISITORS_WINDOW;
    let views_from = now - PAGE_VIEWS_WINDOW;
    let totals = sqlx::query!(
        r#"select count(distinct visitor) filter (where ts >= $2)::int8 as "visitors!",
                count(*) filter (where name = 'page_view')::int8 as "page_views!"
         from analytics_events
         where project_id = $1 and ts >= $3 and ts <= $4"#,
        project_id,
        live_from,
        views_from,
        now
    )
    .fetch_one(db);
    let pages = sqlx::query!(
        r#"select path as "page!", count(distinct visitor)::int8 as "visitors!"
         from analytics_events
         where project_id = $1 and ts >= $2 and ts <= $3 and name = 'page_view' and path is not null
         group by path order by 2 desc, path limit $4"#,
        project_id,
        live_from,
        now,
        TOP_PAGES
    )
    .fetch_all(db);
    let (totals, pages) = tokio::try_join!(async { Ok::<_, AppError>(totals.await?) }, async {
        Ok::<_, AppError>(pages.await?)
    },)?;
    Ok(Realtime {
        visitors: totals.visitors,
        page_views: totals.page_views,
        pages: pages
            .into_iter()
            .map(|r| RealtimePage {
                page: r.page,
                visitors: r.visitors,
            })
            .collect(),
    })
}
