//! Saved segments: members name a set of read filters; any read takes `segment=<id>`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use shipmate_accounts::teams::Role;
use shipmate_analytics::segments;
use shipmate_core::params::parse_id;
use shipmate_types::analytics::{NewSegment, Segment, SegmentList};

use super::schemas::Deleted;
use crate::extract::{require, Body, ProjectAccess, SessionUser, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/analytics/segments",
            post(create_segment).get(list_segments),
        )
        .route(
            "/v1/analytics/segments/{segment_id}",
            delete(delete_segment),
        )
}

/// Saves a segment: a name for 1 to 10 of the reads' filters (members and up).
#[utoipa::path(post, path = "/v1/analytics/segments", tag = "analytics", security(("session" = [])),
    request_body = NewSegment,
    responses((status = 201, body = Segment), (status = 403, description = "not a member, or a viewer"), (status = 409, description = "the project has 100 segments already"), (status = 422, description = "an unknown filter name or a bad value (`filters.<name>`), or another bad field")))]
pub async fn create_segment(
    State(state): State<AppState>,
    session: SessionUser,
    Body(new): Body<NewSegment>,
) -> ApiResult<(StatusCode, Json<Segment>)> {
    require(&state, &session, new.project_id, Role::Member).await?;
    Ok((
        StatusCode::CREATED,
        Json(segments::create(&state.db, new).await?),
    ))
}

/// The project's segments, oldest first.
#[utoipa::path(get, path = "/v1/analytics/segments", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Query)),
    responses((status = 200, body = SegmentList), (status = 403, description = "not a member")))]
pub async fn list_segments(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<SegmentList>> {
    Ok(Json(SegmentList {
        data: segments::list(&state.db, access.project.id).await?,
    }))
}

/// Deletes a segment, and the share links locked to it (members and up).
#[utoipa::path(delete, path = "/v1/analytics/segments/{segment_id}", tag = "analytics", security(("session" = [])),
    params(("segment_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "not a member, or a viewer"), (status = 404, description = "no such segment")))]
pub async fn delete_segment(
    State(state): State<AppState>,
    session: SessionUser,
    Path(segment_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&segment_id, "segment")?;
    let project = segments::project_of(&state.db, id).await?;
    require(&state, &session, project, Role::Member).await?;
    segments::delete(&state.db, project, id).await?;
    Ok(Json(Deleted::new(id)))
}
