//! A goal's conversions per source (`crate::conversions`) in ClickHouse SQL. Conversions: each
//! source's visitor days among those with an event reaching the goal (a set built once, then
//! each source's page views checked against it). Revenue, for a goal with a currency: only the
//! visitor days whose goal events carry revenue are read whole, each with its sources and its sum.
//! Both sets are `IN` subqueries, which a cluster answers shard by shard (sharded by visitor).
//! Closed days keep both per goal and source in `goal_daily` (made by the upkeep from
//! `summary_rows`), so a read without filters takes those rows and reads only the other days
//! from the events.

use std::collections::HashMap;

use serde::Deserialize;

use super::client::quote;
use super::reads::{failed, Read};
use super::sql::{filter_sql, GOAL_DIMS, SOURCE_DIMS};
use super::visits::unfiltered;
use crate::query::{Dim, Filters};
use crate::seam::{Converted, RevenueSums};
use shipmate_core::AppResult;

#[derive(Deserialize)]
struct Count {
    key: String,
    conversions: i64,
}

#[derive(Deserialize)]
struct Money {
    key: String,
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
    let goal = format!("{all}{}", filter_sql(reached));
    let source = format!(
        "name = 'page_view' AND {col} != ''{}",
        filter_sql(&read.query.filters)
    );
    // Closed days from `goal_daily` when the read has no filter of its own (the goal's is the one).
    let summarised = match (read.query.filters.0.is_empty(), reached.0.as_slice()) {
        (true, [(gdim, gval)]) if GOAL_DIMS.contains(gdim) && SOURCE_DIMS.contains(&dim) => {
            read.summarised.clone()
        }
        _ => super::summaries::Summarised::NONE,
    };
    // The stored rows of the goal and source: conversions (`currency` '') or revenue (the rest).
    let stored = |days: &str, runs: &str, what: &str, currency: &str| {
        let (gdim, gval) = &reached.0[0];
        format!(
            "SELECT key, {what} FROM goal_daily
             WHERE project_id = {project} AND gdim = '{gcol}' AND gval = {gval} AND dim = '{col}'
                 AND currency {currency} AND day IN ({days}) AND run IN ({runs})",
            project = quote(&read.project_id.to_string()),
            gcol = gdim.column(),
            gval = quote(gval),
        )
    };
    let count_sql = summarised.summed(
        |days, runs| {
            stored(
                days,
                runs,
                "conversions AS views, toUInt64(0) AS visitors",
                "= ''",
            )
        },
        |and| {
            format!(
                "SELECT {col} AS key, uniqExact(day, visitor) AS views, toUInt64(0) AS visitors
                 FROM events WHERE {all}{and} AND {source} AND cityHash64(day, visitor) IN
                     (SELECT cityHash64(day, visitor) FROM events WHERE {goal}{and})
                 GROUP BY key"
            )
        },
        "sum(views) AS views, sum(visitors) AS visitors",
    );
    let count_sql = format!("SELECT key, toInt64(views) AS conversions FROM ({count_sql})");
    let counts = read.client.rows::<Count>(&count_sql);
    let money = async {
        let Some(c) = currency else {
            return Ok(Vec::new());
        };
        let c = quote(c);
        let sql = summarised.summed(
            |days, runs| {
                stored(
                    days,
                    runs,
                    &format!(
                        "if(currency = {c}, revenue_micros, 0) AS total,
                         if(currency = {c}, revenue_events, 0) AS counted,
                         if(currency = {c}, 0, revenue_events) AS skipped"
                    ),
                    "!= ''",
                )
            },
            |and| {
                format!(
                    "SELECT key, sum(total) AS total, sum(counted) AS counted, sum(skipped) AS skipped
                     FROM (
                        SELECT groupUniqArrayIf({col}, {source}) AS keys,
                               sumIf(revenue_micros, {goal} AND revenue_currency = {c}) AS total,
                               countIf({goal} AND revenue_currency = {c}) AS counted,
                               countIf({goal} AND revenue_currency NOT IN ({c}, '')) AS skipped
                        FROM events
                        WHERE {all}{and} AND cityHash64(day, visitor) IN
                            (SELECT cityHash64(day, visitor) FROM events
                             WHERE {goal}{and} AND revenue_currency != '')
                        GROUP BY day, visitor
                     ) ARRAY JOIN keys AS key GROUP BY key"
                )
            },
            "sum(total) AS total, sum(counted) AS counted, sum(skipped) AS skipped",
        );
        read.client
            .rows::<Money>(&format!(
                "SELECT key, toInt64(total) AS total, toInt64(counted) AS counted,
                        toInt64(skipped) AS skipped FROM ({sql})"
            ))
            .await
    };
    let (counts, money) = tokio::try_join!(counts, money).map_err(failed)?;
    let mut money: HashMap<String, RevenueSums> = money
        .into_iter()
        .map(|m| {
            let sums = RevenueSums {
                total: m.total,
                counted: m.counted,
                skipped: m.skipped,
            };
            (m.key, sums)
        })
        .collect();
    Ok(counts
        .into_iter()
        .map(|c| Converted {
            revenue: money.remove(&c.key).unwrap_or_default(),
            key: c.key,
            conversions: c.conversions,
        })
        .collect())
}
