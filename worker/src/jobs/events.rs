//! Analytics enrichment: the requests of one queue read become one multi-row insert. Delivery is at least
//! once (a batch is acknowledged only after its insert commits); the record of the queue entries
//! stored makes replays no-ops.

use std::collections::HashMap;
use std::net::IpAddr;
use std::ops::Range;
use std::sync::Arc;

use chrono::NaiveDate;
use shipmate_analytics::enrich;
use shipmate_analytics::events::EventBatch;
use shipmate_analytics::pg::Postgres;
use shipmate_analytics::seam::{Batch, EventStore, Stored};
use shipmate_analytics::visitor::{self, Geo, SaltCache, Visitor};
use sqlx::PgPool;
use tracing::Instrument;
use uuid::Uuid;

/// One request's events as read from the queue, with its entry's key (`queue::entry_key`).
pub struct Read {
    pub key: i64,
    /// Taken over from another worker: it may have been stored already.
    pub redelivered: bool,
    pub batch: EventBatch,
}

pub struct Enricher {
    /// Salts and the previous release's entries.
    pub db: PgPool,
    /// Where the events go (`shipmate_analytics::seam`).
    pub events: Arc<dyn EventStore>,
    /// With `salts`, only for entries queued by the previous release (`EventBatch::legacy_ip`).
    pub geo: Geo,
    salts: SaltCache,
    /// Codes of the device, browser and OS names seen so far (they never change).
    labels: HashMap<String, i16>,
}

impl Enricher {
    pub fn new(db: PgPool, geo: Geo) -> Self {
        Enricher {
            events: Arc::new(Postgres::new(db.clone())),
            db,
            geo,
            salts: SaltCache::default(),
            labels: HashMap::new(),
        }
    }

    /// Stores in `events` instead of PostgreSQL (`shipmate_analytics::open_store`).
    pub fn storing_in(mut self, events: Arc<dyn EventStore>) -> Self {
        self.events = events;
        self
    }

    /// The visitor of an entry the previous release queued with the raw client, derived as the
    /// api now does; the raw values go no further. Remove with `EventBatch::legacy_ip`.
    async fn legacy_visitor(&self, batch: &EventBatch) -> anyhow::Result<Option<Visitor>> {
        let (Some(ip), Some(ua)) = (&batch.legacy_ip, &batch.legacy_user_agent) else {
            return Ok(None);
        };
        let Ok(ip) = ip.parse::<IpAddr>() else {
            return Ok(None);
        };
        let salt = self
            .salts
            .get(&self.db, visitor::day_of(batch.received_at))
            .await?;
        Ok(visitor::derive(&salt, &self.geo, batch.project_id, ip, ua))
    }

    /// Enriches the requests of one queue read for storing (see `Prepared`). Redelivered entries
    /// stored before are set aside, to be acknowledged only.
    pub async fn prepare(&mut self, reads: Vec<Read>) -> anyhow::Result<Prepared> {
        let redelivered: Vec<i64> = reads
            .iter()
            .filter(|r| r.redelivered)
            .map(|r| r.key)
            .collect();
        let done = self.events.already_stored(&redelivered).await?;
        let mut prepared = Prepared {
            stored_before: Vec::new(),
            entries: Vec::new(),
            rows: Vec::new(),
            labels: HashMap::new(),
            redelivered: !redelivered.is_empty(),
        };
        for Read { key, mut batch, .. } in reads {
            if done.contains(&key) {
                prepared.stored_before.push(key);
                continue;
            }
            let day = visitor::day_of(batch.received_at);
            let first = prepared.rows.len();
            let visitor = if batch.legacy_ip.is_some() {
                self.legacy_visitor(&batch).await?
            } else {
                batch.visitor.take()
            };
            let Some(visitor) = visitor else {
                let bots = Some((batch.project_id, day, batch.events.len() as i64));
                prepared.entries.push(Entry {
                    project_id: batch.project_id,
                    key,
                    rows: first..first,
                    bots,
                });
                continue;
            };
            let (project_id, ts) = (batch.project_id, batch.received_at);
            // A request's events arrive at one instant; a microsecond apart each, they keep the
            // order they were sent in (a visit's entry and exit pages, a funnel's steps).
            prepared.rows.extend(
                batch
                    .events
                    .into_iter()
                    .enumerate()
                    .map(|(i, event)| Stored {
                        entry: key,
                        project_id,
                        ts: ts + chrono::Duration::microseconds(i as i64),
                        enriched: enrich::enrich(&event, &visitor),
                        event,
                    }),
            );
            let rows = first..prepared.rows.len();
            prepared.entries.push(Entry {
                project_id,
                key,
                rows,
                bots: None,
            });
        }
        let unknown: Vec<String> = prepared
            .rows
            .iter()
            .flat_map(|r| [&r.enriched.device, &r.enriched.browser, &r.enriched.os])
            .filter(|l| !self.labels.contains_key(*l))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            self.labels.extend(self.events.label_ids(&unknown).await?);
        }
        prepared.labels = self.labels.clone();
        Ok(prepared)
    }

    /// Prepares and stores one read with one insert, all or nothing.
    pub async fn handle(&mut self, reads: Vec<Read>) -> anyhow::Result<()> {
        let prepared = self.prepare(reads).await?;
        prepared.store(&*self.events, &prepared.entries).await
    }
}

