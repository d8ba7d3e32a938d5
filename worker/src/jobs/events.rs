//! Analytics enrichment: the requests of one queue read become one multi-row insert. Delivery is at least
//! once (a batch is acknowledged only after its insert commits); the record of the queue entries
//! stored makes replays no-ops.

use std::collections::HashMap;
use std::net::IpAddr;
use std::ops::Range;

use chrono::NaiveDate;
use shipmate_shared::analytics::enrich::{self, Geo};
use shipmate_shared::analytics::events::EventBatch;
use shipmate_shared::analytics::store::{self, Stored};
use sqlx::PgPool;
use uuid::Uuid;

/// One request's events as read from the queue, with its entry's id and key (`queue::entry_key`).
pub struct Read {
    pub id: String,
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

    /// Enriches the requests of one queue read for storing (see `Prepared`). Redelivered entries
    /// stored before are set aside, to be acknowledged only.
    pub async fn prepare(&mut self, reads: Vec<Read>) -> anyhow::Result<Prepared> {
        let redelivered: Vec<i64> = reads
            .iter()
            .filter(|r| r.redelivered)
            .map(|r| r.key)
            .collect();
        let done = store::already_stored(&self.db, &redelivered).await?;
        let mut prepared = Prepared {
            stored_before: Vec::new(),
            entries: Vec::new(),
            rows: Vec::new(),
            labels: HashMap::new(),
            redelivered: !redelivered.is_empty(),
        };
        for Read { id, key, batch, .. } in reads {
            if done.contains(&key) {
                prepared.stored_before.push(id);
                continue;
            }
            let day = enrich::day_of(batch.received_at);
            let first = prepared.rows.len();
            let Some(ua) = enrich::user_agent(&batch.user_agent) else {
                let bots = Some((batch.project_id, day, batch.events.len() as i64));
                prepared.entries.push(Entry {
                    id,
                    key,
                    rows: first..first,
                    bots,
                });
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
            let (project_id, ts) = (batch.project_id, batch.received_at);
            prepared
                .rows
                .extend(batch.events.into_iter().map(|event| Stored {
                    project_id,
                    ts,
                    enriched: enrich::enrich(&event, ua.clone(), country.clone(), visitor),
                    event,
                }));
            let rows = first..prepared.rows.len();
            prepared.entries.push(Entry {
                id,
                key,
                rows,
                bots: None,
            });
        }
        let unknown: Vec<String> = prepared
            .rows
            .iter()
            .flat_map(|r| [r.enriched.device, &r.enriched.browser, &r.enriched.os])
            .filter(|l| !self.labels.contains_key(*l))
            .map(str::to_owned)
            .collect();
        if !unknown.is_empty() {
            self.labels
                .extend(store::label_ids(&self.db, &unknown).await?);
        }
        prepared.labels = self.labels.clone();
        Ok(prepared)
    }

    /// Prepares and stores one read with one insert, all or nothing.
    pub async fn handle(&mut self, reads: Vec<Read>) -> anyhow::Result<()> {
        let prepared = self.prepare(reads).await?;
        prepared.store(&self.db, &prepared.entries).await
    }
}

/// One request of a prepared read: its entry, its rows in `Prepared::rows`, and the bots it
/// dropped (project, day, events).
struct Entry {
    id: String,
    key: i64,
    rows: Range<usize>,
    bots: Option<(Uuid, NaiveDate, i64)>,
}

/// A queue read, enriched: what `store` writes needs no more work from the `Enricher`, so a
/// worker can store one read while it prepares the next.
pub struct Prepared {
    /// Entry ids found stored already: to acknowledge only.
    pub stored_before: Vec<String>,
    entries: Vec<Entry>,
    rows: Vec<Stored>,
    labels: HashMap<String, i16>,
    redelivered: bool,
}

impl Prepared {
    /// Stores `entries` (some of this read's) with one insert, all or nothing.
    async fn store(&self, db: &PgPool, entries: &[Entry]) -> anyhow::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let rows = entries[0].rows.start..entries[entries.len() - 1].rows.end;
        let bots: Vec<_> = entries.iter().filter_map(|e| e.bots).collect();
        let keys: Vec<i64> = entries.iter().map(|e| e.key).collect();
        store::insert(
            db,
            store::Batch {
                rows: &self.rows[rows],
                labels: &self.labels,
                bots: &bots,
                entries: &keys,
                redelivered: self.redelivered,
            },
        )
        .await?;
        Ok(())
    }

    /// Stores the read with one insert; if that fails, request by request, so that one request
    /// that cannot be stored does not hold up the others. Returns the ids of the entries stored
    /// (or found stored before), to acknowledge; the rest are redelivered, to any worker, later.
    pub async fn store_all(mut self, db: &PgPool) -> Vec<String> {
        let mut done = std::mem::take(&mut self.stored_before);
        match self.store(db, &self.entries).await {
            Ok(()) => done.extend(self.entries.iter().map(|e| e.id.clone())),
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), entries = self.entries.len(), "storing a read's events failed; storing its requests one by one");
                for entry in &self.entries {
                    match self.store(db, std::slice::from_ref(entry)).await {
                        Ok(()) => done.push(entry.id.clone()),
                        Err(e) => {
                            tracing::warn!(error = %format!("{e:#}"), entry = %entry.id, "storing events failed; will retry")
                        }
                    }
                }
            }
        }
        done
    }
}
