//! Analytics enrichment: each queued request becomes one multi-row insert. Delivery is at least
//! once (a batch is acknowledged only after its insert commits); event ids make replays no-ops.

use std::collections::HashMap;
use std::net::IpAddr;

use chrono::NaiveDate;
use shipmate_shared::analytics::enrich::{self, Geo};
use shipmate_shared::analytics::events::EventBatch;
use shipmate_shared::analytics::store;
use sqlx::PgPool;

pub struct Enricher {
    pub db: PgPool,
    pub geo: Geo,
    salts: HashMap<NaiveDate, Vec<u8>>,
}

impl Enricher {
    pub fn new(db: PgPool, geo: Geo) -> Self {
        Enricher {
            db,
            geo,
            salts: HashMap::new(),
        }
    }

    async fn salt(&mut self, day: NaiveDate) -> anyhow::Result<Vec<u8>> {
        if let Some(s) = self.salts.get(&day) {
            return Ok(s.clone());
        }
        let salt = store::salt_for(&self.db, day)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        // Only today's and yesterday's salts are ever needed.
        self.salts
            .retain(|d, _| *d >= day.pred_opt().unwrap_or(day));
        self.salts.insert(day, salt.clone());
        Ok(salt)
    }

    /// Enriches and stores one request's events; bots are only counted.
    pub async fn handle(&mut self, batch: EventBatch) -> anyhow::Result<()> {
        let day = enrich::day_of(batch.received_at);
        let Some(ua) = enrich::user_agent(&batch.user_agent) else {
            store::count_dropped(&self.db, batch.project_id, day, batch.events.len() as i64)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            return Ok(());
        };
        let country = batch
            .ip
            .parse::<IpAddr>()
            .ok()
            .and_then(|ip| self.geo.country(ip));
        let salt = self.salt(day).await?;
        let visitor = enrich::visitor_hash(&salt, batch.project_id, &batch.ip, &batch.user_agent);
        let rows: Vec<_> = batch
            .events
            .into_iter()
            .map(|e| {
                let enriched = enrich::enrich(&e, ua.clone(), country.clone(), visitor);
                (e, enriched)
            })
            .collect();
        store::insert(&self.db, batch.project_id, batch.received_at, &rows)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(())
    }
}
