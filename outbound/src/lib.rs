//! Outbound delivery: signed webhooks and email. A change writes its deliveries (the `deliveries` table) in
//! its own transaction; after the commit the api queues one apalis job per delivery, and `shipmate-worker`
//! sends it, retrying on the configured schedule. Postgres holds the truth (status, attempts, the lease of
//! an attempt in progress); a sweep re-queues what a lost job or a killed worker left behind.

pub mod chat;
pub mod email;
pub mod events;
pub mod net;
pub mod notify;
pub mod outcome;
pub mod store;
pub mod subscriptions;
pub mod webhooks;

use std::time::Duration;

use apalis::prelude::TaskSink;
use apalis_redis::{ConnectionManager, RedisStorage};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Settings of webhooks and email (both processes read them: the api to validate and to say whether
/// email works, the worker to send).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OutboundSettings {
    /// Seconds between a failed delivery's attempts; after the last, it is `failed`.
    #[arg(
        long,
        env = "SHIPMATE_WEBHOOK_RETRY_SCHEDULE",
        default_value = "5,300,1800,7200,18000,36000,36000",
        value_parser = parse_schedule
    )]
    pub webhook_retry_schedule: RetrySchedule,
    /// Hosts (names or addresses, comma-separated) that webhooks may reach although they are
    /// loopback or private: tests and internal receivers.
    #[arg(
        long,
        env = "SHIPMATE_WEBHOOK_ALLOWED_HOSTS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub webhook_allowed_hosts: Vec<String>,
    /// SMTP server: `smtp://host:port`, `smtp+starttls://user:pass@host:587` or
    /// `smtps://user:pass@host:465`. Without it (and a sender), nothing is emailed.
    #[arg(long, env = "SHIPMATE_SMTP_URL", value_parser = email::parse_smtp_url)]
    pub smtp_url: Option<email::SmtpUrl>,
    /// Sender of every email, e.g. `Shipmate <noreply@example.com>`.
    #[arg(long, env = "SHIPMATE_MAIL_FROM", value_parser = email::parse_mailbox)]
    pub mail_from: Option<lettre::message::Mailbox>,
}

impl OutboundSettings {
    pub fn email_configured(&self) -> bool {
        self.smtp_url.is_some() && self.mail_from.is_some()
    }

    pub fn host_allowed(&self, host: &str) -> bool {
        self.webhook_allowed_hosts
            .iter()
            .any(|h| !h.is_empty() && h.eq_ignore_ascii_case(host))
    }
}

/// The delays between attempts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetrySchedule(pub Vec<Duration>);

impl RetrySchedule {
    /// The delay before attempt `attempts + 1`, or `None` once the schedule is used up.
    pub fn after(&self, attempts: i32) -> Option<Duration> {
        let i = usize::try_from(attempts).ok()?.checked_sub(1)?;
        self.0.get(i).copied()
    }
}

fn parse_schedule(raw: &str) -> Result<RetrySchedule, String> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<u64>()
                .map(Duration::from_secs)
                .map_err(|_| format!("`{s}` is not a number of seconds"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(RetrySchedule)
}

/// The apalis job: "attempt these deliveries". Only ids travel; the rows say what to send. A
/// change that fans out (a changelog entry to every subscriber) becomes a job per `JOB_SIZE`
/// deliveries, not one per delivery.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeliveryJob {
    pub ids: Vec<Uuid>,
}

/// Most deliveries per job.
pub const JOB_SIZE: usize = 50;

/// The apalis queue of delivery jobs, one per deployment (the queue prefix names it).
pub type DeliveryQueue = RedisStorage<DeliveryJob>;

pub async fn connect_queue(redis_url: &str, prefix: &str) -> anyhow::Result<DeliveryQueue> {
    let conn: ConnectionManager = apalis_redis::connect(redis_url).await?;
    let config = apalis_redis::Config::default()
        .queue(format!("{prefix}:deliveries"))
        // The heartbeat is also how often an idle worker looks for new jobs, and how soon a dead
        // worker's jobs are taken over (`missed_heartbeats` of them).
        .heartbeat_interval(Duration::from_millis(250))
        .missed_heartbeats(40)
        .batch_size(64)
        // Results live in the delivery log; apalis need not keep them.
        .persist_results(false);
    Ok(RedisStorage::new(conn).with_config(config))
}

/// Queues jobs for deliveries just committed. A failure is only logged: the rows are the truth and
/// the worker's sweep queues them again (`store::sweep`).
pub async fn enqueue(queue: &DeliveryQueue, ids: &[Uuid]) {
    if ids.is_empty() {
        return;
    }
    let mut queue = queue.clone();
    let jobs = ids
        .chunks(JOB_SIZE)
        .map(|c| DeliveryJob { ids: c.to_vec() })
        .collect();
    if let Err(e) = queue.push_bulk(jobs).await {
        tracing::warn!(error = %e, count = ids.len(), "queueing deliveries failed; the sweep will queue them");
    }
}

/// Queues one job to run after `delay` (a retry on the schedule).
pub async fn enqueue_after(queue: &DeliveryQueue, id: Uuid, delay: Duration) {
    let task = apalis::prelude::TaskBuilder::new(DeliveryJob { ids: vec![id] })
        .run_after(delay)
        .build();
    if let Err(e) = queue.clone().push_task(task).await {
        tracing::warn!(error = %e, %id, "scheduling a retry failed; the sweep will queue it");
    }
}

/// apalis-redis 1.0 keeps every pushed job in its `scheduled` set until a fetch moves all that are
/// due to the active list in one Lua `unpack`, which fails beyond about 8,000 ids: a backlog that
/// large (a worker down during a burst) would stop every fetch for good. This moves due jobs over
/// in slices first, so the worker's next fetch finds few; the worker calls it when a fetch fails.
pub async fn promote_due(redis_url: &str, prefix: &str) -> anyhow::Result<usize> {
    let client = redis::Client::open(redis_url)?;
    let mut conn = client.get_multiplexed_async_connection().await?;
    let queue = format!("{prefix}:deliveries");
    let (scheduled, active, signal) = (
        format!("{queue}:scheduled"),
        format!("{queue}:active"),
        format!("{queue}:signal"),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let mut moved = 0;
    loop {
        let ids: Vec<String> = redis::cmd("ZRANGEBYSCORE")
            .arg(&scheduled)
            .arg(0)
            .arg(now)
            .arg("LIMIT")
            .arg(0)
            .arg(1000)
            .query_async(&mut conn)
            .await?;
        if ids.is_empty() {
            break;
        }
        redis::pipe()
            .atomic()
            .cmd("RPUSH")
            .arg(&active)
            .arg(&ids)
            .ignore()
            .cmd("ZREM")
            .arg(&scheduled)
            .arg(&ids)
            .ignore()
            .exec_async(&mut conn)
            .await?;
        moved += ids.len();
    }
    if moved > 0 {
        redis::cmd("LPUSH")
            .arg(&signal)
            .arg(1)
            .exec_async(&mut conn)
            .await?;
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_gives_the_delay_before_each_retry() {
        let s = parse_schedule("5, 300,1800").unwrap();
        assert_eq!(s.after(1), Some(Duration::from_secs(5)));
        assert_eq!(s.after(3), Some(Duration::from_secs(1800)));
        assert_eq!(s.after(4), None);
        assert_eq!(s.after(0), None);
        assert!(parse_schedule("5,soon").is_err());
    }
}
