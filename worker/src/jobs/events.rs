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

/// One request's events as read from the queue, with its entry's key (`queue::entry_key`).
pub struct Read {
    pub key: i64,
    /// Taken over from another worker: it may have been stored already.
    pub redelivered: bool,
    pub batch: EventBatch,
}

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

    /// Enriches the requests of one queue read and stores their events with one insert (few,
    /// large statements keep up with the firehose); bots are only counted. Redelivered entries
    /// stored before are skipped.
    pub async fn handle(&mut self, reads: &[Read]) -> anyhow::Result<()> {
        let redelivered: Vec<i64> = reads
            .iter()
            .filter(|r| r.redelivered)
            .map(|r| r.key)
            .collect();
        let done = store::already_stored(&self.db, &redelivered).await?;
        let (mut rows, mut bots, mut entries) = (Vec::new(), Vec::new(), Vec::new());
        for Read { key, batch, .. } in reads.iter().filter(|r| !done.contains(&r.key)) {
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
                redelivered: !redelivered.is_empty(),
            },
        )
        .await?;
        Ok(())
    }
}
