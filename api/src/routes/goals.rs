//! Goals and funnels: defined by members, read by every member (with the reads' range and
//! filters).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use shipmate_accounts::teams::Role;
use shipmate_analytics::{funnels, goals};
use shipmate_core::params::parse_id;
use shipmate_types::analytics::{
    Breakdown, Funnel, FunnelList, FunnelReport, Goal, GoalRow, NewFunnel, NewGoal,
};

use super::analytics::{ReadParams, Reading};
use super::schemas::Deleted;
use crate::csv::Format;
use crate::extract::{require, Body, ProjectAccess, SessionUser, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/analytics/goals", post(create_goal).get(goal_report))
        .route("/v1/analytics/goals/{goal_id}", delete(delete_goal))
        .route(
            "/v1/analytics/funnels",
            post(create_funnel).get(list_funnels),
        )
        .route(
            "/v1/analytics/funnels/{funnel_id}",
            get(funnel_report).delete(delete_funnel),
        )
}

/// Creates a goal: a custom event or a page (members and up).
#[utoipa::path(post, path = "/v1/analytics/goals", tag = "analytics", security(("session" = [])),
    request_body = NewGoal,
    responses((status = 201, body = Goal), (status = 403, description = "not a member, or a viewer"), (status = 422, description = "both or neither of event and page, or another bad field")))]
pub async fn create_goal(
    State(state): State<AppState>,
    session: SessionUser,
    Body(new): Body<NewGoal>,
) -> ApiResult<(StatusCode, Json<Goal>)> {
    require(&state, &session, new.project_id, Role::Member).await?;
    Ok((
        StatusCode::CREATED,
        Json(goals::create(&state.db, new).await?),
    ))
}

/// Every goal with its visitors, conversions and conversion rate over the range.
#[utoipa::path(get, path = "/v1/analytics/goals", tag = "analytics", security(("session" = [])),
    params(ReadParams),
    responses((status = 200, description = "JSON, or CSV with `Accept: text/csv`", content((Breakdown<GoalRow> = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 422, description = "bad parameters, every one listed")))]
pub async fn goal_report(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    format: Format,
    Reading(query): Reading,
) -> ApiResult<Response> {
    format.respond(
        goals::report(&*state.events, &state.db, access.project.id, &query).await?,
        &[
            "id",
            "name",
            "event",
            "page",
            "visitors",
            "conversions",
            "conversion_rate",
        ],
    )
}

/// Deletes a goal (members and up).
#[utoipa::path(delete, path = "/v1/analytics/goals/{goal_id}", tag = "analytics", security(("session" = [])),
    params(("goal_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "not a member, or a viewer"), (status = 404, description = "no such goal")))]
pub async fn delete_goal(
    State(state): State<AppState>,
    session: SessionUser,
    Path(goal_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&goal_id, "goal")?;
    let project = goals::project_of(&state.db, id).await?;
    require(&state, &session, project, Role::Member).await?;
    goals::delete(&state.db, id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Creates a funnel of 2 to 8 steps (members and up).
#[utoipa::path(post, path = "/v1/analytics/funnels", tag = "analytics", security(("session" = [])),
    request_body = NewFunnel,
    responses((status = 201, body = Funnel), (status = 403, description = "not a member, or a viewer"), (status = 422, description = "fewer than 2 or more than 8 steps, or another bad field")))]
pub async fn create_funnel(
    State(state): State<AppState>,
    session: SessionUser,
    Body(new): Body<NewFunnel>,
) -> ApiResult<(StatusCode, Json<Funnel>)> {
    require(&state, &session, new.project_id, Role::Member).await?;
    Ok((
        StatusCode::CREATED,
        Json(funnels::create(&state.db, new).await?),
    ))
}

/// The project's funnels, oldest first.
#[utoipa::path(get, path = "/v1/analytics/funnels", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Query)),
    responses((status = 200, body = FunnelList), (status = 403, description = "not a member")))]
pub async fn list_funnels(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<FunnelList>> {
    Ok(Json(FunnelList {
        data: funnels::list(&state.db, access.project.id).await?,
    }))
}

/// The funnel's steps over the range: visitors at each step and their rate of the first step's.
#[utoipa::path(get, path = "/v1/analytics/funnels/{funnel_id}", tag = "analytics", security(("session" = [])),
    params(("funnel_id" = String, Path), ReadParams),
    responses((status = 200, description = "JSON, or CSV (the steps) with `Accept: text/csv`", content((FunnelReport = "application/json"), (String = "text/csv"))), (status = 404, description = "no such funnel"), (status = 422, description = "bad parameters, every one listed")))]
pub async fn funnel_report(
    State(state): State<AppState>,
    session: SessionUser,
    format: Format,
    Path(funnel_id): Path<String>,
    Reading(query): Reading,
) -> ApiResult<Response> {
    let funnel = funnels::find(&state.db, parse_id(&funnel_id, "funnel")?).await?;
    require(&state, &session, funnel.project_id, Role::Viewer).await?;
    format.respond(
        state.events.funnel(&funnel, &query).await?,
        &["label", "visitors", "conversion_rate"],
    )
}

/// Deletes a funnel (members and up).
#[utoipa::path(delete, path = "/v1/analytics/funnels/{funnel_id}", tag = "analytics", security(("session" = [])),
    params(("funnel_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "not a member, or a viewer"), (status = 404, description = "no such funnel")))]
pub async fn delete_funnel(
    State(state): State<AppState>,
    session: SessionUser,
    Path(funnel_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let funnel = funnels::find(&state.db, parse_id(&funnel_id, "funnel")?).await?;
    require(&state, &session, funnel.project_id, Role::Member).await?;
    funnels::delete(&state.db, funnel.id).await?;
    Ok(Json(Deleted::new(funnel.id)))
}
