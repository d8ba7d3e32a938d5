//! Prometheus metrics, named as in the contract's "Metrics" section (docs/operations.md): one
//! recorder per process, rendered by the api's `/metrics` and the worker's metrics listener.

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;
use std::time::Duration;

use metrics::Histogram;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::queue::{Queue, EMBED_STREAM, EVENTS_STREAM};

pub const HTTP_DURATION: &str = "shipmate_http_request_duration_seconds";
pub const EVENTS_ACCEPTED: &str = "shipmate_events_accepted_total";
pub const EVENTS_DROPPED: &str = "shipmate_events_dropped_total";
pub const QUEUE_BACKLOG: &str = "shipmate_queue_backlog";
pub const EMBED_BATCH: &str = "shipmate_embed_batch_seconds";
pub const EMBEDDED_CHUNKS: &str = "shipmate_embedded_chunks_total";
pub const WEBHOOK_DELIVERIES: &str = "shipmate_webhook_deliveries_total";
pub const EMAILS: &str = "shipmate_emails_total";

/// Request and batch durations: 1 ms to 10 s.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the recorder on first use (tests start several apps in one process: they share it).
pub fn handle() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), BUCKETS)
            .expect("the buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed; /metrics shows only its own");
        }
        describe();
        handle
    })
}

fn describe() {
    metrics::describe_histogram!(
        HTTP_DURATION,
        metrics::Unit::Seconds,
        "HTTP requests by method, route template and status"
    );
    metrics::describe_counter!(EVENTS_ACCEPTED, "analytics events accepted (queued)");
    metrics::describe_counter!(EVENTS_DROPPED, "analytics events not queued, by reason");
    metrics::describe_gauge!(
        QUEUE_BACKLOG,
        "entries or jobs waiting, per Redis stream and apalis queue"
    );
    metrics::describe_histogram!(
        EMBED_BATCH,
        metrics::Unit::Seconds,
        "embedding batches of documents, by model"
    );
    metrics::describe_counter!(EMBEDDED_CHUNKS, "document chunks embedded");
    metrics::describe_counter!(WEBHOOK_DELIVERIES, "webhook delivery attempts, by outcome");
    metrics::describe_counter!(EMAILS, "email delivery attempts, by outcome");
}

thread_local! {
    /// Histogram handles per (method, route, status), per thread: the registry lookup (label
    /// strings hashed and allocated) cost 7-11 % of the single-event ingest figure; a handle's
    /// record is one lock-free push.
    static REQUESTS: RefCell<HashMap<u64, (Box<str>, Histogram)>> = RefCell::new(HashMap::new());
}

/// One routed request: method, route template (never the raw path) and status.
pub fn record_request(method: &str, route: &str, status: u16, took: Duration) {
    let mut hasher = DefaultHasher::new();
    (method, route, status).hash(&mut hasher);
    let key = hasher.finish();
    REQUESTS.with(|cache| {
        let mut cache = cache.borrow_mut();
        match cache.get(&key) {
            Some((r, h)) if &**r == route => h.record(took.as_secs_f64()),
            _ => {
                let h = metrics::histogram!(
                    HTTP_DURATION,
                    "method" => method.to_owned(),
                    "route" => route.to_owned(),
                    "status" => status.to_string()
                );
                h.record(took.as_secs_f64());
                cache.insert(key, (route.into(), h));
            }
        }
    });
}

/// Histograms keep their samples until upkeep folds them in: without a scrape, memory would grow
/// with every request. Runs until the process ends.
pub fn spawn_upkeep() {
    tokio::spawn(async {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        loop {
            every.tick().await;
            handle().run_upkeep();
        }
    });
}

/// The Prometheus text, with the queue backlogs read now.
pub async fn render(queue: &Queue) -> String {
    for stream in [EMBED_STREAM, EVENTS_STREAM] {
        if let Ok(n) = queue.backlog(stream).await {
            metrics::gauge!(QUEUE_BACKLOG, "queue" => stream).set(n as f64);
        }
    }
    if let Ok(n) = queue.delivery_backlog().await {
        metrics::gauge!(QUEUE_BACKLOG, "queue" => "deliveries").set(n as f64);
    }
    let handle = handle();
    handle.run_upkeep();
    handle.render()
}
