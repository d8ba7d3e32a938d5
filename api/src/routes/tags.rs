//! Tags: a project's labels for feedback (members make and delete them; every member sees them).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use shipmate_core::params::parse_id;
use shipmate_feedback::feedback::tags::{self, NewTag, Tag};
use shipmate_types::common::List;

use super::schemas::Deleted;
use crate::extract::{Body, Member, ProjectAccess, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/tags",
            post(create_tag).get(list_tags),
        )
        .route(
            "/v1/projects/{project_id}/tags/{tag_id}",
            delete(delete_tag),
        )
}

/// Adds a tag (`#rrggbb` colour, grey by default); names are unique in the project whatever the case.
#[utoipa::path(post, path = "/v1/projects/{project_id}/tags", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    request_body = NewTag,
    responses((status = 201, body = Tag), (status = 403, description = "without the role needed"),
        (status = 409, description = "`tag_exists` (the name is taken) or `too_many_tags` (100)")))]
pub async fn create_tag(
    State(state): State<AppState>,
    access: ProjectAccess<Member>,
    Body(new): Body<NewTag>,
) -> ApiResult<(StatusCode, Json<Tag>)> {
    let tag = tags::create(&state.db, access.project.id, new).await?;
    Ok((StatusCode::CREATED, Json(tag)))
}

/// The project's tags, by name.
#[utoipa::path(get, path = "/v1/projects/{project_id}/tags", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = List<Tag>), (status = 403, description = "without the role needed")))]
pub async fn list_tags(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<List<Tag>>> {
    Ok(Json(tags::list(&state.db, access.project.id).await?.into()))
}

/// Deletes a tag; entries that had it keep their other tags.
#[utoipa::path(delete, path = "/v1/projects/{project_id}/tags/{tag_id}", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path), ("tag_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "no such tag")))]
pub async fn delete_tag(
    State(state): State<AppState>,
    access: ProjectAccess<Member>,
    Path((_project_id, tag_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&tag_id, "tag")?;
    tags::delete(&state.db, access.project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}
