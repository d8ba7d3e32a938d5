//! Analytics alerts: members set them; the workers check them every 5 minutes (`analytics::alerts`).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use shipmate_accounts::teams::Role;
use shipmate_analytics::alerts;
use shipmate_core::params::parse_id;
use shipmate_types::alerts::{Alert, AlertList, NewAlert};

use super::schemas::Deleted;
use crate::extract::{require, Body, ProjectAccess, SessionUser, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/analytics/alerts", post(create_alert).get(list_alerts))
        .route("/v1/analytics/alerts/{alert_id}", delete(delete_alert))
}

/// Sets an alert: a traffic spike or drop (visitors of the last hour above or below the
/// threshold), or a goal's conversions of the last hour above it (members and up). It goes off
/// once until cleared: an email to members who opted in, and the `analytics.alert` webhook event.
#[utoipa::path(post, path = "/v1/analytics/alerts", tag = "analytics", security(("session" = [])),
    request_body = NewAlert,
    responses((status = 201, body = Alert), (status = 403, description = "not a member, or a viewer"), (status = 404, description = "`goal_id` is no goal of the project"), (status = 422, description = "a bad kind or threshold, or goal_id missing for a goal alert (or given for another)")))]
pub async fn create_alert(
    State(state): State<AppState>,
    session: SessionUser,
    Body(new): Body<NewAlert>,
) -> ApiResult<(StatusCode, Json<Alert>)> {
    require(&state, &session, new.project_id, Role::Member).await?;
    Ok((
        StatusCode::CREATED,
        Json(alerts::create(&state.db, new).await?),
    ))
}

/// The project's alerts, with each one's last figure and whether it is going off.
#[utoipa::path(get, path = "/v1/analytics/alerts", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Query)),
    responses((status = 200, body = AlertList), (status = 403, description = "not a member")))]
pub async fn list_alerts(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<AlertList>> {
    Ok(Json(AlertList {
        data: alerts::list(&state.db, access.project.id).await?,
    }))
}

/// Deletes an alert (members and up).
#[utoipa::path(delete, path = "/v1/analytics/alerts/{alert_id}", tag = "analytics", security(("session" = [])),
    params(("alert_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "not a member, or a viewer"), (status = 404, description = "no such alert")))]
pub async fn delete_alert(
    State(state): State<AppState>,
    session: SessionUser,
    Path(alert_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&alert_id, "alert")?;
    let project = alerts::project_of(&state.db, id).await?;
    require(&state, &session, project, Role::Member).await?;
    alerts::delete(&state.db, id).await?;
    Ok(Json(Deleted::new(id)))
}
