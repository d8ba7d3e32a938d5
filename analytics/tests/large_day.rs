//! A day of many events summarised within what a server allows one statement: the test's
//! clickhouse-server allows 2 GB (`support/clickhouse.rs`), as a small server might. The copy
//! sorted by filter holds a part's events twice in arrays (by visitor, by visit): in parts of a
//! million events, a day of 550,000 needed more than 1.9 GB. The visits under single filters were
//! cut in parts of a million events too: 1.8 GB for 550,000 events of 137,000 visitors; a day of
//! 900,000 events, about four a visitor as sites have, was one such part.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "support/pg.rs"]
mod pg;
#[path = "support/clickhouse.rs"]
mod server;

use chrono::{Duration, NaiveTime, Utc};
use shipmate_analytics::clickhouse::ClickHouse;
use shipmate_analytics::EventStore;

#[tokio::test]
async fn a_day_of_900_000_events_of_225_000_visitors_is_summarised_within_a_statements_memory() {
    let server = server::ClickHouse::start();
    let db = pg::fresh_pg().await;
    let ch = ClickHouse::connect(&server.url("shipmate_large"), None, db.clone())
        .await
        .unwrap();
    let project = pg::project(&db).await;
    let (n, visitors) = (900_000, 225_000);
    // Yesterday, from one in the morning over twenty hours: one closed day.
    let start = (Utc::now() - Duration::days(1))
        .date_naive()
        .and_time(NaiveTime::from_hms_opt(1, 0, 0).unwrap())
        .and_utc()
        .timestamp_micros();
    let generated = server::generated(&project.to_string(), start, 20 * 3_600_000, n, visitors);
    server::answer(&server, "shipmate_large", &generated).await;
    let days = ch.upkeep(Utc::now() + Duration::days(1)).await.unwrap();
    assert_eq!(days, 1, "the closed day summarised");
    // Every event is in the copy under each of its filters: the page's at least.
    let copied = server::answer(
        &server,
        "shipmate_large",
        "SELECT count() FROM events_by WHERE fdim = 'path'",
    )
    .await;
    assert_eq!(copied, n.to_string(), "events copied under their page");
}
