//! Imports of a Plausible export: members upload the file, a worker applies it
//! (`analytics::imports`), and deleting one removes what it brought.

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use shipmate_accounts::teams::Role;
use shipmate_analytics::imports::{plausible, store};
use shipmate_core::error::Refusal;
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_types::imports::{AnalyticsImport, ImportList};

use super::schemas::Deleted;
use crate::extract::{require, Member, ProjectAccess, SessionUser, Viewer};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

/// A year of a busy site's daily rows fits many times over.
const MAX_IMPORT_BYTES: usize = 100 * 1024 * 1024;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/analytics/imports",
            post(create_import)
                .get(list_imports)
                .layer(DefaultBodyLimit::max(MAX_IMPORT_BYTES + 64 * 1024)),
        )
        .route("/v1/analytics/imports/{import_id}", delete(delete_import))
}

/// Imports a Plausible export (multipart, field `file`: the ZIP its "Export data" makes, or one of
/// its CSV files), applied by a worker: answered `pending` at once, `done` or `failed` later
/// (members and up). Its days count in the reads before the project's first own event.
#[utoipa::path(post, path = "/v1/analytics/imports", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Query)),
    request_body(content = shipmate_types::imports::ImportFile, content_type = "multipart/form-data"),
    responses((status = 201, body = AnalyticsImport), (status = 403, description = "not a member, or a viewer"),
        (status = 413, description = "a file over 100 MB"),
        (status = 422, description = "`unsupported_import`: not a Plausible export (the field `file` says why); or no file")))]
pub async fn create_import(
    State(state): State<AppState>,
    access: ProjectAccess<Member>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> ApiResult<(StatusCode, Json<AnalyticsImport>)> {
    let (name, bytes) = file_of(multipart).await?;
    // The tables and their columns are checked now: a file that is no export is refused whole.
    let checked = bytes.clone();
    let check = {
        let name = name.clone();
        tokio::task::spawn_blocking(move || plausible::tables(&name, checked).map(|_| ()))
    };
    if let Err(unsupported) = check.await.map_err(|e| AppError::Internal(e.into()))? {
        return Err(ApiError::from(AppError::invalid(
            "unsupported_import",
            "file",
            unsupported.0,
        )));
    }
    let made = store::create(&state.db, access.project.id, &name, &bytes).await?;
    Ok((StatusCode::CREATED, Json(made)))
}

/// The form's `file`: its name and bytes.
async fn file_of(
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> ApiResult<(String, Vec<u8>)> {
    let mut multipart = multipart.map_err(|_| {
        AppError::client(
            Refusal::UnsupportedMediaType,
            "unsupported_media_type",
            "send the export as multipart/form-data, in the field `file`",
        )
    })?;
    let bad = |e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            AppError::client(
                Refusal::PayloadTooLarge,
                "payload_too_large",
                "the file is over 100 MB",
            )
        } else {
            AppError::invalid("validation_failed", "file", e.body_text())
        }
    };
    while let Some(field) = multipart.next_field().await.map_err(bad)? {
        if field.name() == Some("file") {
            let name = field.file_name().unwrap_or_default().to_owned();
            let bytes = field.bytes().await.map_err(bad)?;
            return Ok((name, bytes.to_vec()));
        }
    }
    Err(ApiError::from(AppError::invalid(
        "validation_failed",
        "file",
        "is required",
    )))
}

/// The project's imports, newest first, with their status and progress.
#[utoipa::path(get, path = "/v1/analytics/imports", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Query)),
    responses((status = 200, body = ImportList), (status = 403, description = "not a member")))]
pub async fn list_imports(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<ImportList>> {
    Ok(Json(ImportList {
        data: store::list(&state.db, access.project.id).await?,
    }))
}

/// Deletes an import and every figure it brought (members and up).
#[utoipa::path(delete, path = "/v1/analytics/imports/{import_id}", tag = "analytics", security(("session" = [])),
    params(("import_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "not a member, or a viewer"), (status = 404, description = "no such import")))]
pub async fn delete_import(
    State(state): State<AppState>,
    session: SessionUser,
    Path(import_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&import_id, "import")?;
    let project = store::project_of(&state.db, id).await?;
    require(&state, &session, project, Role::Member).await?;
    store::delete(&state.db, id).await?;
    Ok(Json(Deleted::new(id)))
}
