//! The changelog: published entries (API key), drafts and management (owner).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, patch};
use axum::{Json, Router};
use shipmate_core::params::{parse_id, Paging};
use shipmate_feedback::changelog::{self, Entry, EntryChanges, NewEntry};
use shipmate_outbound::notify;
use shipmate_types::common::Page;
use sqlx::PgConnection;
use uuid::Uuid;

use super::schemas::Deleted;
use crate::extract::{Body, Member, ProjectAccess, ProjectKey, Viewer};
use crate::problem::ApiResult;
use crate::read_your_writes::ReadDb;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/changelog", get(list_published))
        .route(
            "/v1/changelog/dashboard/{project_id}",
            get(list_all).post(create),
        )
        .route(
            "/v1/changelog/dashboard/{project_id}/{id}",
            patch(update).delete(remove),
        )
}

/// Published entries, newest `published_at` first.
#[utoipa::path(get, path = "/v1/changelog", tag = "changelog", security(("api_key" = [])),
    params(("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query, description = "1 to 100, default 50")),
    responses((status = 200, body = shipmate_types::common::Page<shipmate_types::changelog::Entry>), (status = 401, description = "bad API key")))]
pub async fn list_published(
    ReadDb(reads): ReadDb,
    ProjectKey { project, .. }: ProjectKey,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Page<Entry>>> {
    let paging = Paging::parse(&q)?;
    let (data, total) = reads
        .run(|db| changelog::list(db, project.id, true, paging))
        .await?;
    Ok(Json(paging.wrap(data, total)))
}

/// Every entry, drafts included (viewers and up).
#[utoipa::path(get, path = "/v1/changelog/dashboard/{project_id}", tag = "changelog", security(("session" = [])), params(("project_id" = String, Path, description = "the project"), ("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query, description = "1 to 100, default 50")),
    responses((status = 200, body = shipmate_types::common::Page<shipmate_types::changelog::Entry>), (status = 403, description = "without the role needed"), (status = 404, description = "no such project")))]
pub async fn list_all(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Viewer>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Page<Entry>>> {
    let paging = Paging::parse(&q)?;
    let (data, total) = changelog::list(&state.db, project.id, false, paging).await?;
    Ok(Json(paging.wrap(data, total)))
}

#[utoipa::path(post, path = "/v1/changelog/dashboard/{project_id}", tag = "changelog", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    request_body = NewEntry,
    responses((status = 201, body = Entry), (status = 403, description = "without the role needed"), (status = 422, description = "invalid fields")))]
pub async fn create(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Body(new): Body<NewEntry>,
) -> ApiResult<(StatusCode, Json<Entry>)> {
    let mut tx = state.db.begin().await?;
    let entry = changelog::create(&mut tx, project.id, new).await?;
    let deliveries = saved(&state, &mut tx, &entry, false).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok((StatusCode::CREATED, Json(entry)))
}

/// Changes any of `title, content, type, published`; `published: false` returns it to draft.
#[utoipa::path(patch, path = "/v1/changelog/dashboard/{project_id}/{id}", tag = "changelog", security(("session" = [])),
    request_body = EntryChanges,
    responses((status = 200, body = Entry), (status = 403, description = "without the role needed"), (status = 404, description = "no such entry"), (status = 422, description = "invalid fields")))]
pub async fn update(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Path((_project_id, id)): Path<(String, String)>,
    Body(changes): Body<EntryChanges>,
) -> ApiResult<Json<Entry>> {
    let id = parse_id(&id, "changelog entry")?;
    let mut tx = state.db.begin().await?;
    let (entry, was_published) = changelog::update(&mut tx, project.id, id, changes).await?;
    let deliveries = saved(&state, &mut tx, &entry, was_published).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok(Json(entry))
}

#[utoipa::path(delete, path = "/v1/changelog/dashboard/{project_id}/{id}", tag = "changelog", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "no such entry")))]
pub async fn remove(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Path((_project_id, id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&id, "changelog entry")?;
    changelog::delete(&state.db, project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}

/// What a saved entry sets off, in its transaction: `changelog.published` the first time it is
/// published, and, while it is published, the linked feedback shipped with the events and emails
/// of each status change.
async fn saved(
    state: &AppState,
    tx: &mut PgConnection,
    entry: &Entry,
    was_published: bool,
) -> ApiResult<Vec<Uuid>> {
    let mut deliveries = notify::changelog_saved(tx, state.mail(), entry, was_published).await?;
    for (feedback, previous) in changelog::ship_linked(tx, entry).await? {
        deliveries
            .extend(notify::feedback_status_changed(tx, state.mail(), &feedback, previous).await?);
    }
    Ok(deliveries)
}
