//! A goal's conversions per source (`crate::conversions`): the visitors, and the revenue of
//! their goal events, from the range's events in memory (`explore`).

use super::explore::{self, revenue::attributed, scan};
use super::reads::Read;
use crate::query::{Dim, Filters};
use crate::seam::Converted;
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
    let currency = currency.map(|c| events.code(c));
    let (rows, mut revenue) = events
        .run(move |days, codes| {
            let rows = scan::converted(days, codes, &filters, &goal, col);
            let revenue = match currency {
                Some(c) => attributed(days, &filters, &goal, c, col),
                None => Default::default(),
            };
            (rows, revenue)
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
