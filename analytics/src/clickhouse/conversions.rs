//! A goal's conversions per source (`crate::conversions`) in ClickHouse SQL, for several source
//! dimensions at once (UTM's three: two statements, not six). Conversions: each
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
use super::sql::{filter_sql, list, GOAL_DIMS, SOURCE_DIMS};
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
    dims: &[Dim],
    reached: &Filters,
    currency: Option<&str>,
) -> AppResult<Vec<Vec<Converted>>> {
    let all = unfiltered(read);
    let goal = format!("{all}{}", filter_sql(reached));
    let filters = filter_sql(&read.query.filters);
    // Every dimension's sources in one statement (UTM's three: one statement, not three): a key
    // names its dimension, `{column}={value}` (no column's name holds `=`).
    let source = |d: &Dim| format!("name = 'page_view' AND {c} != ''{filters}", c = d.column());
    let columns = list(dims, |d| format!("'{}'", d.column()));
    // Closed days from `goal_daily` when the read has no filter of its own (the goal's is the one).
    let summarised = match (read.query.filters.0.is_empty(), reached.0.as_slice()) {
        (true, [(gdim, _)])
            if GOAL_DIMS.contains(gdim) && dims.iter().all(|d| SOURCE_DIMS.contains(d)) =>
        {
            read.summarised.clone()
        }
        _ => super::summaries::Summarised::NONE,
    };
    // The stored rows of the goal and sources: conversions (`currency` '') or revenue (the rest).
    let stored = |days: &str, runs: &str, what: &str, currency: &str| {
        let (gdim, gval) = &reached.0[0];
        format!(
            "SELECT concat(dim, '=', key) AS key, {what} FROM goal_daily
             WHERE project_id = {project} AND gdim = '{gcol}' AND gval = {gval} AND dim IN ({columns})
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
                "SELECT concat(s.1, '=', s.2) AS key, uniqExact(day, visitor) AS views,
                        toUInt64(0) AS visitors
                 FROM (SELECT day, visitor, arrayJoin(arrayFilter(x -> x.2 != '', [{sources}])) AS s
                       FROM events WHERE {all}{and} AND name = 'page_view'{filters}
                           AND cityHash64(day, visitor) IN
                               (SELECT cityHash64(day, visitor) FROM events WHERE {goal}{and}))
                 GROUP BY key",
                sources = list(dims, |d| format!("('{c}', {c})", c = d.column())),
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
        let keys = list(dims, |d| {
            format!(
                "groupUniqArrayIf(concat('{col}', '=', {col}), {source})",
                col = d.column(),
                source = source(d)
            )
        });
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
                        SELECT arrayConcat({keys}) AS keys,
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
    let mut out: Vec<Vec<Converted>> = dims.iter().map(|_| Vec::new()).collect();
    for c in counts {
        let Some((column, key)) = c.key.split_once('=') else {
            continue;
        };
        let Some(at) = dims.iter().position(|d| d.column() == column) else {
            continue;
        };
        out[at].push(Converted {
            revenue: money.remove(&c.key).unwrap_or_default(),
            key: key.to_owned(),
            conversions: c.conversions,
        });
    }
    Ok(out)
}
