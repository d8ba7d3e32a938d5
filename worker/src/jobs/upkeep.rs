//! Analytics storage upkeep, on its own loop so the event loop never waits for it: partitions
//! ahead of time, summaries kept current, and the record of stored queue entries kept short.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use shipmate_analytics::EventStore;
use shipmate_core::health::HealthHandle;
use shipmate_core::queue::{entry_millis, Queue, EVENTS_STREAM};
use tokio::sync::watch;

pub struct Upkeep {
    pub events: Arc<dyn EventStore>,
    pub queue: Queue,
    /// How far behind the clock the summaries of the day in progress stay, at least.
    pub lag: chrono::Duration,
}

impl Upkeep {
    pub fn new(events: Arc<dyn EventStore>, queue: Queue, lag: chrono::Duration) -> Self {
        Upkeep { events, queue, lag }
    }

    /// Runs rounds until `stop`: every two seconds, or less often when a round takes long (a very
    /// busy day), up to every 15 s, so upkeep rarely takes more than a twentieth of the time.
    pub async fn run(mut self, beat: HealthHandle, mut stop: watch::Receiver<bool>) {
        while !*stop.borrow() {
            beat.heartbeat();
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

    /// The store's upkeep up to `lag` ago (see `EventStore::upkeep`), then forgets stored entries
    /// the queue can no longer redeliver.
    pub async fn round(&mut self) -> anyhow::Result<()> {
        let progress = self.queue.progress(EVENTS_STREAM).await?;
        // Summarise no further than the oldest request still queued (a second before it, for the
        // time between a request's arrival and its append): a backlog's events would otherwise
        // arrive behind the summaries and make the day be summarised again, whole.
        let mut upto = Utc::now() - self.lag;
        if let Some(key) = progress.as_ref().and_then(|p| p.unfinished_since()) {
            let queued = DateTime::from_timestamp_millis(entry_millis(key)).unwrap_or_default();
            upto = upto.min(queued - chrono::Duration::seconds(1));
        }
        self.events.upkeep(upto).await?;
        if let Some(p) = progress {
            self.events.forget_replays(p.redeliverable_from()).await?;
        }
        Ok(())
    }
}
