//! Projects: create, list, show, rotate the API key, delete.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_accounts::projects::{
    self, KeyKind, KeyProject, NewProject, ProjectChanges, ProjectView,
};
use shipmate_accounts::teams::Role;

use super::schemas::{Deleted, ProjectList};
use crate::extract::{Admin, Body, Owner, ProjectAccess, ProjectKey, SessionUser, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/projects", post(create).get(list))
        .route(
            "/v1/projects/{project_id}",
            get(show).patch(update).delete(delete),
        )
        .route("/v1/projects/{project_id}/api-key/rotate", post(rotate))
        .route(
            "/v1/projects/{project_id}/publishable-key/rotate",
            post(rotate_publishable),
        )
        .route("/v1/project", get(of_key))
}

/// Creates a project with the caller as its owner, with a fresh `pk_` API key.
#[utoipa::path(post, path = "/v1/projects", tag = "projects", security(("session" = [])),
    request_body = NewProject,
    responses((status = 201, body = ProjectView), (status = 409, description = "slug taken"), (status = 422, description = "invalid name or slug")))]
pub async fn create(
    State(state): State<AppState>,
    session: SessionUser,
    Body(new): Body<NewProject>,
) -> ApiResult<(StatusCode, Json<ProjectView>)> {
    let project = projects::create(&state.db, session.user.id, &new.name, &new.slug).await?;
    Ok((StatusCode::CREATED, Json(project.view(Role::Owner))))
}

/// The projects the caller is a member of, each with their `role`.
#[utoipa::path(get, path = "/v1/projects", tag = "projects", security(("session" = [])), responses((status = 200, body = shipmate_types::common::List<shipmate_types::projects::ProjectView>)))]
pub async fn list(
    State(state): State<AppState>,
    session: SessionUser,
) -> ApiResult<Json<ProjectList>> {
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
) -> ApiResult<Json<ProjectView>> {
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
) -> ApiResult<Json<ProjectView>> {
    let rotated = projects::rotate_key(&state.db, access.project.id, KeyKind::Publishable).await?;
    state.forget_keys();
    Ok(Json(rotated.view(access.role)))
}

/// Renames the project or switches the board's moderation (admins and owners).
#[utoipa::path(patch, path = "/v1/projects/{project_id}", tag = "projects", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    request_body = ProjectChanges,
    responses((status = 200, body = ProjectView), (status = 403, description = "not an admin"), (status = 404, description = "no such project"), (status = 422, description = "invalid fields")))]
pub async fn update(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Body(changes): Body<ProjectChanges>,
) -> ApiResult<Json<ProjectView>> {
    let project = projects::update(&state.db, access.project.id, &changes).await?;
    // Cached key lookups carry the project's settings.
    state.forget_keys();
    Ok(Json(project.view(access.role)))
}

/// The project a key belongs to (either key): how widgets and the SDK find the slug.
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
) -> ApiResult<Json<Deleted>> {
    projects::delete(&state.db, access.project.id).await?;
    state.forget_keys();
    Ok(Json(Deleted::new(access.project.id)))
}
