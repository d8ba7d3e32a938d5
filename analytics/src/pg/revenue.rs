//! Revenue in one currency over a read's matching raw events (goals' revenue).

use super::reads::{matching, Read};
use crate::seam::RevenueSums;
use shipmate_core::AppResult;

pub async fn revenue(read: &Read<'_>, currency: &str) -> AppResult<RevenueSums> {
    let n = 4 + read.filters().0.len();
    let query = format!(
        "select coalesce(sum(e.revenue_micros) filter (where e.revenue_currency = ${n}), 0)::int8 as total,
                count(*) filter (where e.revenue_currency = ${n})::int8 as counted,
                count(*) filter (where e.revenue_currency <> ${n})::int8 as skipped
         from {matching} and e.revenue_currency is not null",
        matching = matching(read.filters())
    );
    Ok(read
        .bind_raw(sqlx::query_as::<_, RevenueSums>(&query))
        .bind(currency)
        .fetch_one(read.db)
        .await?)
}
