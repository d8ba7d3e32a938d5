//! Analytics storage upkeep, on its own loop so the event loop never waits for it: partitions
//! ahead of time, summaries kept current, and the record of stored queue entries kept short.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};
use shipmate_analytics::{rollup, store};
use shipmate_core::queue::{entry_millis, Queue, EVENTS_STREAM};
use sqlx::PgPool;
use tokio::sync::watch;

pub struct Upkeep {
    pub db: PgPool,
    pub queue: Queue,
    /// How far behind the clock the summaries of the day in progress stay, at least.
    pub lag: chrono::Duration,
    /// Days whose partition exists (or never can: their rows are in the default partition).
    partitions: BTreeSet<NaiveDate>,
}

impl Upkeep {
    pub fn new(db: PgPool, queue: Queue, lag: chrono::Duration) -> Self {
        Upkeep {
            db,
            queue,
            lag,
            partitions: BTreeSet::new(),
        }
    }

    /// Runs rounds until `stop`: every two seconds, or less often when a round takes long (a very
    /// busy day), up to every 15 s, so upkeep rarely takes more than a twentieth of the time.
    pub async fn run(mut self, mut stop: watch::Receiver<bool>) {
        while !*stop.borrow() {
            let began = Instant::now();
            if let Err(e) = self.round().await {
                tracing::warn!(error = %format!("{e:#}"), "analytics upkeep failed; will retry");
            }
            let pause =
                (began.elapsed() * 20).clamp(Duration::from_secs(2), Duration::from_secs(15));
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = stop.changed() => break,
            }
        }
    }

    /// Partitions for yesterday to tomorrow (each day asked for once), summaries of closed days
    /// (five minutes after midnight, for events still queued) and of today up to `lag` ago, a week
    /// of days at most per round; then forgets stored entries the queue can no longer redeliver.
    pub async fn round(&mut self) -> anyhow::Result<()> {
        let yesterday = Utc::now().date_naive() - chrono::Duration::days(1);
        if !(0..3).all(|d| {
            self.partitions
                .contains(&(yesterday + chrono::Duration::days(d)))
        }) {
            let settled = rollup::ensure_partitions(&self.db, yesterday, 3).await?;
            self.partitions.retain(|d| *d >= yesterday);
            self.partitions.extend(settled);
        }
        let progress = self.queue.progress(EVENTS_STREAM).await?;
        // Summarise no further than the oldest request still queued (a second before it, for the
        // time between a request's arrival and its append): a backlog's events would otherwise
        // arrive behind the summaries and make the day be summarised again, whole.
        let mut upto = Utc::now() - self.lag;
        if let Some(key) = progress.as_ref().and_then(|p| p.unfinished_since()) {
            let queued = DateTime::from_timestamp_millis(entry_millis(key)).unwrap_or_default();
            upto = upto.min(queued - chrono::Duration::seconds(1));
        }
        rollup::keep_current(&self.db, chrono::Duration::minutes(5), upto, 7).await?;
        if let Some(p) = progress {
            store::forget_replays(&self.db, p.redeliverable_from()).await?;
        }
        Ok(())
    }
}
