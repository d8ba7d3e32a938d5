//! The apalis delivery worker: one attempt per job (claim the row, send, record), and the sweep
//! that re-queues deliveries whose job was lost.

use std::time::Duration;

use chrono::Utc;
use shipmate_core::metrics::{EMAILS, WEBHOOK_DELIVERIES};
use shipmate_outbound::email::{Mailer, Rendered};
use shipmate_outbound::store::{self, Channel, Claimed, Outcome};
use shipmate_outbound::{self, chat, net, webhooks, DeliveryJob, DeliveryQueue, OutboundSettings};
use sqlx::PgPool;

/// What every attempt needs; cloned into each job by apalis.
#[derive(Clone)]
pub struct Context {
    pub db: PgPool,
    pub queue: DeliveryQueue,
    pub http: reqwest::Client,
    pub mailer: Option<Mailer>,
    pub settings: OutboundSettings,
    /// The api's public address, for the links of chat messages.
    pub public_url: String,
}

impl Context {
    pub fn new(
        db: PgPool,
        queue: DeliveryQueue,
        settings: OutboundSettings,
        public_url: &str,
    ) -> Self {
        Context {
            public_url: public_url.trim_end_matches('/').to_owned(),
            http: net::webhook_client(&settings.webhook_allowed_hosts),
            mailer: Mailer::new(&settings),
            db,
            queue,
            settings,
        }
    }
}

/// Attempts in flight per job (a job holds up to `outbound::JOB_SIZE` deliveries).
const PER_JOB: usize = 16;

/// One job: an attempt per delivery, several at once. A delivery whose attempt could not be
/// recorded (Postgres down) is left to its lease and the sweep.
pub async fn attempt_all(
    job: DeliveryJob,
    ctx: apalis::prelude::Data<Context>,
) -> Result<(), apalis::prelude::BoxDynError> {
    use futures::StreamExt;
    futures::stream::iter(job.ids)
        .for_each_concurrent(PER_JOB, |id| {
            let ctx = &ctx;
            async move {
                if let Err(e) = attempt(ctx, id).await {
                    tracing::warn!(error = %e, %id, "a delivery attempt failed to run; the sweep will queue it again");
                }
            }
        })
        .await;
    Ok(())
}

/// One attempt, in a span naming the delivery and, once claimed, its project.
#[tracing::instrument(name = "delivery", skip(ctx), fields(project_id = tracing::field::Empty))]
async fn attempt(ctx: &Context, id: uuid::Uuid) -> shipmate_core::AppResult<()> {
    let Some(claimed) = store::claim(&ctx.db, id).await? else {
        return Ok(());
    };
    if let Some(project) = claimed.project_id {
        tracing::Span::current().record("project_id", tracing::field::display(project));
    }
    let outcome = match claimed.channel {
        Channel::Webhook => send_webhook(ctx, &claimed).await,
        Channel::Email => send_email(ctx, &claimed).await,
    };
    let label = match &outcome {
        Outcome::Delivered { .. } => "delivered",
        Outcome::Retry { .. } => "retry",
        Outcome::Permanent { .. } => "failed",
    };
    let counter = match claimed.channel {
        Channel::Webhook => WEBHOOK_DELIVERIES,
        Channel::Email => EMAILS,
    };
    metrics::counter!(counter, "outcome" => label).increment(1);
    tracing::debug!(id = %claimed.id, channel = ?claimed.channel, kind = %claimed.kind, attempt = claimed.attempts, outcome = label, "delivery attempt");
    // A 5xx answer from SMTP: the address stops receiving notifications and subscriptions.
    if let (
        Outcome::Permanent {
            status_code: Some(500..=599),
            error,
        },
        Some(to),
    ) = (&outcome, &claimed.recipient)
    {
        shipmate_outbound::subscriptions::suppress(&ctx.db, to, error).await?;
    }
    if let Some(delay) = store::finish(
        &ctx.db,
        &claimed,
        &outcome,
        &ctx.settings.webhook_retry_schedule,
    )
    .await?
    {
        shipmate_outbound::enqueue_after(&ctx.queue, claimed.id, delay).await;
    }
    Ok(())
}

async fn send_webhook(ctx: &Context, claimed: &Claimed) -> Outcome {
    let target = match claimed.webhook_id {
        Some(id) => webhooks::target(&ctx.db, id).await,
        None => Ok(None),
    };
    let target = match target {
        Ok(Some(t)) if t.enabled => t,
        // Paused, as Svix does: nothing goes out; a retry after enabling sends it.
        Ok(Some(_)) => return permanent("the webhook is disabled".into()),
        Ok(None) => return permanent("the webhook was deleted".into()),
        Err(e) => return retry(None, format!("reading the webhook failed: {e}")),
    };
    let Ok(url) = url::Url::parse(&target.url) else {
        return permanent("the webhook's URL is not valid".into());
    };
    if !net::literal_host_allowed(&url, &|h| ctx.settings.host_allowed(h)) {
        return permanent("the URL's address is loopback, private or link-local".into());
    }
    let request = ctx
        .http
        .post(url)
        .header("content-type", "application/json");
    let place = chat::Place {
        public_url: &ctx.public_url,
        project_id: claimed.project_id.unwrap_or_default(),
        project_name: &target.project_name,
        project_slug: &target.project_slug,
    };
    // A chat tool's message is not signed: its incoming-webhook URL is the secret.
    let request = match chat::message(target.format, &claimed.payload, &place) {
        Some(message) => request.json(&message),
        None => {
            let body = serde_json::to_vec(&claimed.payload).unwrap_or_default();
            let msg_id = claimed.id.to_string();
            let timestamp = Utc::now().timestamp();
            let signature = webhooks::signature_header(&target, &msg_id, timestamp, &body);
            request
                .header("webhook-id", &msg_id)
                .header("webhook-timestamp", timestamp.to_string())
                .header("webhook-signature", signature)
                .body(body)
        }
    };
    let sent = request.send().await;
    match sent {
        Ok(res) if res.status().is_success() => Outcome::Delivered {
            status_code: Some(res.status().as_u16().into()),
        },
        Ok(res) => retry(
            Some(res.status().as_u16().into()),
            format!("the receiver answered {}", res.status()),
        ),
        Err(e) if e.is_timeout() => retry(None, "no answer within 10 seconds".into()),
        Err(e) => retry(None, format!("{:#}", anyhow::Error::new(e))),
    }
}

async fn send_email(ctx: &Context, claimed: &Claimed) -> Outcome {
    let Some(mailer) = &ctx.mailer else {
        return retry(None, "email is not configured on this worker".into());
    };
    let (Some(to), Ok(message)) = (
        claimed.recipient.as_deref(),
        serde_json::from_value::<Rendered>(claimed.payload.clone()),
    ) else {
        return permanent("the message is not readable".into());
    };
    mailer.send(to, &message).await
}

fn retry(status_code: Option<i32>, error: String) -> Outcome {
    Outcome::Retry { status_code, error }
}

fn permanent(error: String) -> Outcome {
    Outcome::Permanent {
        status_code: None,
        error,
    }
}

/// How often the sweep looks for deliveries whose job went missing.
pub const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// One sweep: re-queue due deliveries nobody holds.
pub async fn sweep(db: &PgPool, queue: &DeliveryQueue) {
    match store::sweep(db).await {
        Ok(ids) if ids.is_empty() => {}
        Ok(ids) => {
            tracing::info!(count = ids.len(), "re-queued deliveries whose job was lost");
            shipmate_outbound::enqueue(queue, &ids).await;
        }
        Err(e) => tracing::warn!(error = %e, "the delivery sweep failed; will retry"),
    }
}