/// One request of a prepared read: its entry, its rows in `Prepared::rows`, and the bots it
/// dropped (project, day, events).
struct Entry {
    project_id: Uuid,
    key: i64,
    rows: Range<usize>,
    bots: Option<(Uuid, NaiveDate, i64)>,
}

/// A queue read, enriched: what `store` writes needs no more work from the `Enricher`, so a
/// worker can store one read while it prepares the next.
pub struct Prepared {
    /// Entry keys found stored already: to acknowledge only.
    pub stored_before: Vec<i64>,
    entries: Vec<Entry>,
    rows: Vec<Stored>,
    labels: HashMap<String, i16>,
    redelivered: bool,
}

impl Prepared {
    /// Stores `entries` (some of this read's) with one insert, all or nothing.
    async fn store(&self, events: &dyn EventStore, entries: &[Entry]) -> anyhow::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let rows = entries[0].rows.start..entries[entries.len() - 1].rows.end;
        let bots: Vec<_> = entries.iter().filter_map(|e| e.bots).collect();
        let keys: Vec<i64> = entries.iter().map(|e| e.key).collect();
        events
            .insert(Batch {
                rows: &self.rows[rows],
                labels: &self.labels,
                bots: &bots,
                entries: &keys,
                redelivered: self.redelivered,
            })
            .await?;
        Ok(())
    }

    /// Stores the read with one insert; if that fails, request by request, so that one request
    /// that cannot be stored does not hold up the others. Returns the keys of the entries stored
    /// (or found stored before), to acknowledge; the rest are redelivered, to any worker, later.
    pub async fn store_all(mut self, events: &dyn EventStore) -> Vec<i64> {
        let span = tracing::info_span!(
            "events",
            requests = self.entries.len(),
            projects = tracing::field::Empty,
            project_id = tracing::field::Empty
        );
        super::record_projects(&span, self.entries.iter().map(|e| e.project_id));
        let mut done = std::mem::take(&mut self.stored_before);
        let all = self.store(events, &self.entries).instrument(span.clone());
        match all.await {
            Ok(()) => done.extend(self.entries.iter().map(|e| e.key)),
            Err(e) => {
                span.in_scope(|| tracing::warn!(error = %format!("{e:#}"), "storing a read's events failed; storing its requests one by one"));
                for entry in &self.entries {
                    // One request is one project's: its span names it.
                    let one = tracing::info_span!(parent: &span, "request", project_id = %entry.project_id, entry = entry.key);
                    let stored = self
                        .store(events, std::slice::from_ref(entry))
                        .instrument(one.clone())
                        .await;
                    match stored {
                        Ok(()) => done.push(entry.key),
                        Err(e) => one.in_scope(|| {
                            tracing::warn!(error = %format!("{e:#}"), "storing events failed; will retry")
                        }),
                    }
                }
            }
        }
        done
    }
}
