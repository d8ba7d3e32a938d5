//! The pages' engagement medians (`crate::engagement`) from the read's raw `engagement` events,
//! filters included. Their partial index (project, path, ts) keeps this off the other events.

use std::collections::HashMap;

use super::reads::{matching, report, Read};
use crate::engagement::{Medians, EVENT};
use crate::query::Dim;
use shipmate_core::AppResult;
use shipmate_types::analytics::{Breakdown, PageRow};

/// Pages with their engagement medians.
pub async fn pages(read: &Read<'_>) -> AppResult<Breakdown<PageRow>> {
    let mut pages: Breakdown<PageRow> = report(read, Dim::Page).await?;
    let paths: Vec<String> = pages.data.iter().map(|p| p.page.clone()).collect();
    let medians = medians(read, &paths).await?;
    crate::engagement::apply(&mut pages.data, &medians);
    Ok(pages)
}

/// Medians of `pages` (those with engagement events; the rest are absent).
async fn medians(read: &Read<'_>, pages: &[String]) -> AppResult<HashMap<String, Medians>> {
    if pages.is_empty() {
        return Ok(HashMap::new());
    }
    let n = 4 + read.filters().0.len();
    // Nested `case`s: a cast runs only on text the pattern let through.
    let query = format!(
        "select path, percentile_disc(0.5) within group (order by depth) as depth,
                percentile_disc(0.5) within group (order by ms) as ms
         from (
            select e.path,
                   case when e.properties ->> 'scroll_depth' ~ '^[0-9]{{1,3}}$' then
                       case when (e.properties ->> 'scroll_depth')::int4 <= 100
                            then (e.properties ->> 'scroll_depth')::int8 end end as depth,
                   case when e.properties ->> 'engaged_ms' ~ '^[0-9]{{1,12}}$'
                        then (e.properties ->> 'engaged_ms')::int8 end as ms
            from {matching} and e.name = ${n} and e.path = any(${paths})
         ) x group by path",
        paths = n + 1,
        matching = matching(read.filters())
    );
    let rows: Vec<(String, Option<i64>, Option<i64>)> = read
        .bind_raw(sqlx::query_as(&query))
        .bind(EVENT)
        .bind(pages)
        .fetch_all(read.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(path, scroll_depth, engaged_ms)| {
            (
                path,
                Medians {
                    scroll_depth,
                    engaged_ms,
                },
            )
        })
        .collect())
}
