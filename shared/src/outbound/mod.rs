//! Outbound delivery: signed webhooks and email. A change writes its deliveries (the `deliveries` table) in
//! its own transaction; after the commit the api queues one apalis job per delivery, and `shipmate-worker`
//! sends it, retrying on the configured schedule. Postgres holds the truth (status, attempts, the lease of
//! an attempt in progress); a sweep re-queues what a lost job or a killed worker left behind.

pub mod email;
pub mod events;
pub mod net;
pub mod notify;
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

/// The apalis job: "attempt this delivery". Only the id travels; the row says what to send.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeliveryJob {
    pub id: Uuid,
}

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
    let jobs = ids.iter().map(|&id| DeliveryJob { id }).collect();
    if let Err(e) = queue.push_bulk(jobs).await {
        tracing::warn!(error = %e, count = ids.len(), "queueing deliveries failed; the sweep will queue them");
    }
}

/// Queues one job to run after `delay` (a retry on the schedule).
pub async fn enqueue_after(queue: &DeliveryQueue, id: Uuid, delay: Duration) {
    let task = apalis::prelude::TaskBuilder::new(DeliveryJob { id })
        .run_after(delay)
        .build();
    if let Err(e) = queue.clone().push_task(task).await {
        tracing::warn!(error = %e, %id, "scheduling a retry failed; the sweep will queue it");
    }
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
