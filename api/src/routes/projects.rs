//! Projects: create, list, show, rotate the API key, delete.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use shipmate_shared::projects::{self, Project};
use shipmate_shared::validate::parse_id;
use shipmate_shared::AppResult;

use super::schemas::{Deleted, ProjectList};
use crate::extract::{JsonBody, SessionUser};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/projects", post(create).get(list))
        .route("/v1/projects/{project_id}", get(show).delete(delete))
        .route("/v1/projects/{project_id}/api-key/rotate", post(rotate))
}

/// Creates a project owned by the caller, with a fresh `pk_` API key.
#[utoipa::path(post, path = "/v1/projects", tag = "projects", security(("session" = [])),
    request_body(content = serde_json::Value, description = "`{name, slug}`"),
    responses((status = 201, body = Project), (status = 409, description = "slug taken"), (status = 422, description = "invalid name or slug")))]
pub async fn create(
    State(state): State<AppState>,
    session: SessionUser,
    JsonBody(mut input): JsonBody,
) -> AppResult<(StatusCode, Json<Project>)> {
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
    Ok((StatusCode::CREATED, Json(project)))
}

/// The caller's own projects.
#[utoipa::path(get, path = "/v1/projects", tag = "projects", security(("session" = [])), responses((status = 200, body = ProjectList)))]
pub async fn list(
    State(state): State<AppState>,
    session: SessionUser,
) -> AppResult<Json<serde_json::Value>> {
    let data = projects::list_owned(&state.db, session.user.id).await?;
    Ok(Json(json!({ "data": data })))
}

#[utoipa::path(get, path = "/v1/projects/{project_id}", tag = "projects", security(("session" = [])),
    responses((status = 200, body = Project), (status = 403, description = "not the owner"), (status = 404, description = "no such project")))]
pub async fn show(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> AppResult<Json<Project>> {
    Ok(Json(owned(&state, &session, &id).await?))
}

/// Issues a new API key; the old one answers 401 from then on.
#[utoipa::path(post, path = "/v1/projects/{project_id}/api-key/rotate", tag = "projects", security(("session" = [])),
    responses((status = 200, body = Project), (status = 403, description = "not the owner"), (status = 404, description = "no such project")))]
pub async fn rotate(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> AppResult<Json<Project>> {
    let project = owned(&state, &session, &id).await?;
    let rotated = projects::rotate_key(&state.db, project.id).await?;
    state.forget_keys();
    Ok(Json(rotated))
}

/// Deletes the project and everything in it.
#[utoipa::path(delete, path = "/v1/projects/{project_id}", tag = "projects", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 403, description = "not the owner"), (status = 404, description = "no such project")))]
pub async fn delete(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> AppResult<Json<serde_json::Value>> {
    let project = owned(&state, &session, &id).await?;
    projects::delete(&state.db, project.id).await?;
    state.forget_keys();
    Ok(deleted(project.id))
}

/// The project named by a path or query id, if the session's user owns it (404, else 403).
pub async fn owned(state: &AppState, session: &SessionUser, id: &str) -> AppResult<Project> {
    let id = parse_id(id, "project")?;
    projects::get_owned(&state.db, session.user.id, id).await
}

/// The project named by the `project_id` query parameter of dashboard endpoints.
pub async fn owned_by_query(
    state: &AppState,
    session: &SessionUser,
    q: &std::collections::HashMap<String, String>,
) -> AppResult<Project> {
    let id = shipmate_shared::validate::project_id_param(q.get("project_id").map(String::as_str))?;
    projects::get_owned(&state.db, session.user.id, id).await
}

/// The contract's deletion answer.
pub fn deleted(id: uuid::Uuid) -> Json<serde_json::Value> {
    Json(json!({ "id": id, "deleted": true }))
}
