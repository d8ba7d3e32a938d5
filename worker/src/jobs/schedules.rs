//! The worker's apalis workers: delivery attempts from the Redis queue, and `apalis-cron`
//! schedules (the delivery sweep every 5 seconds, housekeeping every minute, the weekly report,
//! the analytics alerts every 5 minutes, pending analytics imports every 2 seconds). Each restarts
//! after a
//! backend failure (Redis gone) until the worker is told to stop.

use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use apalis::prelude::*;
use apalis_cron::{CronScheduler, Tick};
use shipmate_analytics::imports::apply;
use shipmate_analytics::{alerts, report, EventStore};
use shipmate_core::health::HealthHandle;
use sqlx::PgPool;
use tokio::sync::watch;

use super::deliver::{self, Context};

/// Delivery jobs in flight per worker (each runs several attempts at once): most of an attempt
/// is waiting on a receiver.
const CONCURRENCY: usize = 16;

pub async fn deliveries(
    name: String,
    ctx: Context,
    (redis_url, prefix): (String, String),
    beat: HealthHandle,
    stop: watch::Receiver<bool>,
) {
    let mut first = true;
    supervise("deliveries", stop, |signal| {
        let restart = !std::mem::take(&mut first);
        let (ctx, redis_url, prefix, name, beat) = (
            ctx.clone(),
            redis_url.clone(),
            prefix.clone(),
            name.clone(),
            beat.clone(),
        );
        async move {
            if restart {
                // The fetch may have failed on a large backlog (`promote_due` says why).
                match shipmate_outbound::promote_due(&redis_url, &prefix).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(n, "moved a backlog of due delivery jobs in slices"),
                    Err(e) => tracing::warn!(error = %e, "could not move due delivery jobs"),
                }
            }
            WorkerBuilder::new(format!("{name}-deliveries"))
                .backend(ctx.queue.clone())
                .data(ctx)
                .concurrency(CONCURRENCY)
                // apalis-redis beats for the consumer while it polls (`connect_queue`); a job
                // done counts too, as the poll may wait behind a full house of slow receivers.
                .on_event(move |_, event| {
                    if matches!(
                        event,
                        Event::HeartBeat | Event::Success(_) | Event::Error(_)
                    ) {
                        beat.heartbeat();
                    }
                })
                .build(deliver::attempt_all)
                .run_until(signal)
                .await
        }
    })
    .await
}

#[derive(Clone)]
struct Scheduled {
    db: PgPool,
    events: Arc<dyn EventStore>,
    /// Beats with every delivery sweep (every 5 s): the schedules are alive.
    beat: HealthHandle,
    queue: shipmate_outbound::DeliveryQueue,
    /// Where the report's links point; `None` when email is not configured.
    public_url: Option<String>,
}

async fn sweep_tick(_: Tick, s: Data<Scheduled>) -> Result<(), BoxDynError> {
    s.beat.heartbeat();
    deliver::sweep(&s.db, &s.queue).await;
    Ok(())
}

async fn weekly_report_tick(_: Tick, s: Data<Scheduled>) -> Result<(), BoxDynError> {
    let Some(public_url) = &s.public_url else {
        return Ok(());
    };
    match report::queue_due(&*s.events, &s.db, public_url, chrono::Utc::now()).await {
        Ok(ids) => shipmate_outbound::enqueue(&s.queue, &ids).await,
        // The next tick tries again; nothing was claimed for a project whose queueing failed.
        Err(e) => tracing::warn!(error = %e, "the weekly report could not be queued"),
    }
    Ok(())
}

async fn alerts_tick(_: Tick, s: Data<Scheduled>) -> Result<(), BoxDynError> {
    match alerts::check(&*s.events, &s.db, chrono::Utc::now()).await {
        Ok(ids) => shipmate_outbound::enqueue(&s.queue, &ids).await,
        // The next tick checks again; an alert set off in a failed transaction is not firing.
        Err(e) => tracing::warn!(error = %e, "the analytics alerts could not be checked"),
    }
    Ok(())
}

