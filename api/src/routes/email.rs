//! Email settings and lists: members' notification settings, changelog subscriptions, the
//! subscriber count, and suppressed addresses (instance admins).

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use shipmate_accounts::projects::{self, Project};
use shipmate_outbound::subscriptions::{
    self, NotificationChanges, Notifications, SubscriberCounts,
};
use shipmate_types::accounts::EmailAddress;
use shipmate_types::email::SuppressionLifted;
use shipmate_types::input::Input;

use super::schemas::{Queued, SuppressionList};
use crate::extract::{Body, InstanceAdmin, JsonBody, Member, ProjectAccess, ProjectKey, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/notifications",
            get(notifications)
                .put(set_notifications)
                .patch(set_notifications),
        )
        .route(
            "/v1/projects/{project_id}/changelog/subscribers",
            get(subscribers),
        )
        .route("/v1/changelog/subscribe", post(subscribe))
        .route(
            "/v1/changelog/by-project/{slug}/subscribe",
            post(subscribe_public),
        )
        .route("/v1/admin/suppressions", get(suppressions))
        .route("/v1/admin/suppressions/{email}", delete(lift))
}

/// The caller's own notification emails for this project (owners get both by default).
#[utoipa::path(get, path = "/v1/projects/{project_id}/notifications", tag = "email", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = Notifications), (status = 403, description = "not a member")))]
pub async fn notifications(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<Notifications>> {
    Ok(Json(
        subscriptions::notifications(
            &state.db,
            access.project.id,
            access.session.user.id,
            state.mail().configured,
        )
        .await?,
    ))
}

/// Changes the caller's own settings.
#[utoipa::path(put, path = "/v1/projects/{project_id}/notifications", tag = "email", security(("session" = [])),
    params(("project_id" = String, Path)),
    request_body = NotificationChanges,
    responses((status = 200, body = Notifications), (status = 422, description = "not booleans")))]
pub async fn set_notifications(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    Body(changes): Body<NotificationChanges>,
) -> ApiResult<Json<Notifications>> {
    let (project, user) = (access.project.id, access.session.user.id);
    subscriptions::set_notifications(&state.db, project, user, &changes).await?;
    let configured = state.mail().configured;
    Ok(Json(
        subscriptions::notifications(&state.db, project, user, configured).await?,
    ))
}

/// Changelog subscribers: confirmed, and still waiting for their confirmation.
#[utoipa::path(get, path = "/v1/projects/{project_id}/changelog/subscribers", tag = "email", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = SubscriberCounts), (status = 403, description = "without the role needed")))]
pub async fn subscribers(
    State(state): State<AppState>,
    access: ProjectAccess<Member>,
) -> ApiResult<Json<SubscriberCounts>> {
    Ok(Json(
        subscriptions::counts(&state.db, access.project.id).await?,
    ))
}

/// Starts a changelog subscription for `{email}` (the form page posts here too).
pub(crate) async fn start_subscription(
    state: &AppState,
    project: &Project,
    input: Input,
) -> ApiResult<()> {
    let EmailAddress { email } = input.parse()?;
    let mut tx = state.db.begin().await?;
    let deliveries =
        subscriptions::subscribe(&mut tx, state.mail(), (project.id, &project.name), &email)
            .await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok(())
}

fn accepted() -> (StatusCode, Json<Queued>) {
    (StatusCode::ACCEPTED, Json(Queued::YES))
}

/// Subscribes an address to the changelog (double opt-in: a confirmation email goes out first).
#[utoipa::path(post, path = "/v1/changelog/subscribe", tag = "changelog", security(("api_key" = [])),
    request_body = EmailAddress,
    responses((status = 202, body = Queued), (status = 422, description = "not an email address")))]
pub async fn subscribe(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<Queued>)> {
    start_subscription(&state, &project, input).await?;
    Ok(accepted())
}

/// The same for the public changelog page, without a key: rate-limited per client address.
#[utoipa::path(post, path = "/v1/changelog/by-project/{slug}/subscribe", tag = "changelog",
    params(("slug" = String, Path)),
    request_body = EmailAddress,
    responses((status = 202, body = Queued), (status = 404, description = "unknown slug"), (status = 422, description = "not an email address"), (status = 429, description = "too many")))]
pub async fn subscribe_public(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(slug): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<Queued>)> {
    let project = projects::by_slug(&state.db, &slug).await?;
    let client = crate::limits::bucket(state.client_ip(peer, &headers));
    state.limits.write(client, project.id).await?;
    start_subscription(&state, &project, input).await?;
    Ok(accepted())
}

/// Addresses that answered with a permanent SMTP failure: no notifications or subscriptions go there.
#[utoipa::path(get, path = "/v1/admin/suppressions", tag = "admin", security(("session" = [])),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::email::Suppression>), (status = 403, description = "not an instance admin")))]
pub async fn suppressions(
    State(state): State<AppState>,
    _: InstanceAdmin,
) -> ApiResult<Json<SuppressionList>> {
    Ok(Json(subscriptions::suppressions(&state.db).await?.into()))
}

/// Lifts a suppression: the address gets notifications again.
#[utoipa::path(delete, path = "/v1/admin/suppressions/{email}", tag = "admin", security(("session" = [])),
    params(("email" = String, Path)),
    responses((status = 200, body = SuppressionLifted), (status = 404, description = "not suppressed")))]
pub async fn lift(
    State(state): State<AppState>,
    _: InstanceAdmin,
    Path(email): Path<String>,
) -> ApiResult<Json<SuppressionLifted>> {
    subscriptions::lift(&state.db, &email).await?;
    Ok(Json(SuppressionLifted {
        id: email.to_lowercase(),
        deleted: true,
    }))
}
