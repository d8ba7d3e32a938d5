//! A goal's conversions per source (`crate::conversions`) in ClickHouse SQL: the visitor days
//! with an event reaching the goal, each with the sources of its page views and the revenue of its
//! goal events, then summed per source. Only those visitor days are read whole.

use serde::Deserialize;

use super::client::quote;
use super::reads::{failed, filter_sql, Read};
use super::visits::unfiltered;
use crate::query::{Dim, Filters};
use crate::seam::{Converted, RevenueSums};
use shipmate_core::AppResult;

#[derive(Deserialize)]
struct Source {
    key: String,
    conversions: i64,
    total: i64,
    counted: i64,
    skipped: i64,
}

pub async fn conversions(
    read: &Read<'_>,
    dim: Dim,
    reached: &Filters,
    currency: Option<&str>,
) -> AppResult<Vec<Converted>> {
    let all = unfiltered(read);
    let col = dim.column();
    let goal = filter_sql(reached);
    let goal_hit = goal.strip_prefix(" AND ").unwrap_or("1");
    let source = format!(
        "name = 'page_view' AND {col} != ''{}",
        filter_sql(&read.query.filters)
    );
    let money = match currency {
        Some(c) => {
            let c = quote(c);
            format!(
                "sumIf(revenue_micros, {goal_hit} AND revenue_currency = {c}) AS total,
                 countIf({goal_hit} AND revenue_currency = {c}) AS counted,
                 countIf({goal_hit} AND revenue_currency NOT IN ({c}, '')) AS skipped"
            )
        }
        None => "0 AS total, 0 AS counted, 0 AS skipped".to_owned(),
    };
    let rows: Vec<Source> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(count()) AS conversions, toInt64(sum(total)) AS total,
                    toInt64(sum(counted)) AS counted, toInt64(sum(skipped)) AS skipped
             FROM (
                SELECT groupUniqArrayIf({col}, {source}) AS keys, {money}
                FROM events
                WHERE {all} AND cityHash64(day, visitor) IN
                    (SELECT cityHash64(day, visitor) FROM events WHERE {all}{goal})
                GROUP BY day, visitor
             ) ARRAY JOIN keys AS key GROUP BY key"
        ))
        .await
        .map_err(failed)?;
    Ok(rows
        .into_iter()
        .map(|r| Converted {
            key: r.key,
            conversions: r.conversions,
            revenue: RevenueSums {
                total: r.total,
                counted: r.counted,
                skipped: r.skipped,
            },
        })
        .collect())
}
