//! Analytics enrichment: the requests of one queue read become one multi-row insert. Delivery is at least
//! once (a batch is acknowledged only after its insert commits); event ids make replays no-ops.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;

use chrono::{Duration, NaiveDate, Utc};
use shipmate_shared::analytics::enrich::{self, Geo};
use shipmate_shared::analytics::events::EventBatch;
use shipmate_shared::analytics::rollup;
use shipmate_shared::analytics::store::{self, Stored};
use sqlx::PgPool;

pub struct Enricher {
    pub db: PgPool,
    pub geo: Geo,
    salts: HashMap<NaiveDate, Vec<u8>>,
    /// Days whose partition exists (or never can: their rows are in the default partition).
    partitions: BTreeSet<NaiveDate>,
}

impl Enricher {
    pub fn new(db: PgPool, geo: Geo) -> Self {
        Enricher {
            db,
            geo,
            salts: HashMap::new(),
            partitions: BTreeSet::new(),
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

    /// Enriches the requests of one read and stores their events with one insert (few, large
    /// statements keep up with the firehose); bots are only counted, once the insert is in.
    pub async fn handle(&mut self, batches: &[EventBatch]) -> anyhow::Result<()> {
        let mut rows = Vec::new();
        let mut days = BTreeSet::new();
        let mut bots = Vec::new();
        for batch in batches {
            let day = enrich::day_of(batch.received_at);
            let Some(ua) = enrich::user_agent(&batch.user_agent) else {
                bots.push((batch.project_id, day, batch.events.len() as i64));
                continue;
            };
            days.insert(day);
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
        let db = &self.db;
        let fail = |e: shipmate_shared::AppError| anyhow::anyhow!("{e}");
        store::insert(db, &rows).await.map_err(fail)?;
        for (project, day, n) in bots {
            store::count_dropped(db, project, day, n)
                .await
                .map_err(fail)?;
        }
        // Events for a day already summarised (late ones) must show in the reads: the shared day
        // lock in the insert makes this check see any roll that could have missed them.
        let days: Vec<NaiveDate> = days.into_iter().collect();
        rollup::reroll_closed(db, &days).await.map_err(fail)?;
        Ok(())
    }

    /// Storage upkeep, about once a minute: partitions for yesterday to tomorrow (each day asked
    /// for once), and summaries of the days closed since (five minutes after midnight, for events
    /// still queued), a week of days at most per round.
    pub async fn upkeep(&mut self) -> anyhow::Result<()> {
        let fail = |e: shipmate_shared::AppError| anyhow::anyhow!("{e}");
        let yesterday = Utc::now().date_naive() - Duration::days(1);
        if !(0..3).all(|d| self.partitions.contains(&(yesterday + Duration::days(d)))) {
            let settled = rollup::ensure_partitions(&self.db, yesterday, 3)
                .await
                .map_err(fail)?;
            self.partitions.retain(|d| *d >= yesterday);
            self.partitions.extend(settled);
        }
        let rolled = rollup::roll_due(&self.db, Duration::minutes(5), 7)
            .await
            .map_err(fail)?;
        if !rolled.is_empty() {
            tracing::info!(days = rolled.len(), "analytics summaries rolled up");
        }
        Ok(())
    }
}
