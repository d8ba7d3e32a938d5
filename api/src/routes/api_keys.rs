//! Scoped API keys of a project (admins and owners): create, list, revoke.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use shipmate_accounts::api_keys::{self, ApiKey, NewApiKey};
use shipmate_core::params::parse_id;

use super::schemas::{ApiKeyList, Deleted};
use crate::extract::{Admin, Body, ProjectAccess};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/projects/{project_id}/api-keys", post(create).get(list))
        .route(
            "/v1/projects/{project_id}/api-keys/{key_id}",
            delete(revoke),
        )
}

/// Creates a key limited to `scopes` (and, if given, to `allowed_origins`). The key is in this
/// answer only: it is stored as a hash.
#[utoipa::path(post, path = "/v1/projects/{project_id}/api-keys", tag = "api keys", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    request_body = NewApiKey,
    responses((status = 201, body = ApiKey), (status = 403, description = "not an admin of the project"), (status = 404, description = "no such project"), (status = 422, description = "invalid name, scope or origin")))]
pub async fn create(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Admin>,
    Body(new): Body<NewApiKey>,
) -> ApiResult<(StatusCode, Json<ApiKey>)> {
    let key = api_keys::create(
        &state.db,
        project.id,
        &new.name,
        &new.scopes,
        &new.allowed_origins,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(key)))
}

/// The project's scoped keys (without the keys themselves).
#[utoipa::path(get, path = "/v1/projects/{project_id}/api-keys", tag = "api keys", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::projects::ApiKey>), (status = 403, description = "not an admin of the project"), (status = 404, description = "no such project")))]
pub async fn list(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Admin>,
) -> ApiResult<Json<ApiKeyList>> {
    Ok(Json(api_keys::list(&state.db, project.id).await?.into()))
}

/// Revokes a scoped key: it answers 401 from then on. (The project's own key is replaced with
/// `POST /v1/projects/{project_id}/api-key/rotate`.)
#[utoipa::path(delete, path = "/v1/projects/{project_id}/api-keys/{key_id}", tag = "api keys", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 403, description = "not an admin of the project"), (status = 404, description = "no such project or key")))]
pub async fn revoke(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Admin>,
    Path((_project_id, key_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let key_id = parse_id(&key_id, "API key")?;
    api_keys::revoke(&state.db, project.id, key_id).await?;
    state.forget_keys();
    Ok(Json(Deleted::new(key_id)))
}
