//! A goal's conversions per source (`crate::conversions`): the visitors from the range's events
//! in memory (`explore`); the revenue of their goal events summed per visitor day from the raw
//! events (few: the index of revenue-bearing events), then given to their sources in memory.

use chrono::NaiveDate;

use super::explore::{self, revenue::attributed, scan};
use super::reads::Read;
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
    let paid = match currency {
        Some(c) => events.per_day(
            paying(read, reached, c)
                .await?
                .into_iter()
                .map(|p| (p.day, (p.visitor, p.sums))),
        ),
        None => Vec::new(),
    };
    let (rows, mut revenue) = events
        .run(move |days, codes| {
            let rows = scan::converted(days, codes, &filters, &goal, col);
            (rows, attributed(days, &paid, &filters, col))
        })
        .await?;
    Ok(rows
        .into_iter()
        .map(|(code, _, visitors)| Converted {
            key: events.value(code),
            conversions: visitors,
            revenue: revenue.remove(&code).unwrap_or_default(),
        })
        .collect())
}

/// A visitor day whose events matching the goal carry revenue.
#[derive(sqlx::FromRow)]
struct Paying {
    day: NaiveDate,
    visitor: i64,
    #[sqlx(flatten)]
    sums: RevenueSums,
}

/// The visitor days whose events matching `reached` carry revenue, with its sums in `currency`
/// (in no order: hashed, not sorted, by PostgreSQL).
async fn paying(read: &Read<'_>, reached: &Filters, currency: &str) -> AppResult<Vec<Paying>> {
    let after = 4 + read.filters().0.len();
    let c = after + reached.0.len();
    // `revenue_currency is not null`: read from the index of revenue-bearing events alone
    // (`analytics_events_revenue_cover`), not the range's.
    let query = format!(
        "select (e.ts at time zone 'UTC')::date as day, e.visitor,
                coalesce(sum(e.revenue_micros) filter (where e.revenue_currency = ${c}), 0)::int8 as total,
                count(*) filter (where e.revenue_currency = ${c})::int8 as counted,
                count(*) filter (where e.revenue_currency <> ${c})::int8 as skipped
         from analytics_events e
         where e.project_id = $1 and e.ts >= $2 and e.ts < $3{goal} and e.revenue_currency is not null
         group by 1, 2",
        goal = reached.sql(after),
    );
    Ok(reached
        .values()
        .fold(
            read.bind_raw(sqlx::query_as::<_, Paying>(&query)),
            |q, v| q.bind(v),
        )
        .bind(currency)
        .fetch_all(read.db)
        .await?)
}
