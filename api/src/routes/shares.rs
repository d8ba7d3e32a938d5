//! Shared dashboard links: admins make and revoke them; the link opens `/share/<token>`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use shipmate_analytics::shares;
use shipmate_core::params::parse_id;
use shipmate_types::analytics::{NewShareLink, ShareLink, ShareLinkList};

use super::schemas::Deleted;
use crate::extract::{Admin, OptionalBody, ProjectAccess};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/analytics/share",
            post(create).get(list),
        )
        .route(
            "/v1/projects/{project_id}/analytics/share/{share_id}",
            delete(revoke),
        )
}

/// A new read-only link to the project's analytics, opened without signing in (admins). With
/// `segment_id` the link shows that segment only; no body: all the project's figures.
#[utoipa::path(post, path = "/v1/projects/{project_id}/analytics/share", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Path)),
    request_body(content = Option<NewShareLink>, description = "optional"),
    responses((status = 201, body = ShareLink), (status = 403, description = "not an admin of the project"), (status = 404, description = "`segment_id` is no segment of the project")))]
pub async fn create(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    OptionalBody(new): OptionalBody<NewShareLink>,
) -> ApiResult<(StatusCode, Json<ShareLink>)> {
    let link = shares::create(
        &state.db,
        &state.public_url,
        access.project.id,
        new.segment_id,
    )
    .await?;
    Ok((StatusCode::CREATED, Json(link)))
}

/// The project's live share links (admins).
#[utoipa::path(get, path = "/v1/projects/{project_id}/analytics/share", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = ShareLinkList), (status = 403, description = "not an admin of the project")))]
pub async fn list(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<ShareLinkList>> {
    Ok(Json(ShareLinkList {
        data: shares::list(&state.db, &state.public_url, access.project.id).await?,
    }))
}

/// Revokes a link: its page answers 404 from now on (admins).
#[utoipa::path(delete, path = "/v1/projects/{project_id}/analytics/share/{share_id}", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Path), ("share_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "not an admin of the project"), (status = 404, description = "no such link")))]
pub async fn revoke(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path(ids): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&ids.1, "share link")?;
    shares::revoke(&state.db, access.project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}
