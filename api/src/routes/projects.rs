//! Projects: create, list, show, rotate the API key, delete.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use serde_json::json;
use shipmate_shared::projects::{self, KeyKind, ProjectView};
use shipmate_shared::teams::Role;
use shipmate_shared::AppResult;

use super::schemas::{Deleted, ProjectList};
use crate::extract::{Admin, JsonBody, Owner, ProjectAccess, ProjectKey, SessionUser, Viewer};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/projects", post(create).get(list))
        .route("/v1/projects/{project_id}", get(show).delete(delete))
        .route("/v1/projects/{project_id}/api-key/rotate", post(rotate))
        .route(
            "/v1/projects/{project_id}/publishable-key/rotate",
            post(rotate_publishable),
        )
        .route("/v1/project", get(of_key))
}

/// Creates a project with the caller as its owner, with a fresh `pk_` API key.
#[utoipa::path(post, path = "/v1/projects", tag = "projects", security(("session" = [])),
    request_body(content = serde_json::Value, description = "`{name, slug}`"),
    responses((status = 201, body = ProjectView), (status = 409, description = "slug taken"), (status = 422, description = "invalid name or slug")))]
pub async fn create(
    State(state): State<AppState>,
    session: SessionUser,
    JsonBody(mut input): JsonBody,
) -> AppResult<(StatusCode, Json<ProjectView>)> {
    let name = input.string("name", 1, 100);
    let slug = input.string("slug", 1, 48);
    if let Some(s) = &slug {
        if !projects::is_valid_slug(s) {
            input.error(
                "slug",
                "must be 3 to 48 of a-z, 0-9 and -, starting and ending with a letter or digit",
            );
        }
    }
    input.finish()?;
    let project = projects::create(
        &state.db,
        session.user.id,
        &name.unwrap_or_default(),
        &slug.unwrap_or_default(),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(project.view(Role::Owner))))
}

/// The projects the caller is a member of, each with their `role`.
#[utoipa::path(get, path = "/v1/projects", tag = "projects", security(("session" = [])), responses((status = 200, body = ProjectList)))]
pub async fn list(
    State(state): State<AppState>,
    session: SessionUser,
) -> AppResult<Json<ProjectList>> {
    let data = projects::list_for(&state.db, session.user.id).await?;
    Ok(Json(ProjectList { data }))
}

/// The project as the caller sees it: `api_key` only for owners and admins.
#[utoipa::path(get, path = "/v1/projects/{project_id}", tag = "projects", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = ProjectView), (status = 403, description = "not a member"), (status = 404, description = "no such project")))]
pub async fn show(access: ProjectAccess<Viewer>) -> Json<ProjectView> {
    Json(access.project.view(access.role))
}

/// Issues a new API key; the old one answers 401 from then on (admins and owners).
#[utoipa::path(post, path = "/v1/projects/{project_id}/api-key/rotate", tag = "projects", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = ProjectView), (status = 403, description = "not an admin"), (status = 404, description = "no such project")))]
pub async fn rotate(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> AppResult<Json<ProjectView>> {
    let rotated = projects::rotate_key(&state.db, access.project.id, KeyKind::Secret).await?;
    state.forget_keys();
    Ok(Json(rotated.view(access.role)))
}

/// Issues a new publishable key; the old one answers 401 from then on (admins and owners).
#[utoipa::path(post, path = "/v1/projects/{project_id}/publishable-key/rotate", tag = "projects", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = ProjectView), (status = 403, description = "not an admin"), (status = 404, description = "no such project")))]
pub async fn rotate_publishable(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> AppResult<Json<ProjectView>> {
    let rotated = projects::rotate_key(&state.db, access.project.id, KeyKind::Publishable).await?;
    state.forget_keys();
    Ok(Json(rotated.view(access.role)))
}

/// The project a key belongs to (either key): how widgets and the SDK find the slug.
#[derive(Serialize, utoipa::ToSchema)]
pub struct KeyProject {
    pub id: uuid::Uuid,
    pub name: String,
    pub slug: String,
}

#[utoipa::path(get, path = "/v1/project", tag = "projects", security(("api_key" = [])),
    responses((status = 200, body = KeyProject), (status = 401, description = "unknown key")))]
pub async fn of_key(ProjectKey { project, .. }: ProjectKey) -> Json<KeyProject> {
    Json(KeyProject {
        id: project.id,
        name: project.name,
        slug: project.slug,
    })
}

/// Deletes the project and everything in it (owners only).
#[utoipa::path(delete, path = "/v1/projects/{project_id}", tag = "projects", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = Deleted), (status = 403, description = "not an owner"), (status = 404, description = "no such project")))]
pub async fn delete(
    State(state): State<AppState>,
    access: ProjectAccess<Owner>,
) -> AppResult<Json<serde_json::Value>> {
    projects::delete(&state.db, access.project.id).await?;
    state.forget_keys();
    Ok(deleted(access.project.id))
}

/// The contract's deletion answer.
pub fn deleted(id: uuid::Uuid) -> Json<serde_json::Value> {
    Json(json!({ "id": id, "deleted": true }))
}
