//! Writing enriched events: one statement per worker read, exactly once per queue entry.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

use crate::seam::{Batch, Stored};
use shipmate_core::{AppError, AppResult};

/// The codes of device, browser and OS names, adding the names not seen before.
pub async fn label_ids(db: &PgPool, labels: &[String]) -> AppResult<HashMap<String, i16>> {
    // Only names not there yet reach the insert: each proposed row would use up an identity value.
    sqlx::query!("insert into analytics_labels (label)
         select distinct l from unnest($1::text[]) l where not exists (select 1 from analytics_labels where label = l)
         on conflict (label) do nothing", labels)
    .execute(db)
    .await?;
    Ok(sqlx::query!(
        "select label, id from analytics_labels where label = any($1)",
        labels
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.label, r.id))
    .collect())
}

/// The queue entries among `entries` whose events are already stored (redelivered jobs).
pub async fn already_stored(db: &PgPool, entries: &[i64]) -> AppResult<HashSet<i64>> {
    if entries.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(sqlx::query_scalar!(r#"select e as "e!" from analytics_replays r, unnest(r.entries) e where r.entries && $1 and e = any($1)"#, entries)
    .fetch_all(db)
    .await?
    .into_iter()
    .collect())
}

/// Forgets stored batches whose entries all lie below `bound`: the queue will never deliver those
/// again (see `queue::Progress::redeliverable_from`).
pub async fn forget_replays(db: &PgPool, bound: i64) -> AppResult<u64> {
    Ok(
        sqlx::query!("delete from analytics_replays where last_entry < $1", bound)
            .execute(db)
            .await?
            .rows_affected(),
    )
}

/// Stores a read with one insert, atomically with its bot counts and the record of its entries.
/// Fails when another worker stored one of the entries meanwhile (a job redelivered
/// while its first worker was still busy); the caller then drops the entries already stored.
/// Everything of a project deleted meanwhile is skipped.
pub async fn insert(db: &PgPool, batch: Batch<'_>) -> AppResult<()> {
    let rows = batch.rows;
    let col = |f: fn(&Stored) -> Option<String>| rows.iter().map(f).collect::<Vec<_>>();
    let code = |label: &str| batch.labels.get(label).copied().unwrap_or_default();
    let projects: Vec<Uuid> = rows.iter().map(|r| r.project_id).collect();
    let times: Vec<DateTime<Utc>> = rows.iter().map(|r| r.ts).collect();
    let names: Vec<String> = rows.iter().map(|r| r.event.name.clone()).collect();
    let widths: Vec<Option<i32>> = rows.iter().map(|r| r.event.screen_width).collect();
    let devices: Vec<i16> = rows.iter().map(|r| code(&r.enriched.device)).collect();
    let browsers: Vec<i16> = rows.iter().map(|r| code(&r.enriched.browser)).collect();
    let oses: Vec<i16> = rows.iter().map(|r| code(&r.enriched.os)).collect();
    let visitors: Vec<i64> = rows.iter().map(|r| r.enriched.visitor).collect();
    let props: Vec<Option<Json<serde_json::Value>>> = rows
        .iter()
        .map(|r| {
            r.event
                .properties
                .clone()
                .map(|p| Json(serde_json::Value::Object(p)))
        })
        .collect();
    let revenue: Vec<Option<i64>> = rows
        .iter()
        .map(|r| r.event.revenue.as_ref().map(|m| m.micros))
        .collect();
    let mut tx = db.begin().await?;
    // Shared with the seal of each day's roll (exclusive): a day is sealed between inserts, and
    // events stored behind a seal mark its summaries dirty (below).
    let mut days: Vec<i32> = rows
        .iter()
        .map(|r| crate::days::day_lock_key(r.ts.date_naive()))
        .collect();
    days.sort_unstable();
    days.dedup();
    for day in days {
        // runtime-checked: an advisory lock, taken for its effect
        sqlx::query("select pg_advisory_xact_lock_shared($1, $2)")
            .bind(crate::days::DAY_LOCK)
            .bind(day)
            .execute(&mut *tx)
            .await?;
    }
    if !rows.is_empty() {
        // runtime-checked: its arrays hold NULLs, which the macros cannot type
        sqlx::query(
            "insert into analytics_events (project_id, ts, visitor, screen_width, device, browser, os, name, path,
                referrer_host, utm_source, utm_medium, utm_campaign, country, properties, revenue_micros,
                revenue_currency)
             select u.project_id, u.ts, u.visitor, u.screen_width, u.device, u.browser, u.os, u.name, u.path,
                u.referrer_host, u.utm_source, u.utm_medium, u.utm_campaign, u.country, u.properties,
                u.revenue_micros, u.revenue_currency
             from unnest($1::uuid[], $2::timestamptz[], $3::int8[], $4::int[], $5::int2[], $6::int2[], $7::int2[],
                         $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::jsonb[],
                         $16::int8[], $17::text[])
                as u(project_id, ts, visitor, screen_width, device, browser, os, name, path, referrer_host,
                     utm_source, utm_medium, utm_campaign, country, properties, revenue_micros, revenue_currency)
             join projects p on p.id = u.project_id",
        )
        .bind(&projects)
        .bind(&times)
        .bind(&visitors)
        .bind(&widths)
        .bind(&devices)
        .bind(&browsers)
        .bind(&oses)
        .bind(&names)
        .bind(col(|r| r.enriched.path.clone()))
        .bind(col(|r| r.enriched.referrer_host.clone()))
        .bind(col(|r| r.enriched.utm_source.clone()))
        .bind(col(|r| r.enriched.utm_medium.clone()))
        .bind(col(|r| r.enriched.utm_campaign.clone()))
        .bind(col(|r| r.enriched.country.clone()))
        .bind(&props)
        .bind(&revenue)
        .bind(col(|r| r.event.revenue.as_ref().map(|m| m.currency.clone())))
        .execute(&mut *tx)
        .await?;
        // Events older than their day's seal (a queue that lagged behind a roll) may be missing
        // from its summaries: the workers' upkeep rolls such a day again.
        // Only the projects whose events these are: the other tenants' summaries of the day stay.
        sqlx::query!(
            "insert into analytics_rollups as r (project_id, day, dirty, generation)
             select u.project_id, u.day, true, 1
             from (select project_id, (t at time zone 'UTC')::date as day, min(t) as first
                   from unnest($1::uuid[], $2::timestamptz[]) u(project_id, t) group by 1, 2) u
             join analytics_seals s on s.day = u.day and s.sealed > u.first
             join projects p on p.id = u.project_id
             on conflict (project_id, day) do update set dirty = true, generation = r.generation + 1
             where not r.dirty",
            &projects,
            &times
        )
        .execute(&mut *tx)
        .await?;
    }
    for (project, day, bots) in batch.bots {
        add_bots(&mut *tx, *project, *day, *bots).await?;
    }
    // Held to the commit, so of two workers storing the same entry the second sees the first's
    // record here and rolls back. An entry is stored twice only if one of the two took it over
    // (`redelivered`): a read of first deliveries need only look at records of such reads.
    // runtime-checked: an advisory lock, taken for its effect
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(REPLAY_LOCK)
        .execute(&mut *tx)
        .await?;
    let check = if batch.redelivered {
        "select exists (select 1 from analytics_replays where entries && $1)"
    } else {
        "select exists (select 1 from analytics_replays where redelivered and entries && $1)"
    };
    let stored: bool = sqlx::query_scalar(check)
        .bind(batch.entries)
        .fetch_one(&mut *tx)
        .await?;
    if stored {
        return Err(AppError::Internal(anyhow::anyhow!(
            "another worker stored some of these queue entries meanwhile"
        )));
    }
    sqlx::query!(
        "insert into analytics_replays (entries, last_entry, redelivered) values ($1, $2, $3)",
        batch.entries,
        batch.entries.iter().max().copied().unwrap_or_default(),
        batch.redelivered
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Serialises the last step of storing a read (see `insert`).
const REPLAY_LOCK: i64 = 7432;

/// Counts a request's events dropped as a bot's (whatever store holds the events).
pub async fn add_bots(
    db: impl sqlx::PgExecutor<'_>,
    project: Uuid,
    day: chrono::NaiveDate,
    bots: i64,
) -> AppResult<()> {
    sqlx::query!("insert into analytics_dropped (project_id, day, bots) select $1, $2, $3 where exists (select 1 from projects where id = $1)
         on conflict (project_id, day) do update set bots = analytics_dropped.bots + excluded.bots", project, day, bots)
    .execute(db)
    .await?;
    Ok(())
}
