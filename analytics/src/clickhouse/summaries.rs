//! Closed days' visits, cut once and kept in `visits` (one row per visit with a page view), as
//! PostgreSQL mode's roller keeps its summaries: a read over 90 days then counts stored visits
//! instead of cutting every visitor's day again, and only the days not yet summarised (today)
//! are cut from their events. A day whose events changed since its summary (late events, a
//! copy) is cut again, whole, as a new run; `visit_days` names each day's current run, recorded
//! once its rows are all written, so a read sees one whole run of a day and never a part. Nothing
//! is dropped or altered (no DDL on a cluster with a server down); a superseded run's rows stay,
//! unread.

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Deserialize;

use super::client::Client;
use super::visits::{cut, days_of};
use crate::query::Range;

/// Events cut per statement at most: a day is cut in parts of visitors above it.
const EVENTS_PER_CUT: u64 = 1_000_000;
/// Days summarised per upkeep round at most, so a first run over a long history takes turns.
const DAYS_PER_ROUND: usize = 31;

#[derive(Deserialize)]
struct Day {
    day: NaiveDate,
    events: u64,
    #[serde(default)]
    run: u64,
}

/// The summarised days of `range`, each with its current run.
pub async fn days(client: &Client, range: &Range) -> anyhow::Result<Vec<(NaiveDate, u64)>> {
    let rows: Vec<Day> = client
        .rows(&format!(
            "SELECT toString(day) AS day, events, run FROM visit_days FINAL
             WHERE day >= '{}' AND day <= '{}'",
            range.start, range.end
        ))
        .await?;
    Ok(rows.into_iter().map(|d| (d.day, d.run)).collect())
}

/// Summarises the days closed five minutes before `upto` (events still queued at midnight) that
/// are not summarised, or were from fewer events than they hold now. Returns how many.
pub async fn keep_current(client: &Client, upto: DateTime<Utc>) -> anyhow::Result<usize> {
    let closed = (upto - Duration::minutes(5)).date_naive();
    let held: Vec<Day> = client
        .rows(&format!(
            "SELECT toString(day) AS day, toUInt64(count()) AS events FROM events
             WHERE day < '{closed}' GROUP BY day ORDER BY day"
        ))
        .await?;
    let done: HashMap<NaiveDate, u64> = client
        .rows::<Day>("SELECT toString(day) AS day, events FROM visit_days FINAL")
        .await?
        .into_iter()
        .map(|d| (d.day, d.events))
        .collect();
    let stale: Vec<Day> = held
        .into_iter()
        .filter(|d| done.get(&d.day) != Some(&d.events))
        .take(DAYS_PER_ROUND)
        .collect();
    for d in &stale {
        summarise(client, d).await?;
    }
    Ok(stale.len())
}

/// Cuts one day's visits as a new run, then names it the day's. Two summarisers of one day write
/// two whole runs; the later named wins, and both are right for the events they saw.
async fn summarise(client: &Client, d: &Day) -> anyhow::Result<()> {
    let (day, run) = (d.day, Utc::now().timestamp_micros());
    let parts = d.events / EVENTS_PER_CUT + 1;
    for part in 0..parts {
        let days = days_of(
            &format!("day = '{day}' AND intHash64(visitor) % {parts} = {part}"),
            "1",
        );
        client
            .execute(&format!(
                "INSERT INTO visits (project_id, day, visitor, started, ended, page_views, entry, exit, run)
                 SELECT project_id, day, visitor, started, ended, page_views, entry, exit, toUInt64({run})
                 FROM ({}) WHERE page_views > 0",
                cut(&days)
            ))
            .await?;
    }
    client
        .execute(&format!(
            "INSERT INTO visit_days (day, events, run) VALUES ('{day}', {}, {run})",
            d.events
        ))
        .await
}
