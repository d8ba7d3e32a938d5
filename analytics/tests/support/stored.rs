//! Rows stored in an event store as the workers store them: the labels asked for first, then
//! one batch.

use shipmate_analytics::seam::{Batch, EventStore, Stored};

pub async fn store(events: &dyn EventStore, rows: &[Stored]) {
    try_store(events, rows).await.unwrap()
}

pub async fn try_store(events: &dyn EventStore, rows: &[Stored]) -> shipmate_core::AppResult<()> {
    let mut labels: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            [
                r.enriched.device.clone(),
                r.enriched.browser.clone(),
                r.enriched.os.clone(),
            ]
        })
        .collect();
    labels.sort();
    labels.dedup();
    let labels = events.label_ids(&labels).await.unwrap();
    let entries: Vec<i64> = rows.iter().map(|r| r.entry).collect();
    events
        .insert(Batch {
            rows,
            labels: &labels,
            bots: &[],
            entries: &entries,
            redelivered: false,
        })
        .await
}
