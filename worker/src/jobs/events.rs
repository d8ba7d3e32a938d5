//! Analytics enrichment: the requests of one queue read become one multi-row insert. Delivery is at least
//! once (a batch is acknowledged only after its insert commits); the record of the queue entries
//! stored makes replays no-ops.

use std::collections::HashMap;
use std::net::IpAddr;

use chrono::NaiveDate;
use shipmate_shared::analytics::enrich::{self, Geo};
use shipmate_shared::analytics::events::EventBatch;
use shipmate_shared::analytics::store::{self, Stored};
use sqlx::PgPool;

pub struct Enricher {
    pub db: PgPool,
    pub geo: Geo,
    salts: HashMap<NaiveDate, Vec<u8>>,
    /// Codes of the device, browser and OS names seen so far (they never change).
    labels: HashMap<String, i16>,
}

impl Enricher {
    pub fn new(db: PgPool, geo: Geo) -> Self {
        Enricher {
            db,
            geo,
            salts: HashMap::new(),
            labels: HashMap::new(),
        }
    }

    async fn salt(&mut self, day: NaiveDate) -> anyhow::Result<Vec<u8>> {
        if let Some(s) = self.salts.get(&day) {
            return Ok(s.clone());
        }
        let salt = store::salt_for(&self.db, day).await?;
        // Only today's and yesterday's salts are ever needed.
        self.salts
            .retain(|d, _| *d >= day.pred_opt().unwrap_or(day));
        self.salts.insert(day, salt.clone());
        Ok(salt)
    }

    /// Enriches the requests of one read (each with its queue entry key) and stores their events
    /// with one insert (few, large statements keep up with the firehose); bots are only counted.
    /// Entries stored before (a redelivered job) are skipped.
    pub async fn handle(&mut self, batches: &[(i64, EventBatch)]) -> anyhow::Result<()> {
        let keys: Vec<i64> = batches.iter().map(|(k, _)| *k).collect();
        let done = store::already_stored(&self.db, &keys).await?;
        let (mut rows, mut bots, mut entries) = (Vec::new(), Vec::new(), Vec::new());
        for (key, batch) in batches.iter().filter(|(k, _)| !done.contains(k)) {
            entries.push(*key);
            let day = enrich::day_of(batch.received_at);
            let Some(ua) = enrich::user_agent(&batch.user_agent) else {
                bots.push((batch.project_id, day, batch.events.len() as i64));
                continue;
            };
            let country = batch
                .ip
                .parse::<IpAddr>()
                .ok()
                .and_then(|ip| self.geo.country(ip));
            let salt = self.salt(day).await?;
            let visitor =
                enrich::visitor_hash(&salt, batch.project_id, &batch.ip, &batch.user_agent);
            rows.extend(batch.events.iter().map(|event| Stored {
                project_id: batch.project_id,
                ts: batch.received_at,
                enriched: enrich::enrich(event, ua.clone(), country.clone(), visitor),
                event: event.clone(),
            }));
        }
        if entries.is_empty() {
            return Ok(());
        }
        let unknown: Vec<String> = rows
            .iter()
            .flat_map(|r| [r.enriched.device, &r.enriched.browser, &r.enriched.os])
            .filter(|l| !self.labels.contains_key(*l))
            .map(str::to_owned)
            .collect();
        if !unknown.is_empty() {
            self.labels
                .extend(store::label_ids(&self.db, &unknown).await?);
        }
        store::insert(
            &self.db,
            store::Batch {
                rows: &rows,
                labels: &self.labels,
                bots: &bots,
                entries: &entries,
            },
        )
        .await?;
        Ok(())
    }
}
