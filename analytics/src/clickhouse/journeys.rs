//! Journeys (`crate::journeys`) in ClickHouse SQL: around each view of the page in a counted
//! visit its neighbours, each once per visit. Closed days' neighbours of every page are kept in
//! `daily_by` (under the pseudo-filter `journey`, see `summaries`), so a read without filters adds
//! those rows; with filters, and for the other days, the visitor days holding a view of the page
//! are cut into visits (`sql::visit_paths`). Shifted copies of the path array stand for "the one
//! after" and "the one before": no lambda captures a column of its row (18.16, `visits`). Every
//! array a lambda takes has the length of the paths, also for a visit without page views: the
//! statement is computed for rows its `WHERE` drops too.

use shipmate_types::analytics::Journeys;

use super::client::quote;
use super::reads::{failed, Read};
use super::sql::{days_of, filter_sql, neighbours, visit_paths, JOURNEY};
use super::visits::unfiltered;
use crate::journeys::report;
use crate::seam::Row;
use shipmate_core::AppResult;

pub async fn journeys(read: &Read<'_>, page: &str) -> AppResult<Journeys> {
    let target = quote(page);
    let all = unfiltered(read);
    let filters = filter_sql(&read.query.filters);
    let hit = filters.strip_prefix(" AND ").unwrap_or("1");
    // Rows keyed by direction and neighbour ("1/docs": `/docs` came next).
    let live = |and: &str| {
        // Only visitor days with a view of the page can hold a visit that views it; whether the
        // visit counts (an event matching the filters) is its `hit`.
        let days = format!(
            "{all}{and} AND cityHash64(day, visitor) IN (SELECT cityHash64(day, visitor) FROM events
                WHERE {all}{and} AND name = 'page_view' AND path = {target})"
        );
        format!(
            "SELECT concat(toString(n.1), n.3) AS key, count() AS views, toUInt64(0) AS visitors
             FROM (SELECT {pairs} AS pairs FROM ({visits})
                   WHERE hit = 1 AND page_views > 0 AND has(paths, {target}))
             ARRAY JOIN pairs AS n WHERE n.2 = {target} GROUP BY key",
            pairs = neighbours(),
            visits = visit_paths(&days_of(&days, hit, false)),
        )
    };
    let sql = match filters.is_empty() {
        true => {
            let project = quote(&read.project_id.to_string());
            read.summarised.joined(
                |days, runs| {
                    format!(
                        "SELECT concat(if(dim = 'next', '1', '0'), key) AS key, views, visitors
                         FROM daily_by WHERE project_id = {project} AND fdim = '{JOURNEY}'
                             AND fval = {target} AND day IN ({days}) AND run IN ({runs})"
                    )
                },
                live,
            )
        }
        false => live(""),
    };
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({sql})"
        ))
        .await
        .map_err(failed)?;
    let (mut next, mut previous) = (Vec::new(), Vec::new());
    for r in rows {
        match r.key.split_at_checked(1) {
            Some(("1", page)) => next.push((page.to_owned(), r.views)),
            Some((_, page)) => previous.push((page.to_owned(), r.views)),
            None => {}
        }
    }
    Ok(report(read.period(), page, next, previous))
}
