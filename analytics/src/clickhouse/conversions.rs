//! A goal's conversions per source (`crate::conversions`) in ClickHouse SQL. Conversions: each
//! source's visitor days among those with an event reaching the goal (a set built once, then
//! each source's page views checked against it). Revenue, for a goal with a currency: only the
//! visitor days whose goal events carry revenue are read whole, each with its sources and its sum.
//! Both sets are `IN` subqueries, which a cluster answers shard by shard (sharded by visitor).

use std::collections::HashMap;

use serde::Deserialize;

use super::client::quote;
use super::reads::{failed, filter_sql, Read};
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
    let count_sql = format!(
        "SELECT {col} AS key, toInt64(uniqExact(day, visitor)) AS conversions FROM events
         WHERE {all} AND {source} AND cityHash64(day, visitor) IN
             (SELECT cityHash64(day, visitor) FROM events WHERE {goal})
         GROUP BY key"
    );
    let counts = read.client.rows::<Count>(&count_sql);
    let money = async {
        let Some(c) = currency else {
            return Ok(Vec::new());
        };
        let c = quote(c);
        read.client
            .rows::<Money>(&format!(
                "SELECT key, toInt64(sum(total)) AS total, toInt64(sum(counted)) AS counted,
                        toInt64(sum(skipped)) AS skipped
                 FROM (
                    SELECT groupUniqArrayIf({col}, {source}) AS keys,
                           sumIf(revenue_micros, {goal} AND revenue_currency = {c}) AS total,
                           countIf({goal} AND revenue_currency = {c}) AS counted,
                           countIf({goal} AND revenue_currency NOT IN ({c}, '')) AS skipped
                    FROM events
                    WHERE {all} AND cityHash64(day, visitor) IN
                        (SELECT cityHash64(day, visitor) FROM events
                         WHERE {goal} AND revenue_currency != '')
                    GROUP BY day, visitor
                 ) ARRAY JOIN keys AS key GROUP BY key"
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
