//! Webhooks and their deliveries.

use crate::input::{FromInput, Input};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{DeliveryStatus, EventType, WebhookFormat};

fn valid_event(name: &str) -> bool {
    name == "*" || EventType::parse(name).is_some_and(|e| e != EventType::Ping)
}

fn events(input: &mut Input, field: &str) -> Option<Vec<String>> {
    Some(input.string_list(
        field,
        true,
        valid_event,
        "must list known event names (see GET /v1/webhooks/events) or \"*\"",
    ))
}

fn changed_events(input: &mut Input, field: &str) -> Option<Vec<String>> {
    input.present(field, |i| events(i, field))
}

/// A description once sent: empty clears it.
fn changed_text(input: &mut Input, field: &str) -> Option<String> {
    input
        .has(field)
        .then(|| input.opt_string(field, 500).unwrap_or_default())
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    /// Event names (see `EventType`), or `["*"]` for all.
    pub events: Vec<String>,
    pub description: Option<String>,
    /// `standard` posts the signed JSON event; `slack` and `discord` post that tool's message.
    pub format: WebhookFormat,
    /// `whsec_` and the base64 of 32 random bytes (chat formats are not signed: their URL is the
    /// secret).
    pub secret: String,
    pub enabled: bool,
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/projects/:id/webhooks`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewWebhook {
    /// An http(s) URL of a public host.
    #[schema(min_length = 1, max_length = 2000, format = "uri")]
    pub url: String,
    /// Event names (see `EventType`) or `"*"`; 1 to 20.
    #[schema(min_items = 1, max_items = 20)]
    #[input(with = events)]
    pub events: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// `standard` (the default), `slack` or `discord` (use the tool's incoming-webhook URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<WebhookFormat>,
}

// Any of the fields; a present but empty `description` (`Some("")`) clears it.
/// `PATCH /v1/projects/:id/webhooks/:webhook_id`: any of the fields; an empty `description`
/// clears it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct WebhookChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 2000, format = "uri")]
    #[input(present)]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = changed_events)]
    pub events: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 500)]
    #[input(with = changed_text)]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<WebhookFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

impl From<NewWebhook> for WebhookChanges {
    fn from(n: NewWebhook) -> Self {
        WebhookChanges {
            url: Some(n.url),
            events: Some(n.events),
            description: n.description,
            format: n.format,
            enabled: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Delivery {
    pub id: Uuid,
    pub event_id: Uuid,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "type"))]
    pub kind: EventType,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub last_status_code: Option<i32>,
    pub last_error: Option<String>,
    /// When the next attempt is due; `null` once delivered or failed.
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// The event (`{type, timestamp, data}`): the body sent to a `standard` webhook, and what a
    /// chat webhook's message is written from.
    pub payload: Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TestQueued {
    pub delivery_id: Uuid,
}
