//! The delivery log: claiming an attempt, recording its outcome, the sweep and the purge.

use std::time::Duration;

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use super::events::EventType;
use super::{email, RetrySchedule};
use shipmate_core::{AppError, AppResult};

pub use super::outcome::Outcome;
pub use shipmate_types::webhooks::Delivery;
pub use shipmate_types::DeliveryStatus;

/// How long an attempt holds its delivery: longer than an attempt can take (10 s for a webhook, the
/// SMTP timeouts for an email), so only a dead worker's attempt ever outlives it.
pub const LEASE: Duration = Duration::from_secs(25);

const COLUMNS: &str = "id, event_id, type, status, attempts, last_status_code, last_error,
    case when status = 'pending' then next_attempt_at end as next_attempt_at, created_at, payload";

/// Where a delivery goes (`deliveries.channel`, which a check constraint keeps to these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Webhook,
    Email,
}

impl TryFrom<String> for Channel {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        match s.as_str() {
            "webhook" => Ok(Channel::Webhook),
            "email" => Ok(Channel::Email),
            other => Err(format!("unknown delivery channel {other:?}")),
        }
    }
}

/// What a delivery carries (`deliveries.type`): a webhook event, or the kind of an email.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Event(EventType),
    Email(email::Kind),
}

impl Kind {
    fn read(channel: Channel, s: &str) -> Result<Kind, String> {
        match channel {
            Channel::Webhook => EventType::parse(s).map(Kind::Event),
            Channel::Email => email::Kind::parse(s).map(Kind::Email),
        }
        .ok_or_else(|| format!("unknown {channel:?} delivery type {s:?}"))
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Event(e) => e.as_str(),
            Kind::Email(k) => k.as_str(),
        })
    }
}

/// An attempt in hand: the row, leased to this worker.
#[derive(Debug)]
pub struct Claimed {
    pub id: Uuid,
    /// None for instance email (a password reset).
    pub project_id: Option<Uuid>,
    pub channel: Channel,
    pub webhook_id: Option<Uuid>,
    pub kind: Kind,
    pub payload: Value,
    pub recipient: Option<String>,
    pub attempts: i32,
}

