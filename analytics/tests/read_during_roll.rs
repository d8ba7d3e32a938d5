//! PostgreSQL mode's unfiltered reads take today's summaries and the raw events after them from one
//! snapshot: a roll that commits after a read chose its window (as the workers' upkeep does every
//! few seconds) must not count that roll's events twice, once in the summaries and once raw.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "support/pg.rs"]
mod pg;
#[path = "support/stored.rs"]
mod stored;
#[path = "support/views.rs"]
mod views;

use std::collections::HashMap;

use chrono::Utc;
use serde_json::{json, Value};
use shipmate_analytics::pg::Postgres;
use shipmate_analytics::query::Dim;
use shipmate_analytics::seam::{EventStore, Reader, Stored};
use shipmate_analytics::ReadQuery;
use stored::store;
use views::page_view;

/// Every unfiltered read the fault suite and the dashboard check, as JSON (the timeseries as its
/// sums: its buckets run to each reader's own `now`).
async fn reads(r: &dyn Reader) -> Value {
    let series = r.timeseries().await.unwrap();
    let sums = series
        .data
        .iter()
        .fold((0, 0), |(v, u), p| (v + p.views, u + p.visitors));
    json!([
        r.overview().await.unwrap(),
        r.events().await.unwrap(),
        r.breakdown(Dim::Page).await.unwrap().len(),
        r.entry_pages().await.unwrap(),
        [sums.0, sums.1],
    ])
}

#[tokio::test]
async fn a_roll_committed_during_a_read_counts_its_events_once() {
    let db = pg::fresh_pg().await;
    let pg = Postgres::new(db.clone());
    let project = pg::project(&db).await;
    let now = Utc::now();
    let midnight = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    // Quarters of today so far: all of it today, whatever the hour.
    let at = |quarter: i32| midnight + (now - midnight) * quarter / 4;

    let early: Vec<Stored> = (1..=3)
        .map(|v| page_view(project, v, at(1), v, "/a"))
        .collect();
    store(&pg, &early).await;
    // Today's summaries reach halfway through the day so far.
    pg.upkeep(at(2)).await.unwrap();
    let mut later: Vec<Stored> = (4..=6)
        .map(|v| page_view(project, v, at(3), v, "/b"))
        .collect();
    later.push(page_view(project, 7, at(3), 1, "/c"));
    store(&pg, &later).await;

    let q: HashMap<String, String> = [("period".to_owned(), "7d".to_owned())].into();
    let q = ReadQuery::parse(&q, Utc::now()).unwrap();
    // Its window is chosen now: the summaries reach halfway, the later events are raw.
    let during = pg.reader(project, &q).await.unwrap();
    // A roll commits before the read's statements run: the later events are summarised too.
    pg.upkeep(Utc::now()).await.unwrap();
    let after = pg.reader(project, &q).await.unwrap();

    let (during, after) = (reads(&*during).await, reads(&*after).await);
    assert_eq!(after[0]["page_views"], 7, "{after}");
    assert_eq!(after[0]["unique_visitors"], 6, "{after}");
    assert_eq!(during, after);
}
