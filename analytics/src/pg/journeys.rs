//! Journeys (`crate::journeys`) from the range's events in memory (`explore`), filtered or not:
//! visits are cut there already, with their events in order.

use std::collections::HashMap;

use shipmate_types::analytics::Journeys;

use super::explore::journeys::journeys as scan;
use super::reads::Read;
use crate::journeys::{report, ENTRANCE, EXIT};
use shipmate_core::AppResult;

pub async fn journeys(read: &Read<'_>, page: &str) -> AppResult<Journeys> {
    let (events, filters) = read.explore().await?;
    let (Some(filters), Some(target)) = (filters, events.code(page)) else {
        return Ok(report(read.period(), page, Vec::new(), Vec::new()));
    };
    let (next, previous) = events
        .run(move |days, _| scan(days, &filters, target))
        .await?;
    let named = |counts: HashMap<u32, i64>, none: &str| -> Vec<(String, i64)> {
        counts
            .into_iter()
            .map(|(code, n)| match code {
                0 => (none.to_owned(), n),
                c => (events.value(c), n),
            })
            .collect()
    };
    Ok(report(
        read.period(),
        page,
        named(next, EXIT),
        named(previous, ENTRANCE),
    ))
}
