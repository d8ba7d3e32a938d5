//! Journeys (`crate::journeys`) in ClickHouse SQL: the visitor days holding a view of the page,
//! cut into visits (`sql::visit_paths`), and around each view of the page in a counted visit its
//! neighbours, each once per visit. Shifted copies of the path array stand for "the one after" and
//! "the one before": no lambda captures a column of its row (18.16, `visits`). Every array a
//! lambda takes has the length of the paths, also for a visit without page views: the statement
//! is computed for rows its `WHERE` drops too.

use serde::Deserialize;
use shipmate_types::analytics::Journeys;

use super::client::quote;
use super::reads::{failed, filter_sql, Read};
use super::sql::{days_of, visit_paths};
use super::visits::unfiltered;
use crate::journeys::{report, ENTRANCE, EXIT};
use shipmate_core::AppResult;

#[derive(Deserialize)]
struct Neighbour {
    next: u8,
    page: String,
    visits: i64,
}

pub async fn journeys(read: &Read<'_>, page: &str) -> AppResult<Journeys> {
    let target = quote(page);
    let all = unfiltered(read);
    // Only visitor days with a view of the page can hold a visit that views it; whether the visit
    // counts (an event matching the filters) is its `hit`.
    let days = format!(
        "{all} AND cityHash64(day, visitor) IN (SELECT cityHash64(day, visitor) FROM events
            WHERE {all} AND name = 'page_view' AND path = {target})"
    );
    let filters = filter_sql(&read.query.filters);
    let hit = filters.strip_prefix(" AND ").unwrap_or("1");
    let rows: Vec<Neighbour> = read
        .client
        .rows(&format!(
            "SELECT n.1 AS next, n.2 AS page, toInt64(count()) AS visits FROM (
                SELECT arrayConcat(
                    arrayMap(x -> (toUInt8(1), x), arrayDistinct(arrayFilter((x, p) -> p = {target},
                        arrayResize(arrayPushBack(arrayPopFront(paths), {exit}), length(paths)), paths))),
                    arrayMap(x -> (toUInt8(0), x), arrayDistinct(arrayFilter((x, p) -> p = {target},
                        arrayResize(arrayPushFront(arrayPopBack(paths), {entrance}), length(paths)), paths)))
                ) AS pairs
                FROM ({visits}) WHERE hit = 1 AND page_views > 0 AND has(paths, {target})
             ) ARRAY JOIN pairs AS n GROUP BY next, page",
            exit = quote(EXIT),
            entrance = quote(ENTRANCE),
            visits = visit_paths(&days_of(&days, hit, false)),
        ))
        .await
        .map_err(failed)?;
    let (next, previous): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.next == 1);
    let pairs = |rows: Vec<Neighbour>| rows.into_iter().map(|r| (r.page, r.visits)).collect();
    Ok(report(read.period(), page, pairs(next), pairs(previous)))
}
