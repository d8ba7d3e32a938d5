//! `shipmate-api analytics copy-to-clickhouse`: PostgreSQL's stored events into ClickHouse, for a
//! team moving its history over (docs/scaling.md). The copy goes one project's hour at a time, each
//! hour one insert block marked as a copy of that hour (`entry` is minus the hour's number, `seq`
//! the row's place in a fixed order), so it is:
//! - resumable: an hour found in ClickHouse with all its rows is skipped, so a stopped copy goes on
//!   where it stopped;
//! - idempotent: a second run finds every hour and adds nothing (a block is stored whole or not at
//!   all: an hour is one month's partition);
//! - checked: at the end PostgreSQL's rows and ClickHouse's copied rows are counted, per run.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::store::row;
use super::ClickHouse;
use crate::enrich::Enriched;
use crate::events::{IncomingEvent, Money};
use crate::seam::Stored;

/// What a run did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Copied {
    /// Hours copied by this run.
    pub hours: usize,
    /// Hours found copied before.
    pub skipped: usize,
    /// Events copied by this run.
    pub events: u64,
    /// The final count: events stored in PostgreSQL before the cutoff, and copies of them in
    /// ClickHouse (each row once).
    pub in_postgres: u64,
    pub in_clickhouse: u64,
}

fn marker(hour: DateTime<Utc>) -> i64 {
    -(hour.timestamp() / 3600)
}

#[derive(Deserialize)]
struct Done {
    project_id: Uuid,
    entry: i64,
    n: u64,
}

/// Copies the events stored before `before`, at most `max_hours` hours of them (all when `None`),
/// calling `progress(events copied or skipped, events in all)` after each hour.
pub async fn copy(
    ch: &ClickHouse,
    db: &PgPool,
    before: DateTime<Utc>,
    max_hours: Option<usize>,
    mut progress: impl FnMut(u64, u64),
) -> anyhow::Result<Copied> {
    let hours = sqlx::query!(
        r#"select project_id, date_trunc('hour', ts, 'UTC') as "hour!", count(*) as "n!"
           from analytics_events where ts < $1 group by 1, 2 order by 2, 1"#,
        before
    )
    .fetch_all(db)
    .await?;
    let done: HashMap<(Uuid, i64), u64> = ch
        .client
        .rows::<Done>("SELECT project_id, entry, uniqExact(seq) AS n FROM events WHERE entry < 0 GROUP BY project_id, entry")
        .await?
        .into_iter()
        .map(|d| ((d.project_id, d.entry), d.n))
        .collect();
    let labels: HashMap<i16, String> = sqlx::query!("select id, label from analytics_labels")
        .fetch_all(db)
        .await?
        .into_iter()
        .map(|r| (r.id, r.label))
        .collect();
    let total: u64 = hours.iter().map(|h| h.n as u64).sum();
    let mut run = Copied::default();
    let mut seen = 0;
    for h in &hours {
        let expected = h.n as u64;
        match done.get(&(h.project_id, marker(h.hour))) {
            Some(&n) if n == expected => run.skipped += 1,
            Some(&n) => anyhow::bail!(
                "ClickHouse holds {n} of the {expected} events of project {} at {}: more were stored in PostgreSQL since that hour was copied; copy only hours that are over",
                h.project_id,
                h.hour
            ),
            None if max_hours.is_some_and(|m| run.hours >= m) => break,
            None => {
                copy_hour(ch, db, &labels, h.project_id, (h.hour, before)).await?;
                run.hours += 1;
                run.events += expected;
            }
        }
        seen += expected;
        progress(seen, total);
    }
    run.in_postgres = sqlx::query_scalar!(
        r#"select count(*) as "n!" from analytics_events where ts < $1"#,
        before
    )
    .fetch_one(db)
    .await? as u64;
    #[derive(Deserialize)]
    struct Count {
        n: u64,
    }
    run.in_clickhouse = ch
        .client
        .rows::<Count>("SELECT uniqExact(project_id, entry, seq) AS n FROM events WHERE entry < 0")
        .await?
        .first()
        .map_or(0, |c| c.n);
    Ok(run)
}

/// One project's hour as one block, in a fixed order so a copy made again is the same rows.
async fn copy_hour(
    ch: &ClickHouse,
    db: &PgPool,
    labels: &HashMap<i16, String>,
    project_id: Uuid,
    (hour, before): (DateTime<Utc>, DateTime<Utc>),
) -> anyhow::Result<()> {
    let events = sqlx::query!(
        "select ts, visitor, screen_width, device, browser, os, name, path, referrer_host,
                utm_source, utm_medium, utm_campaign, country, properties, revenue_micros, revenue_currency
         from analytics_events
         where project_id = $1 and ts >= $2 and ts < least($2 + interval '1 hour', $3)
         order by ts, visitor, name, path, referrer_host, country",
        project_id,
        hour,
        before
    )
    .fetch_all(db)
    .await?;
    let label = |id: i16| labels.get(&id).cloned().unwrap_or_default();
    let rows: Vec<serde_json::Value> = events
        .into_iter()
        .enumerate()
        .map(|(seq, e)| {
            let stored = Stored {
                entry: marker(hour),
                project_id,
                ts: e.ts,
                event: IncomingEvent {
                    name: e.name,
                    url: None,
                    referrer: None,
                    utm_source: None,
                    utm_medium: None,
                    utm_campaign: None,
                    screen_width: e.screen_width,
                    properties: e.properties.and_then(|p| p.as_object().cloned()),
                    revenue: e
                        .revenue_micros
                        .zip(e.revenue_currency)
                        .map(|(micros, currency)| Money { micros, currency }),
                },
                enriched: Enriched {
                    path: e.path,
                    referrer_host: e.referrer_host,
                    utm_source: e.utm_source,
                    utm_medium: e.utm_medium,
                    utm_campaign: e.utm_campaign,
                    device: label(e.device),
                    browser: label(e.browser),
                    os: label(e.os),
                    country: e.country,
                    visitor: e.visitor,
                },
            };
            row(&stored, seq)
        })
        .collect();
    tracing::debug!(project = %project_id, %hour, rows = rows.len(), "copying an hour");
    ch.client.insert("events", &rows).await
}
