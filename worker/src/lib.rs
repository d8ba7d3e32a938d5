//! `shipmate-worker`: consumes the job queues. Any number may run at once.

pub mod jobs;
pub mod settings;

use std::sync::Arc;
use std::time::Duration;

use shipmate_analytics::events::EventBatch;
use shipmate_analytics::visitor::Geo;
use shipmate_core::health::{HealthHandle, HealthRegistry};
use shipmate_core::queue::{Entry, Queue, EMBED_STREAM, EVENTS_STREAM};
use shipmate_core::startup::retry;
use shipmate_kb::models::Registry;
use tokio::sync::watch;

use crate::jobs::events::{Enricher, Read};
use crate::jobs::upkeep::Upkeep;
use crate::settings::WorkerSettings;

/// Runs the job loops until `stop` turns true; each finishes the batch in hand first.
pub async fn run(settings: WorkerSettings, stop: watch::Receiver<bool>) -> anyhow::Result<()> {
    let db = retry("postgres", || {
        shipmate_core::db::connect(&settings.common.database_url, settings.common.db_pool)
    })
    .await?;
    // One connection per loop: a blocking XREADGROUP holds its (multiplexed) connection, so on a
    // shared one each loop would first wait out the other's block, up to a second per wake-up.
    let connect = || {
        retry("redis", || {
            Queue::connect(
                &settings.common.redis_url,
                &settings.common.redis_cluster_urls,
                &settings.common.queue_prefix,
            )
        })
    };
    let (embed_queue, events_queue, upkeep_queue) =
        (connect().await?, connect().await?, connect().await?);
    let consumer = settings
        .consumer
        .clone()
        .unwrap_or_else(|| format!("worker-{}", std::process::id()));
    tracing::info!(%consumer, "shipmate-worker started");
    let delivery_queue = retry("redis", || {
        shipmate_outbound::connect_queue(&settings.common.redis_url, &settings.common.queue_prefix)
    })
    .await?;
    let embed_ctx = jobs::embed::Context {
        db: db.clone(),
        deliveries: delivery_queue.clone(),
        models: Arc::new(Registry::new(&settings.common.kb).with_nice(settings.embed_nice)),
        settings: settings.clone(),
    };
    // Each loop's heartbeat, with how long it may take to come round: an embedding drain works
    // through a whole backlog before it does; the events loop wakes every second; upkeep rounds
    // pause up to 15 s; the schedules' delivery sweep ticks every 5 s; the delivery consumer's
    // queue beats every 250 ms while it polls.
    let health = HealthRegistry::default();
    let beats = (
        health.register("embed", Duration::from_secs(300)),
        health.register("events", Duration::from_secs(60)),
        health.register("upkeep", Duration::from_secs(120)),
        health.register("schedules", Duration::from_secs(60)),
        health.register("deliveries", Duration::from_secs(120)),
    );
    if let Some(addr) = settings.metrics_bind {
        metrics_listener(addr, connect().await?, health).await?;
    }
    let lag = chrono::Duration::seconds(settings.summary_lag_secs);
    // The weekly report is the worker's only read of figures: on the primary.
    let primary = shipmate_core::replicas::Replicas::primary_only(db.clone());
    let events = shipmate_analytics::open_store(&settings.common.analytics, primary).await?;
    let enricher = Enricher::new(
        db.clone(),
        Geo::open(settings.common.analytics.geoip_db.as_deref()),
    )
    .storing_in(events);
    let upkeep = Upkeep::new(enricher.events.clone(), upkeep_queue, lag).run(beats.2, stop.clone());
    let deliver_ctx = jobs::deliver::Context::new(
        db.clone(),
        delivery_queue,
        settings.common.outbound.clone(),
        &settings.public_url,
    );
    let redis = (
        settings.common.redis_url.clone(),
        settings.common.queue_prefix.clone(),
    );
    let deliveries = jobs::schedules::deliveries(
        consumer.clone(),
        deliver_ctx.clone(),
        redis,
        beats.4,
        stop.clone(),
    );
    let report = (
        settings.weekly_report_cron.clone(),
        settings.alerts_cron.clone(),
        settings.public_url.clone(),
    );
    let schedules = jobs::schedules::cron(
        consumer.clone(),
        &deliver_ctx,
        report,
        enricher.events.clone(),
        beats.3,
        stop.clone(),
    );
    let embed = embed_loop(
        embed_ctx,
        embed_queue,
        consumer.clone(),
        beats.0,
        stop.clone(),
    );
    let events = events_loop(enricher, events_queue, consumer, settings, beats.1, stop);
    tokio::join!(embed, events, upkeep, deliveries, schedules);
    tracing::info!("shipmate-worker stopped");
    Ok(())
}

async fn embed_loop(
    ctx: jobs::embed::Context,
    queue: Queue,
    consumer: String,
    beat: HealthHandle,
    mut stop: watch::Receiver<bool>,
) {
    let stale_ms = ctx.settings.embed_lease_secs * 1000;
    while !*stop.borrow() {
        beat.heartbeat();
        // Wake on a job, or after a second anyway: the claim below also sweeps documents whose job
        // was lost (Redis restarted) or whose worker died (lease expired), and new feedback entries
        // are embedded for the similarity hint within that second.
        let woken = tokio::select! {
            r = read::<serde_json::Value>(&queue, EMBED_STREAM, &consumer, 512, stale_ms) => r,
            _ = stop.changed() => break,
        };
        jobs::embed::drain(&ctx, &stop).await;
        jobs::similar::drain(&ctx).await;
        ack(
            &queue,
            EMBED_STREAM,
            woken.into_iter().map(|e| e.key).collect(),
        )
        .await;
    }
}

