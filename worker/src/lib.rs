//! `shipmate-worker`: consumes the job queues. Any number may run at once.

pub mod jobs;
pub mod settings;

use std::sync::Arc;

use shipmate_shared::kb::models::Registry;
use shipmate_shared::queue::{Queue, EMBED_STREAM};
use tokio::sync::watch;

use crate::settings::WorkerSettings;

/// Runs until `stop` turns true; the batch in hand is finished first.
pub async fn run(settings: WorkerSettings, mut stop: watch::Receiver<bool>) -> anyhow::Result<()> {
    let db = retry("postgres", || {
        shipmate_shared::db::connect(&settings.common.database_url, settings.common.db_pool)
    })
    .await?;
    let queue = retry("redis", || {
        Queue::connect(&settings.common.redis_url, &settings.common.queue_prefix)
    })
    .await?;
    let models = Arc::new(Registry::new(&settings.common));
    let consumer = settings
        .consumer
        .clone()
        .unwrap_or_else(|| format!("worker-{}", std::process::id()));
    tracing::info!(%consumer, "shipmate-worker started");
    let ctx = jobs::embed::Context {
        db,
        models,
        settings: settings.clone(),
    };
    loop {
        if *stop.borrow() {
            break;
        }
        // Wake on a job, or after a second anyway: the claim below also sweeps documents whose job
        // was lost (Redis restarted) or whose worker died (lease expired).
        let woken = tokio::select! {
            r = wait(&queue, &consumer, &settings) => r,
            _ = stop.changed() => break,
        };
        jobs::embed::drain(&ctx).await;
        if let Some(ids) = woken {
            if let Err(e) = queue.ack(EMBED_STREAM, &ids).await {
                tracing::warn!(error = %e, "could not acknowledge jobs; they will be redelivered and find nothing to do");
            }
        }
    }
    tracing::info!("shipmate-worker stopped");
    Ok(())
}

async fn wait(queue: &Queue, consumer: &str, settings: &WorkerSettings) -> Option<Vec<String>> {
    if let Err(e) = queue.ensure_group(EMBED_STREAM).await {
        tracing::warn!(error = %e, "redis unavailable; sweeping Postgres only");
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        return None;
    }
    let stale_ms = settings.embed_lease_secs * 1000;
    match queue
        .read::<serde_json::Value>(EMBED_STREAM, consumer, 512, 1000, stale_ms)
        .await
    {
        Ok(entries) => Some(entries.into_iter().map(|(id, _)| id).collect()),
        Err(e) => {
            tracing::warn!(error = %e, "reading the job stream failed; sweeping Postgres only");
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            None
        }
    }
}

/// Workers may start before the api has created the database, or while Redis restarts: keep
/// trying for a minute before giving up.
async fn retry<T, F, Fut>(what: &str, mut connect: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match connect().await {
            Ok(v) => return Ok(v),
            Err(e) if std::time::Instant::now() < deadline => {
                tracing::warn!(error = %e, "{what} not reachable yet; retrying");
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
            Err(e) => return Err(e.context(format!("connecting to {what}"))),
        }
    }
}
