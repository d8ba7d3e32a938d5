//! Writing events to ClickHouse. There are no transactions: an insert of one block is stored
//! whole on one server, and what a retry could double is caught by the queue entry each row
//! carries (`entry`, `seq`): entries found stored are not stored again, and an insert whose answer
//! was lost is looked for before it is called failed.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

use super::client::Client;
use crate::seam::{Batch, Stored};
use shipmate_core::{AppError, AppResult};

/// An hour before an entry's queue time: its events were accepted within seconds of it, so this
/// bounds a look for them to the partitions that can hold them.
const ENTRY_SLACK_MS: i64 = 3_600_000;

fn internal(e: anyhow::Error) -> AppError {
    AppError::Internal(e)
}

/// A property's value as PostgreSQL's `->>` gives it: strings bare, numbers and booleans as
/// written, null as no value.
fn property_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

pub(super) fn row(r: &Stored, seq: usize) -> Value {
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let (keys, values): (Vec<String>, Vec<String>) = r
        .event
        .properties
        .iter()
        .flatten()
        .filter_map(|(k, v)| property_text(v).map(|t| (k.clone(), t)))
        .unzip();
    let micros = r.ts.timestamp_micros();
    json!({
        "project_id": r.project_id,
        "day": r.ts.date_naive().to_string(),
        "t": micros,
        "visitor": r.enriched.visitor,
        "entry": r.entry,
        "seq": seq,
        "name": r.event.name,
        "path": text(&r.enriched.path),
        "referrer_host": text(&r.enriched.referrer_host),
        "utm_source": text(&r.enriched.utm_source),
        "utm_medium": text(&r.enriched.utm_medium),
        "utm_campaign": text(&r.enriched.utm_campaign),
        "country": text(&r.enriched.country),
        "device": r.enriched.device,
        "browser": r.enriched.browser,
        "os": r.enriched.os,
        "screen_width": r.event.screen_width,
        "prop_keys": keys,
        "prop_values": values,
        "revenue_micros": r.event.revenue.as_ref().map_or(0, |m| m.micros),
        "revenue_currency": r.event.revenue.as_ref().map_or("", |m| m.currency.as_str()),
    })
}

/// Rows stored per entry, of `entries`.
async fn stored_rows(client: &Client, entries: &[i64]) -> AppResult<HashMap<i64, u64>> {
    let Some(first) = entries.iter().min() else {
        return Ok(HashMap::new());
    };
    let since = ((first >> 20) - ENTRY_SLACK_MS).max(0) * 1000;
    let list = entries
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    #[derive(serde::Deserialize)]
    struct Count {
        entry: i64,
        n: u64,
    }
    let rows: Vec<Count> = client
        .rows(&format!(
            "SELECT entry, uniqExact(seq) AS n FROM events WHERE t >= {since} AND entry IN ({list}) GROUP BY entry"
        ))
        .await
        .map_err(internal)?;
    Ok(rows.into_iter().map(|c| (c.entry, c.n)).collect())
}

pub async fn already_stored(client: &Client, entries: &[i64]) -> AppResult<HashSet<i64>> {
    Ok(stored_rows(client, entries).await?.into_keys().collect())
}

/// Stores a batch as one block, each row with its entry and place in it (`seq`).
pub async fn insert(client: &Client, db: &PgPool, batch: Batch<'_>) -> AppResult<()> {
    if batch.redelivered && !already_stored(client, batch.entries).await?.is_empty() {
        return Err(AppError::Internal(anyhow::anyhow!(
            "another worker stored some of these queue entries meanwhile"
        )));
    }
    // Events of a project deleted since they were accepted are dropped, as in PostgreSQL.
    let projects: Vec<Uuid> = batch.rows.iter().map(|r| r.project_id).collect();
    let live: HashSet<Uuid> =
        sqlx::query_scalar!("select id from projects where id = any($1)", &projects)
            .fetch_all(db)
            .await?
            .into_iter()
            .collect();
    let mut rows = Vec::with_capacity(batch.rows.len());
    let mut seq = 0;
    for (i, r) in batch.rows.iter().enumerate() {
        seq = if i > 0 && batch.rows[i - 1].entry == r.entry {
            seq + 1
        } else {
            0
        };
        if live.contains(&r.project_id) {
            rows.push(row(r, seq));
        }
    }
    if !rows.is_empty() {
        let started = std::time::Instant::now();
        let sent = client.insert("events", &rows).await;
        metrics::histogram!("shipmate_clickhouse_insert_seconds")
            .record(started.elapsed().as_secs_f64());
        if let Err(e) = sent {
            // The block may have been stored with its answer lost: then it is done.
            let expected: HashMap<i64, u64> = rows.iter().fold(HashMap::new(), |mut m, r| {
                *m.entry(r["entry"].as_i64().unwrap_or_default())
                    .or_default() += 1;
                m
            });
            match stored_rows(client, batch.entries).await {
                Ok(found) if found == expected => {}
                _ => return Err(internal(e)),
            }
        }
    }
    for (project, day, bots) in batch.bots {
        crate::pg::store::add_bots(db, *project, *day, *bots).await?;
    }
    Ok(())
}
