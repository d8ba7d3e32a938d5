//! GitHub sync: a project's inbound endpoint for GitHub's `issues` events (verified with
//! `X-Hub-Signature-256`), and its settings (admins and owners).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_feedback::feedback::github::{self, IssuesEvent};
use shipmate_feedback::feedback::set_status;
use shipmate_outbound::notify;
use shipmate_types::feedback::{GitHubHook, GitHubIntegration, GitHubReceived};
use uuid::Uuid;

use super::schemas::Deleted;
use crate::extract::{Admin, ProjectAccess};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/integrations/github",
            post(connect).get(show).delete(disconnect),
        )
        .route("/v1/integrations/github/{project_id}", post(receive))
}

fn inbound_url(state: &AppState, project_id: Uuid) -> String {
    format!(
        "{}/v1/integrations/github/{project_id}",
        state.public_url.trim_end_matches('/')
    )
}

/// Connects GitHub (or makes a new secret): paste `url` and `secret` into the repository's webhook
/// settings, content type `application/json`, event "Issues".
#[utoipa::path(post, path = "/v1/projects/{project_id}/integrations/github", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = GitHubHook), (status = 403, description = "without the role needed")))]
pub async fn connect(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<GitHubHook>> {
    let secret = github::connect(&state.db, access.project.id).await?;
    Ok(Json(GitHubHook {
        url: inbound_url(&state, access.project.id),
        secret,
    }))
}

#[utoipa::path(get, path = "/v1/projects/{project_id}/integrations/github", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = GitHubIntegration), (status = 403, description = "without the role needed")))]
pub async fn show(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<GitHubIntegration>> {
    let at = github::connected_at(&state.db, access.project.id).await?;
    Ok(Json(GitHubIntegration {
        url: inbound_url(&state, access.project.id),
        connected: at.is_some(),
        connected_at: at,
    }))
}

/// Disconnects GitHub: its deliveries are refused (401) from now on; links stay.
#[utoipa::path(delete, path = "/v1/projects/{project_id}/integrations/github", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "not connected")))]
pub async fn disconnect(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<Deleted>> {
    github::disconnect(&state.db, access.project.id).await?;
    Ok(Json(Deleted::new(access.project.id)))
}

/// GitHub's webhook deliveries. An `issues` event closing (completed / not planned) or reopening an
/// issue moves the entries linked to it, with the usual webhooks and emails; `ping` and other
/// events change nothing.
#[utoipa::path(post, path = "/v1/integrations/github/{project_id}", tag = "feedback",
    params(("project_id" = String, Path),
        ("X-Hub-Signature-256" = String, Header, description = "`sha256=` and the hex HMAC-SHA256 of the body, keyed with the project's secret"),
        ("X-GitHub-Event" = String, Header, description = "`issues` moves entries; others are acknowledged")),
    request_body(content = serde_json::Value, description = "GitHub's event payload"),
    responses((status = 200, body = GitHubReceived), (status = 401, description = "a missing or wrong signature, or GitHub not connected"),
        (status = 400, description = "an `issues` event that is not GitHub's shape")))]
pub async fn receive(
    State(state): State<AppState>,
    Path(project_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<Json<GitHubReceived>> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let project_id = parse_id(&project_id, "project")
        .map_err(|_| AppError::unauthorized("the signature does not match"))?;
    if !github::verify(&state.db, project_id, &body, header("x-hub-signature-256")).await? {
        return Err(AppError::unauthorized(
            "the X-Hub-Signature-256 header does not match this project's GitHub secret",
        )
        .into());
    }
    let mut moved = Vec::new();
    if header("x-github-event") != "issues" {
        return Ok(Json(GitHubReceived { moved }));
    }
    let event: IssuesEvent = serde_json::from_slice(&body).map_err(|e| {
        AppError::client(
            shipmate_core::error::Refusal::BadRequest,
            "malformed_event",
            format!("not an issues event: {e}"),
        )
    })?;
    let mut tx = state.db.begin().await?;
    let mut deliveries = Vec::new();
    for entry in github::linked(&mut tx, project_id, &event.issue.html_url).await? {
        let Some(status) = github::status_for(entry.kind, &event) else {
            continue;
        };
        if status == entry.status {
            continue;
        }
        let (moved_entry, previous) = set_status(&mut tx, project_id, entry.id, status).await?;
        deliveries.extend(
            notify::feedback_status_changed(&mut tx, state.mail(), &moved_entry, previous).await?,
        );
        moved.push(entry.id);
    }
    tx.commit().await?;
    state.deliver(&deliveries).await;
    tracing::info!(%project_id, moved = moved.len(), action = %event.action, "GitHub issues event");
    Ok(Json(GitHubReceived { moved }))
}
