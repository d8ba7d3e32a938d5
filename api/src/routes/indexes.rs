//! Knowledge base: indexes and documents (API key), and the model catalogue (public).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_kb::documents::{self, Chunk, Document};
use shipmate_kb::indexes::{self, Index, IndexRef, NewIndex};
use shipmate_types::common::List;

use super::schemas::{Deleted, DocumentPage, IndexList, ModelList};
use crate::extract::{Body, ProjectKey};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/indexes/models", get(models))
        .route("/v1/indexes", post(create).get(list))
        .route("/v1/indexes/{index_id}", get(show).delete(remove))
        .route("/v1/indexes/{index_id}/documents", get(list_documents))
        .route(
            "/v1/indexes/{index_id}/documents/{doc_id}",
            get(show_document).delete(remove_document),
        )
        .route(
            "/v1/indexes/{index_id}/documents/{doc_id}/chunks",
            get(document_chunks),
        )
}

/// The embedding models: the catalogue and local models, with whether each can be used now.
#[utoipa::path(get, path = "/v1/indexes/models", tag = "knowledge base", responses((status = 200, body = shipmate_types::common::List<shipmate_types::kb::ModelInfo>)))]
pub async fn models(State(state): State<AppState>) -> Json<ModelList> {
    Json(state.models.list().into())
}

/// Creates an index; the project's first one locks the project to its `embedding_model`.
#[utoipa::path(post, path = "/v1/indexes", tag = "knowledge base", security(("api_key" = [])),
    request_body = NewIndex,
    responses((status = 201, body = Index), (status = 409, description = "duplicate name or `embedding_model_locked`"),
        (status = 422, description = "`embedding_model_required`, `unknown_model`, `model_unavailable`")))]
pub async fn create(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Body(new): Body<NewIndex>,
) -> ApiResult<(StatusCode, Json<Index>)> {
    let index = indexes::create(
        &state.db,
        &state.models,
        project.id,
        &new.name,
        new.embedding_model.as_deref(),
        new.external_id.as_deref(),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(index)))
}

#[utoipa::path(get, path = "/v1/indexes", tag = "knowledge base", security(("api_key" = [])), responses((status = 200, body = shipmate_types::common::List<shipmate_types::kb::Index>)))]
pub async fn list(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
) -> ApiResult<Json<IndexList>> {
    Ok(Json(indexes::list(&state.db, project.id).await?.into()))
}

/// One index with its documents by status: during a bulk load, `documents_ready` of
/// `document_count` is its progress.
#[utoipa::path(get, path = "/v1/indexes/{index_id}", tag = "knowledge base", security(("api_key" = [])),
    responses((status = 200, body = Index), (status = 404, description = "no such index in this project")))]
pub async fn show(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
) -> ApiResult<Json<Index>> {
    let id = parse_id(&index_id, "index")?;
    Ok(Json(indexes::get(&state.db, project.id, id).await?))
}

/// Deletes the index with its documents and chunks.
#[utoipa::path(delete, path = "/v1/indexes/{index_id}", tag = "knowledge base", security(("api_key" = [])),
    responses((status = 200, body = Deleted), (status = 404, description = "no such index in this project")))]
pub async fn remove(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&index_id, "index")?;
    indexes::delete(&state.db, project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}

pub(super) async fn index_of(
    state: &AppState,
    project_id: uuid::Uuid,
    index_id: &str,
) -> ApiResult<IndexRef> {
    Ok(indexes::find(&state.db, project_id, parse_id(index_id, "index")?).await?)
}

/// A page of the index's documents, newest first.
#[utoipa::path(get, path = "/v1/indexes/{index_id}/documents", tag = "knowledge base", security(("api_key" = [])),
    params(("index_id" = String, Path), ("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query)),
    responses((status = 200, body = shipmate_types::common::Page<shipmate_types::kb::Document>), (status = 404, description = "no such index")))]
pub async fn list_documents(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<DocumentPage>> {
    let index = index_of(&state, project.id, &index_id).await?;
    let page = int_param(&q, "page", 1, 1, 1_000_000)?;
    let per_page = int_param(&q, "per_page", 20, 1, 100)?;
    let (data, total) = documents::list(&state.db, index.id, page, per_page).await?;
    Ok(Json(DocumentPage {
        data,
        page,
        per_page,
        total,
    }))
}

fn int_param(
    q: &HashMap<String, String>,
    field: &str,
    default: i64,
    min: i64,
    max: i64,
) -> ApiResult<i64> {
    match q.get(field).map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(default),
        Some(s) => match s.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::from(AppError::invalid(
                "validation_failed",
                field,
                format!("must be an integer from {min} to {max}"),
            ))),
        },
    }
}

/// A document's status (`pending`, `ready`, `failed`).
#[utoipa::path(get, path = "/v1/indexes/{index_id}/documents/{doc_id}", tag = "knowledge base", security(("api_key" = [])),
    responses((status = 200, body = Document), (status = 404, description = "no such document")))]
pub async fn show_document(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path((index_id, doc_id)): Path<(String, String)>,
) -> ApiResult<Json<Document>> {
    let index = index_of(&state, project.id, &index_id).await?;
    Ok(Json(
        documents::get(&state.db, index.id, parse_id(&doc_id, "document")?).await?,
    ))
}

/// The chunks of the document's newest version, in order, each with whether it has its vector.
#[utoipa::path(get, path = "/v1/indexes/{index_id}/documents/{doc_id}/chunks", tag = "knowledge base", security(("api_key" = [])),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::kb::Chunk>), (status = 404, description = "no such document")))]
pub async fn document_chunks(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path((index_id, doc_id)): Path<(String, String)>,
) -> ApiResult<Json<List<Chunk>>> {
    let index = index_of(&state, project.id, &index_id).await?;
    let id = parse_id(&doc_id, "document")?;
    Ok(Json(
        documents::chunks(&state.db, index.id, id).await?.into(),
    ))
}

/// Deletes the document and all its chunks.
#[utoipa::path(delete, path = "/v1/indexes/{index_id}/documents/{doc_id}", tag = "knowledge base", security(("api_key" = [])),
    responses((status = 200, body = Deleted), (status = 404, description = "no such document")))]
pub async fn remove_document(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path((index_id, doc_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let index = index_of(&state, project.id, &index_id).await?;
    let id = parse_id(&doc_id, "document")?;
    documents::delete(&state.db, index.id, id).await?;
    Ok(Json(Deleted::new(id)))
}
