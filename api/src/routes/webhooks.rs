//! Webhooks: endpoints per project (admins and owners), their deliveries, test pings and retries.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_core::params::parse_id;
use shipmate_outbound::events::EventType;
use shipmate_outbound::store::{self, Delivery};
use shipmate_outbound::webhooks::{self, NewWebhook, Webhook, WebhookChanges};
use shipmate_types::webhooks::TestQueued;

use super::schemas::{Deleted, DeliveryList, EventList, WebhookList};
use crate::extract::{Admin, Body, ProjectAccess};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/webhooks/events", get(events))
        .route("/v1/projects/{project_id}/webhooks", post(create).get(list))
        .route(
            "/v1/projects/{project_id}/webhooks/{webhook_id}",
            get(show).patch(update).delete(remove),
        )
        .route(
            "/v1/projects/{project_id}/webhooks/{webhook_id}/rotate-secret",
            post(rotate_secret),
        )
        .route(
            "/v1/projects/{project_id}/webhooks/{webhook_id}/test",
            post(test),
        )
        .route(
            "/v1/projects/{project_id}/webhooks/{webhook_id}/deliveries",
            get(deliveries),
        )
        .route(
            "/v1/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
            post(retry),
        )
}

/// Every event a webhook can subscribe to (`"*"` subscribes to all).
#[utoipa::path(get, path = "/v1/webhooks/events", tag = "webhooks",
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::EventType>)))]
pub async fn events() -> Json<EventList> {
    Json(EventType::subscribable().collect::<Vec<_>>().into())
}

/// Adds an endpoint; the answer carries its signing secret.
#[utoipa::path(post, path = "/v1/projects/{project_id}/webhooks", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path)),
    request_body = NewWebhook,
    responses((status = 201, body = Webhook), (status = 403, description = "without the role needed"),
        (status = 422, description = "`url_not_allowed` (not http(s), or a loopback, private or link-local address: `detail` names SHIPMATE_WEBHOOK_ALLOWED_HOSTS) or unknown events")))]
pub async fn create(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Body(new): Body<NewWebhook>,
) -> ApiResult<(StatusCode, Json<Webhook>)> {
    let changes = webhooks::check_url(new.into(), &state.settings.common.outbound).await?;
    let hook = webhooks::create(&state.db, access.project.id, changes).await?;
    Ok((StatusCode::CREATED, Json(hook)))
}

#[utoipa::path(get, path = "/v1/projects/{project_id}/webhooks", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::webhooks::Webhook>), (status = 403, description = "without the role needed")))]
pub async fn list(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<WebhookList>> {
    Ok(Json(
        webhooks::list(&state.db, access.project.id).await?.into(),
    ))
}

#[utoipa::path(get, path = "/v1/projects/{project_id}/webhooks/{webhook_id}", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path)),
    responses((status = 200, body = Webhook), (status = 404, description = "no such webhook")))]
pub async fn show(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id)): Path<(String, String)>,
) -> ApiResult<Json<Webhook>> {
    let id = parse_id(&webhook_id, "webhook")?;
    Ok(Json(webhooks::get(&state.db, access.project.id, id).await?))
}

/// Changes any of `url`, `events`, `description`, `enabled`.
#[utoipa::path(patch, path = "/v1/projects/{project_id}/webhooks/{webhook_id}", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path)),
    request_body = WebhookChanges,
    responses((status = 200, body = Webhook), (status = 404, description = "no such webhook"), (status = 422, description = "invalid fields")))]
pub async fn update(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id)): Path<(String, String)>,
    Body(changes): Body<WebhookChanges>,
) -> ApiResult<Json<Webhook>> {
    let id = parse_id(&webhook_id, "webhook")?;
    let changes = webhooks::check_url(changes, &state.settings.common.outbound).await?;
    Ok(Json(
        webhooks::update(&state.db, access.project.id, id, changes).await?,
    ))
}

/// Deletes the endpoint and its delivery log.
#[utoipa::path(delete, path = "/v1/projects/{project_id}/webhooks/{webhook_id}", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 404, description = "no such webhook")))]
pub async fn remove(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&webhook_id, "webhook")?;
    webhooks::delete(&state.db, access.project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}

/// A new secret; for 24 hours deliveries carry a second signature with the previous one.
#[utoipa::path(post, path = "/v1/projects/{project_id}/webhooks/{webhook_id}/rotate-secret", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path)),
    responses((status = 200, body = Webhook), (status = 404, description = "no such webhook")))]
pub async fn rotate_secret(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id)): Path<(String, String)>,
) -> ApiResult<Json<Webhook>> {
    let id = parse_id(&webhook_id, "webhook")?;
    Ok(Json(
        webhooks::rotate_secret(&state.db, access.project.id, id).await?,
    ))
}

/// Sends a `ping` event to this endpoint (whatever its event list).
#[utoipa::path(post, path = "/v1/projects/{project_id}/webhooks/{webhook_id}/test", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path)),
    responses((status = 202, body = TestQueued), (status = 404, description = "no such webhook")))]
pub async fn test(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id)): Path<(String, String)>,
) -> ApiResult<(StatusCode, Json<TestQueued>)> {
    let id = parse_id(&webhook_id, "webhook")?;
    let delivery_id = webhooks::ping(&state.db, access.project.id, id).await?;
    state.deliver(&[delivery_id]).await;
    Ok((StatusCode::ACCEPTED, Json(TestQueued { delivery_id })))
}

/// The endpoint's deliveries, newest first (the last 100).
#[utoipa::path(get, path = "/v1/projects/{project_id}/webhooks/{webhook_id}/deliveries", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path)),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::webhooks::Delivery>), (status = 404, description = "no such webhook")))]
pub async fn deliveries(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id)): Path<(String, String)>,
) -> ApiResult<Json<DeliveryList>> {
    let id = parse_id(&webhook_id, "webhook")?;
    let hook = webhooks::get(&state.db, access.project.id, id).await?;
    Ok(Json(
        store::list_for_webhook(&state.db, hook.id, 100)
            .await?
            .into(),
    ))
}

/// Queues the same delivery again (same `id`, same `webhook-id`); `attempts` keeps counting.
#[utoipa::path(post, path = "/v1/projects/{project_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry", tag = "webhooks", security(("session" = [])),
    params(("project_id" = String, Path), ("webhook_id" = String, Path), ("delivery_id" = String, Path)),
    responses((status = 202, body = Delivery), (status = 404, description = "no such webhook or delivery"), (status = 409, description = "`delivery_in_progress`")))]
pub async fn retry(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, webhook_id, delivery_id)): Path<(String, String, String)>,
) -> ApiResult<(StatusCode, Json<Delivery>)> {
    let id = parse_id(&webhook_id, "webhook")?;
    let delivery_id = parse_id(&delivery_id, "delivery")?;
    let hook = webhooks::get(&state.db, access.project.id, id).await?;
    let delivery = store::retry(&state.db, hook.id, delivery_id).await?;
    state.deliver(&[delivery.id]).await;
    Ok((StatusCode::ACCEPTED, Json(delivery)))
}
