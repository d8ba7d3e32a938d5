//! Webhook events: their names, and `emit`, which writes one delivery per subscribed, enabled webhook
//! in the caller's transaction (the outbox), so an event exists exactly when its change does.

use chrono::Utc;
use serde::Serialize;
use serde_json::{json, Value};
use sqlx::PgConnection;
use uuid::Uuid;

use shipmate_core::AppResult;

pub use shipmate_types::EventType;

/// The body every delivery of an event carries.
pub fn body(kind: EventType, data: Value) -> Value {
    json!({ "type": kind.as_str(), "timestamp": Utc::now(), "data": data })
}

/// Records the event for every enabled webhook of the project subscribed to it; returns the new
/// deliveries, to be queued once the transaction commits.
pub async fn emit(
    tx: &mut PgConnection,
    project_id: Uuid,
    kind: EventType,
    data: impl Serialize,
) -> AppResult<Vec<Uuid>> {
    let data = serde_json::to_value(data).map_err(anyhow::Error::from)?;
    emit_many(tx, kind, vec![(project_id, data)]).await
}

/// `emit` for many resources at once (one statement, however many), each of its own project.
pub async fn emit_many(
    tx: &mut PgConnection,
    kind: EventType,
    items: Vec<(Uuid, Value)>,
) -> AppResult<Vec<Uuid>> {
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let mut projects = Vec::with_capacity(items.len());
    let mut event_ids = Vec::with_capacity(items.len());
    let mut payloads = Vec::with_capacity(items.len());
    for (project, data) in items {
        projects.push(project);
        event_ids.push(Uuid::now_v7());
        payloads.push(body(kind, data));
    }
    Ok(sqlx::query_scalar!(
        r#"insert into deliveries (id, project_id, channel, webhook_id, event_id, type, payload, queued_at)
           select gen_random_uuid(), w.project_id, 'webhook', w.id, u.event_id, $1, u.payload, now()
           from unnest($2::uuid[], $3::uuid[], $4::jsonb[]) as u(project_id, event_id, payload)
           join webhooks w on w.project_id = u.project_id and w.enabled
               and (w.events @> array[$1] or w.events @> array['*'])
           returning id"#,
        kind.as_str(),
        &projects,
        &event_ids,
        &payloads
    )
    .fetch_all(tx)
    .await?)
}