async fn events_loop(
    mut enricher: Enricher,
    queue: Queue,
    consumer: String,
    settings: WorkerSettings,
    beat: HealthHandle,
    mut stop: watch::Receiver<bool>,
) {
    let stale_ms = settings.events_stale_secs * 1000;
    let (read_size, window) = enricher.events.pacing();
    // Under a backlog reads are stored while the next is read and enriched, up to two at once: a
    // single insert keeps one Postgres backend, one core, busy, and the worker would wait for it.
    let mut storing = tokio::task::JoinSet::new();
    while !*stop.borrow() {
        beat.heartbeat();
        let entries = tokio::select! {
            // Many requests per read, stored with one insert: single-event requests arrive by
            // the thousand per second, and a statement per few rows would not keep up.
            r = read::<EventBatch>(&queue, EVENTS_STREAM, &consumer, read_size, stale_ms) => r,
            _ = stop.changed() => break,
        };
        // Unreadable entries can never succeed: they are dropped rather than retried forever.
        let (mut unreadable, mut reads) = (Vec::new(), Vec::new());
        for e in entries {
            match e.job {
                Some(batch) => reads.push(Read {
                    key: e.key,
                    redelivered: e.redelivered,
                    batch,
                }),
                None => unreadable.push(e.key),
            }
        }
        ack(&queue, EVENTS_STREAM, unreadable).await;
        let full = reads.len() >= read_size;
        if !reads.is_empty() {
            match enricher.prepare(reads).await {
                Ok(prepared) => {
                    while storing.len() >= 2 {
                        if let Some(Ok(done)) = storing.join_next().await {
                            ack(&queue, EVENTS_STREAM, done).await;
                        }
                    }
                    let events = enricher.events.clone();
                    storing.spawn(async move { prepared.store_all(&*events).await });
                }
                // Left unacknowledged: redelivered (to any worker) after `stale_ms`.
                Err(e) => {
                    tracing::warn!(error = %format!("{e:#}"), "preparing a read's events failed; will retry")
                }
            }
        }
        // A read that was not full means the worker keeps up: wait for its store, so the next
        // read gathers what arrives meanwhile (fewer, larger transactions, each with its commit
        // flush). Only a backlog gets the second store in flight.
        while let Some(joined) = if full {
            storing.try_join_next()
        } else {
            storing.join_next().await
        } {
            if let Ok(done) = joined {
                ack(&queue, EVENTS_STREAM, done).await;
            }
        }
        if !full && !window.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(window) => {}
                _ = stop.changed() => {}
            }
        }
    }
    // Finish the reads in hand.
    while let Some(done) = storing.join_next().await {
        ack(&queue, EVENTS_STREAM, done.unwrap_or_default()).await;
    }
}

async fn read<T: for<'de> serde::Deserialize<'de> + Send + 'static>(
    queue: &Queue,
    stream: &str,
    consumer: &str,
    count: usize,
    stale_ms: u64,
) -> Vec<Entry<T>> {
    let result = match queue.ensure_group(stream).await {
        Ok(()) => {
            queue
                .read::<T>(stream, consumer, count, 1000, stale_ms)
                .await
        }
        Err(e) => Err(e),
    };
    match result {
        Ok(entries) => entries,
        Err(e) => {
            tracing::warn!(error = %e, stream, "redis unavailable; retrying in a second");
            tokio::time::sleep(Duration::from_secs(1)).await;
            Vec::new()
        }
    }
}

async fn ack(queue: &Queue, stream: &str, keys: Vec<i64>) {
    if keys.is_empty() {
        return;
    }
    if let Err(e) = queue.ack(stream, &keys).await {
        tracing::warn!(error = %e, stream, "could not acknowledge; the entries will be redelivered and replayed as no-ops");
    }
}

/// Serves `GET /metrics` (Prometheus text) and `GET /healthz` (each loop's last heartbeat: 200
/// while every loop came round within its deadline, 503 otherwise) on `addr` until the process
/// ends.
async fn metrics_listener(
    addr: std::net::SocketAddr,
    queue: Queue,
    health: HealthRegistry,
) -> anyhow::Result<()> {
    shipmate_core::metrics::handle();
    shipmate_core::metrics::spawn_upkeep();
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, "metrics on /metrics, liveness on /healthz");
    let app = axum::Router::new()
        .route(
            "/metrics",
            axum::routing::get(move || {
                let queue = queue.clone();
                async move { shipmate_core::metrics::render(&queue).await }
            }),
        )
        .route(
            "/healthz",
            axum::routing::get(move || {
                let status = health.status();
                let code = if status.healthy {
                    axum::http::StatusCode::OK
                } else {
                    axum::http::StatusCode::SERVICE_UNAVAILABLE
                };
                async move { (code, axum::Json(status)) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(())
}
