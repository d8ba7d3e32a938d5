//! Writing enriched events: one statement per batch, idempotent by event id.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

use super::enrich::Enriched;
use super::events::IncomingEvent;
use crate::AppResult;

/// The salt of `day`, made on first use; salts older than two days are deleted.
pub async fn salt_for(db: &PgPool, day: NaiveDate) -> AppResult<Vec<u8>> {
    let fresh: [u8; 32] = rand::random();
    sqlx::query(
        "insert into analytics_salts (day, salt) values ($1, $2) on conflict (day) do nothing",
    )
    .bind(day)
    .bind(fresh.as_slice())
    .execute(db)
    .await?;
    sqlx::query("delete from analytics_salts where day < $1::date - 2")
        .bind(day)
        .execute(db)
        .await?;
    Ok(
        sqlx::query_scalar("select salt from analytics_salts where day = $1")
            .bind(day)
            .fetch_one(db)
            .await?,
    )
}

/// One event ready to store, with its request's project and arrival time.
pub struct Stored {
    pub project_id: Uuid,
    pub ts: DateTime<Utc>,
    pub event: IncomingEvent,
    pub enriched: Enriched,
}

/// Inserts events of any number of requests with one statement; events already stored (a
/// replayed job) are skipped, and so is everything of a project deleted meanwhile.
pub async fn insert(db: &PgPool, rows: &[Stored]) -> AppResult<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let col = |f: fn(&Stored) -> Option<String>| rows.iter().map(f).collect::<Vec<_>>();
    let projects: Vec<Uuid> = rows.iter().map(|r| r.project_id).collect();
    let times: Vec<DateTime<Utc>> = rows.iter().map(|r| r.ts).collect();
    let ids: Vec<Uuid> = rows.iter().map(|r| r.event.id).collect();
    let names: Vec<String> = rows.iter().map(|r| r.event.name.clone()).collect();
    let widths: Vec<Option<i32>> = rows.iter().map(|r| r.event.screen_width).collect();
    let devices: Vec<String> = rows.iter().map(|r| r.enriched.device.to_owned()).collect();
    let browsers: Vec<String> = rows.iter().map(|r| r.enriched.browser.clone()).collect();
    let oses: Vec<String> = rows.iter().map(|r| r.enriched.os.clone()).collect();
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
    let mut tx = db.begin().await?;
    // Shared with each day's roll (exclusive): a day cannot be summarised while its events are
    // being stored, and events stored after a roll find the day rolled and roll it again.
    let mut days: Vec<i32> = rows
        .iter()
        .map(|r| super::rollup::day_lock_key(r.ts.date_naive()))
        .collect();
    days.sort_unstable();
    days.dedup();
    for day in days {
        sqlx::query("select pg_advisory_xact_lock_shared($1, $2)")
            .bind(super::rollup::DAY_LOCK)
            .bind(day)
            .execute(&mut *tx)
            .await?;
    }
    let done = sqlx::query(
        "insert into analytics_events (project_id, ts, id, name, path, referrer_host, utm_source, utm_medium, utm_campaign,
            screen_width, device, browser, os, country, visitor, properties)
         select u.project_id, u.ts, u.id, u.name, u.path, u.referrer_host, u.utm_source, u.utm_medium, u.utm_campaign,
            u.screen_width, u.device, u.browser, u.os, u.country, u.visitor, u.properties
         from unnest($1::uuid[], $2::timestamptz[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::int[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int8[], $16::jsonb[])
            as u(project_id, ts, id, name, path, referrer_host, utm_source, utm_medium, utm_campaign, screen_width, device,
                 browser, os, country, visitor, properties)
         join projects p on p.id = u.project_id
         on conflict (project_id, ts, id) do nothing",
    )
    .bind(&projects)
    .bind(&times)
    .bind(&ids)
    .bind(&names)
    .bind(col(|r| r.enriched.path.clone()))
    .bind(col(|r| r.enriched.referrer_host.clone()))
    .bind(col(|r| r.enriched.utm_source.clone()))
    .bind(col(|r| r.enriched.utm_medium.clone()))
    .bind(col(|r| r.enriched.utm_campaign.clone()))
    .bind(&widths)
    .bind(&devices)
    .bind(&browsers)
    .bind(&oses)
    .bind(col(|r| r.enriched.country.clone()))
    .bind(&visitors)
    .bind(&props)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(done.rows_affected())
}

pub async fn count_dropped(
    db: &PgPool,
    project_id: Uuid,
    day: NaiveDate,
    bots: i64,
) -> AppResult<()> {
    sqlx::query(
        "insert into analytics_dropped (project_id, day, bots) select $1, $2, $3 where exists (select 1 from projects where id = $1)
         on conflict (project_id, day) do update set bots = analytics_dropped.bots + excluded.bots",
    )
    .bind(project_id)
    .bind(day)
    .bind(bots)
    .execute(db)
    .await?;
    Ok(())
}
