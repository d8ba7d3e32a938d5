//! A goal's conversions per source (`crate::conversions`): the visitors from the range's events
//! in memory (`explore`), the revenue of their goal events from the raw events.

use std::collections::HashMap;

use super::explore::{self, scan};
use super::reads::{matching, Read};
use crate::query::{Dim, Filters};
use crate::seam::{Converted, RevenueSums};
use shipmate_core::AppResult;

pub async fn conversions(
    read: &Read<'_>,
    dim: Dim,
    reached: &Filters,
    currency: Option<&str>,
) -> AppResult<Vec<Converted>> {
    let (events, filters) = read.explore().await?;
    let (Some(filters), Some(goal)) = (filters, events.matcher(reached)) else {
        return Ok(Vec::new());
    };
    let col = explore::column(dim);
    let rows = events
        .run(move |days, codes| scan::converted(days, codes, &filters, &goal, col))
        .await?;
    let mut revenue = match currency {
        Some(c) => revenue(read, dim, reached, c).await?,
        None => HashMap::new(),
    };
    Ok(rows
        .into_iter()
        .map(|(code, _, visitors)| {
            let key = events.value(code);
            Converted {
                revenue: revenue.remove(&key).unwrap_or_default(),
                key,
                conversions: visitors,
            }
        })
        .collect())
}

#[derive(sqlx::FromRow)]
struct SourceRevenue {
    key: String,
    #[sqlx(flatten)]
    sums: RevenueSums,
}

/// Per source, the revenue in `currency` of the events matching `reached` of its visitors (each
/// visitor's day once per source).
async fn revenue(
    read: &Read<'_>,
    dim: Dim,
    reached: &Filters,
    currency: &str,
) -> AppResult<HashMap<String, RevenueSums>> {
    let col = dim.column();
    let after = 4 + read.filters().0.len();
    // Most goals' events carry no revenue: asked first, through the index of revenue events
    // (`analytics_events_revenue`), before the range's source page views are read.
    let any = format!(
        "select exists (select 1 from analytics_events e
            where e.project_id = $1 and e.ts >= $2 and e.ts < $3{goal} and e.revenue_currency is not null)",
        goal = reached.sql(after),
    );
    let paid = reached
        .values()
        .fold(read.bind_raw(sqlx::query_as::<_, (bool,)>(&any)), |q, v| {
            q.bind(v)
        })
        .fetch_one(read.db)
        .await?;
    if !paid.0 {
        return Ok(HashMap::new());
    }
    let c = after + reached.0.len();
    let query = format!(
        "select s.key, coalesce(sum(g.total), 0)::int8 as total,
                coalesce(sum(g.counted), 0)::int8 as counted,
                coalesce(sum(g.skipped), 0)::int8 as skipped
         from (select distinct (e.ts at time zone 'UTC')::date as day, e.visitor, e.{col} as key
               from {sources} and e.name = 'page_view' and e.{col} <> '') s
         join (select (e.ts at time zone 'UTC')::date as day, e.visitor,
                      sum(e.revenue_micros) filter (where e.revenue_currency = ${c}) as total,
                      count(*) filter (where e.revenue_currency = ${c}) as counted,
                      count(*) filter (where e.revenue_currency <> ${c}) as skipped
               from analytics_events e
               where e.project_id = $1 and e.ts >= $2 and e.ts < $3{goal}
                 and e.revenue_currency is not null
               group by 1, 2) g using (day, visitor)
         group by s.key",
        sources = matching(read.filters()),
        goal = reached.sql(after),
    );
    let rows = reached
        .values()
        .fold(
            read.bind_raw(sqlx::query_as::<_, SourceRevenue>(&query)),
            |q, v| q.bind(v),
        )
        .bind(currency)
        .fetch_all(read.db)
        .await?;
    Ok(rows.into_iter().map(|r| (r.key, r.sums)).collect())
}