/// Takes the delivery for one attempt if it is pending, due and not held by another attempt;
/// `None` means there is nothing to do (delivered, failed, scheduled later, or in progress).
pub async fn claim(db: &PgPool, id: Uuid) -> AppResult<Option<Claimed>> {
    let Some(row) = sqlx::query!(
        "update deliveries set attempts = attempts + 1,
            lease_until = now() + make_interval(secs => $2)
         where id = $1 and status = 'pending' and next_attempt_at <= now() + interval '1 second'
           and (lease_until is null or lease_until < now())
         returning id, project_id, channel, webhook_id, type, payload, recipient, attempts",
        id,
        LEASE.as_secs_f64()
    )
    .fetch_optional(db)
    .await?
    else {
        return Ok(None);
    };
    let unknown = |e: String| AppError::Internal(anyhow::anyhow!(e));
    let channel = Channel::try_from(row.channel).map_err(unknown)?;
    Ok(Some(Claimed {
        id: row.id,
        project_id: row.project_id,
        channel,
        webhook_id: row.webhook_id,
        kind: Kind::read(channel, &row.r#type).map_err(unknown)?,
        payload: row.payload,
        recipient: row.recipient,
        attempts: row.attempts,
    }))
}

/// Records the attempt; answers the delay after which the next one is due, if any.
pub async fn finish(
    db: &PgPool,
    claimed: &Claimed,
    outcome: &Outcome,
    schedule: &RetrySchedule,
) -> AppResult<Option<Duration>> {
    let (status, code, error, delay) = match outcome {
        Outcome::Delivered { status_code } => ("delivered", *status_code, None, None),
        Outcome::Retry { status_code, error } => match schedule.after(claimed.attempts) {
            Some(d) => ("pending", *status_code, Some(error.as_str()), Some(d)),
            None => ("failed", *status_code, Some(error.as_str()), None),
        },
        Outcome::Permanent { status_code, error } => {
            ("failed", *status_code, Some(error.as_str()), None)
        }
    };
    let delay_ms = delay.map(|d| d.as_millis() as i64).unwrap_or(0);
    sqlx::query!(
        "update deliveries set status = $2, last_status_code = $3, last_error = $4, lease_until = null,
            next_attempt_at = now() + make_interval(secs => $5::float8 / 1000),
            queued_at = now() + make_interval(secs => $5::float8 / 1000),
            -- A sent invite or reset keeps no link in the log.
            payload = case when $2 <> 'pending' and payload->>'sensitive' = 'true'
                then jsonb_build_object('subject', payload->'subject', 'sensitive', true, 'text', '', 'html', '')
                else payload end
         where id = $1",
        claimed.id,
        status,
        code,
        error.map(|e| truncate(e, 500)),
        delay_ms as f64
    )
    .execute(db)
    .await?;
    Ok(delay)
}

fn truncate(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Deliveries that are due but whose job is gone: queued (or due) more than a lease ago and not
/// held by an attempt. Marks them queued again and returns them, to be queued by the caller.
pub async fn sweep(db: &PgPool) -> AppResult<Vec<Uuid>> {
    Ok(sqlx::query_scalar!(
        "update deliveries set queued_at = now() where id in (
            select id from deliveries
            where status = 'pending' and next_attempt_at <= now()
              and (lease_until is null or lease_until < now())
              and (queued_at is null or queued_at < now() - make_interval(secs => $1))
            order by next_attempt_at limit 1000 for update skip locked)
         returning id",
        LEASE.as_secs_f64()
    )
    .fetch_all(db)
    .await?)
}

/// Finished deliveries are kept this long (the log the dashboard shows).
pub async fn purge(db: &PgPool, keep_days: i32) -> AppResult<u64> {
    Ok(sqlx::query!(
        "delete from deliveries where status <> 'pending' and created_at < now() - make_interval(days => $1)",
        keep_days
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// A webhook's deliveries, newest first.
pub async fn list_for_webhook(
    db: &PgPool,
    webhook_id: Uuid,
    limit: i64,
) -> AppResult<Vec<Delivery>> {
    Ok(sqlx::query_as::<_, Delivery>(&format!(
        "select {COLUMNS} from deliveries where webhook_id = $1 order by created_at desc, id desc limit $2"
    ))
    .bind(webhook_id)
    .bind(limit)
    .fetch_all(db)
    .await?)
}

/// Makes a delivery due now again (same id, so the same `webhook-id`); `attempts` keeps counting.
/// An attempt in progress answers 409.
pub async fn retry(db: &PgPool, webhook_id: Uuid, id: Uuid) -> AppResult<Delivery> {
    let row = sqlx::query_as::<_, Delivery>(&format!(
        "update deliveries set status = 'pending', next_attempt_at = now(), queued_at = now()
         where id = $1 and webhook_id = $2 and (lease_until is null or lease_until < now())
         returning {COLUMNS}"
    ))
    .bind(id)
    .bind(webhook_id)
    .fetch_optional(db)
    .await?;
    match row {
        Some(d) => Ok(d),
        None if exists(db, webhook_id, id).await? => Err(AppError::conflict(
            "delivery_in_progress",
            "an attempt of this delivery is in progress",
        )),
        None => Err(AppError::not_found("delivery")),
    }
}

async fn exists(db: &PgPool, webhook_id: Uuid, id: Uuid) -> AppResult<bool> {
    Ok(sqlx::query_scalar!(
        r#"select exists(select 1 from deliveries where id = $1 and webhook_id = $2) as "exists!""#,
        id,
        webhook_id
    )
    .fetch_one(db)
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_type_reads_as_its_channel_kind() {
        for k in email::Kind::ALL {
            assert_eq!(Kind::read(Channel::Email, k.as_str()), Ok(Kind::Email(k)));
        }
        assert_eq!(
            Kind::read(Channel::Webhook, "document.ready"),
            Ok(Kind::Event(EventType::DocumentReady))
        );
        assert_eq!(
            Kind::read(Channel::Webhook, "ping").unwrap().to_string(),
            "ping"
        );
        // The type check constraint keeps each channel to its own names.
        assert!(Kind::read(Channel::Webhook, "email.invite").is_err());
        assert!(Kind::read(Channel::Email, "document.ready").is_err());
    }
}
