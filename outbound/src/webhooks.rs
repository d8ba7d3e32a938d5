//! Webhook endpoints per project, and Standard Webhooks signatures.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use sqlx::PgPool;
use uuid::Uuid;

use super::events::EventType;
use super::OutboundSettings;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::webhooks::{NewWebhook, Webhook, WebhookChanges};
use shipmate_types::WebhookFormat;

const COLUMNS: &str = "id, url, events, description, format, secret, enabled, created_at";

/// How long the previous secret also signs after a rotation.
const OVERLAP_HOURS: i32 = 24;

fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    format!("whsec_{}", B64.encode(bytes))
}

/// Refuses a URL that is not http(s) or that points at a private address (422 `url_not_allowed`),
/// resolving its host now; delivery checks again.
pub async fn check_url(
    mut c: WebhookChanges,
    settings: &OutboundSettings,
) -> AppResult<WebhookChanges> {
    if let Some(u) = c.url.take() {
        c.url = Some(
            super::net::check_url(&u, &|h| settings.host_allowed(h))
                .await?
                .to_string(),
        );
    }
    Ok(c)
}

pub async fn create(db: &PgPool, project_id: Uuid, c: WebhookChanges) -> AppResult<Webhook> {
    Ok(sqlx::query_as::<_, Webhook>(&format!(
        "insert into webhooks (id, project_id, url, events, description, secret, format)
         values ($1, $2, $3, $4, $5, $6, $7) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(c.url.unwrap_or_default())
    .bind(c.events.unwrap_or_default())
    .bind(c.description.filter(|d| !d.is_empty()))
    .bind(new_secret())
    .bind(c.format.unwrap_or(WebhookFormat::Standard))
    .fetch_one(db)
    .await?)
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Webhook>> {
    Ok(sqlx::query_as::<_, Webhook>(&format!(
        "select {COLUMNS} from webhooks where project_id = $1 order by created_at, id"
    ))
    .bind(project_id)
    .fetch_all(db)
    .await?)
}

pub async fn get(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<Webhook> {
    sqlx::query_as::<_, Webhook>(&format!(
        "select {COLUMNS} from webhooks where project_id = $1 and id = $2"
    ))
    .bind(project_id)
    .bind(id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("webhook"))
}

pub async fn update(
    db: &PgPool,
    project_id: Uuid,
    id: Uuid,
    c: WebhookChanges,
) -> AppResult<Webhook> {
    let set_description = c.description.is_some();
    let description = c.description.filter(|d| !d.is_empty());
    sqlx::query_as::<_, Webhook>(&format!(
        "update webhooks set url = coalesce($3, url), events = coalesce($4, events),
            description = case when $5 then $6 else description end, enabled = coalesce($7, enabled),
            format = coalesce($8, format)
         where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(c.url)
    .bind(c.events)
    .bind(set_description)
    .bind(description)
    .bind(c.enabled)
    .bind(c.format)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("webhook"))
}

pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from webhooks where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("webhook"));
    }
    Ok(())
}

/// A new secret; the old one keeps signing (as a second signature) for 24 hours.
pub async fn rotate_secret(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<Webhook> {
    sqlx::query_as::<_, Webhook>(&format!(
        "update webhooks set previous_secret = secret,
            previous_secret_until = now() + make_interval(hours => $4), secret = $3
         where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(new_secret())
    .bind(OVERLAP_HOURS)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("webhook"))
}

/// A `ping` to one webhook, recorded and queued like any event.
pub async fn ping(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<Uuid> {
    let hook = get(db, project_id, id).await?;
    if !hook.enabled {
        return Err(AppError::conflict(
            "webhook_disabled",
            "the webhook is disabled; enable it to send a test",
        ));
    }
    let payload = super::events::body(
        EventType::Ping,
        serde_json::json!({ "webhook_id": hook.id, "url": hook.url }),
    );
    Ok(sqlx::query_scalar!(
        "insert into deliveries (id, project_id, channel, webhook_id, event_id, type, payload, queued_at)
         values (gen_random_uuid(), $1, 'webhook', $2, $3, 'ping', $4, now()) returning id",
        project_id,
        hook.id,
        Uuid::now_v7(),
        payload
    )
    .fetch_one(db)
    .await?)
}

/// What the worker needs to send to a webhook.
#[derive(Debug, sqlx::FromRow)]
pub struct Target {
    pub url: String,
    pub enabled: bool,
    pub secret: String,
    /// The previous secret while it still signs.
    pub previous_secret: Option<String>,
    pub format: WebhookFormat,
    /// The project's name and slug, for chat messages.
    pub project_name: String,
    pub project_slug: String,
}

pub async fn target(db: &PgPool, id: Uuid) -> AppResult<Option<Target>> {
    Ok(sqlx::query_as!(
        Target,
        r#"select w.url, w.enabled, w.secret,
            case when w.previous_secret_until > now() then w.previous_secret end as previous_secret,
            w.format as "format: WebhookFormat", p.name as project_name, p.slug as project_slug
         from webhooks w join projects p on p.id = w.project_id where w.id = $1"#,
        id
    )
    .fetch_optional(db)
    .await?)
}

/// `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the secret's decoded bytes.
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = B64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .unwrap_or_else(|_| secret.as_bytes().to_vec());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes keys of any length");
    mac.update(format!("{msg_id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!("v1,{}", B64.encode(mac.finalize().into_bytes()))
}

/// The `webhook-signature` header: the current secret's signature, then the previous one's.
pub fn signature_header(target: &Target, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut sigs = vec![sign(&target.secret, msg_id, timestamp, body)];
    if let Some(prev) = &target.previous_secret {
        sigs.push(sign(prev, msg_id, timestamp, body));
    }
    sigs.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification.
    #[test]
    fn signs_like_standard_webhooks() {
        let sig = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn secrets_are_32_random_bytes() {
        let s = new_secret();
        let raw = B64.decode(s.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(raw.len(), 32);
        assert_ne!(s, new_secret());
    }
}