/// Applies the pending imports, oldest first, one at a time (the lease keeps two workers apart).
async fn imports_tick(_: Tick, s: Data<Scheduled>) -> Result<(), BoxDynError> {
    loop {
        let claimed = match apply::claim(&s.db).await {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(()),
            Err(e) => {
                tracing::warn!(error = %e, "could not look for pending imports");
                return Ok(());
            }
        };
        let (id, project_id) = (claimed.id, claimed.project_id);
        let span = tracing::info_span!("import", import_id = %id, project_id = %project_id);
        match tracing::Instrument::instrument(apply::apply(&s.db, claimed), span).await {
            Ok(true) => tracing::info!(import_id = %id, "import applied"),
            Ok(false) => {}
            // Nothing was kept; another worker (or this one) takes it again once the lease ends.
            Err(e) => tracing::warn!(import_id = %id, error = %e, "import not applied; will retry"),
        }
    }
}

async fn housekeeping_tick(_: Tick, s: Data<Scheduled>) -> Result<(), BoxDynError> {
    super::housekeeping::round(&s.db).await;
    Ok(())
}

/// `report` and `alerts` (cron with seconds) schedule the weekly analytics report, whose links
/// start with `public_url`, and the analytics alerts' checks.
pub async fn cron(
    name: String,
    ctx: &Context,
    (report, alerts, public_url): (String, String, String),
    events: Arc<dyn EventStore>,
    beat: HealthHandle,
    stop: watch::Receiver<bool>,
) {
    let state = Scheduled {
        db: ctx.db.clone(),
        events,
        beat,
        queue: ctx.queue.clone(),
        public_url: ctx
            .settings
            .email_configured()
            .then(|| public_url.trim_end_matches('/').to_owned()),
    };
    // cron's fields: seconds, minutes, hours, day of month, month, day of week.
    let every = |expr: &str| cron::Schedule::from_str(expr).expect("a valid cron expression");
    let sweep = supervise("delivery sweep", stop.clone(), |signal| {
        WorkerBuilder::new(format!("{name}-sweep"))
            .backend(CronScheduler::new(every("*/5 * * * * *")))
            .data(state.clone())
            .build(sweep_tick)
            .run_until(signal)
    });
    let weekly = every(&report);
    let reports = supervise("weekly report", stop.clone(), |signal| {
        WorkerBuilder::new(format!("{name}-weekly-report"))
            .backend(CronScheduler::new(weekly.clone()))
            .data(state.clone())
            .build(weekly_report_tick)
            .run_until(signal)
    });
    let alerts = every(&alerts);
    let checks = supervise("analytics alerts", stop.clone(), |signal| {
        WorkerBuilder::new(format!("{name}-alerts"))
            .backend(CronScheduler::new(alerts.clone()))
            .data(state.clone())
            .build(alerts_tick)
            .run_until(signal)
    });
    let imports = supervise("analytics imports", stop.clone(), |signal| {
        WorkerBuilder::new(format!("{name}-imports"))
            .backend(CronScheduler::new(every("*/2 * * * * *")))
            .data(state.clone())
            .build(imports_tick)
            .run_until(signal)
    });
    let housekeeping = supervise("housekeeping", stop, |signal| {
        WorkerBuilder::new(format!("{name}-housekeeping"))
            .backend(CronScheduler::new(every("0 * * * * *")))
            .data(state.clone())
            .build(housekeeping_tick)
            .run_until(signal)
    });
    // The first housekeeping round runs at start, not a minute later.
    super::housekeeping::round(&state.db).await;
    tokio::join!(sweep, reports, checks, imports, housekeeping);
}

/// Runs an apalis worker until `stop`; a worker that ends on an error (its backend failed) is
/// started again a second later.
async fn supervise<F, Fut>(what: &str, stop: watch::Receiver<bool>, mut run: F)
where
    F: FnMut(futures::future::BoxFuture<'static, Result<(), std::io::Error>>) -> Fut,
    Fut: Future<Output = Result<(), WorkerError>>,
{
    while !*stop.borrow() {
        let mut rx = stop.clone();
        let signal = Box::pin(async move {
            while !*rx.borrow() {
                if rx.changed().await.is_err() {
                    break;
                }
            }
            Ok(())
        });
        match run(signal).await {
            Ok(()) => break,
            Err(e) => {
                tracing::warn!(error = %e, what, "an apalis worker stopped on an error; restarting in a second");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}
