//! Knowledge base: indexes, documents and search (API key), and the model catalogue (public).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_kb::documents::{self, Chunk, Document};
use shipmate_kb::highlight;
use shipmate_kb::indexes::{self, Index, IndexRef, NewIndex};
use shipmate_kb::search::{self, Search, SearchMode, SearchQuery};
use shipmate_kb::search_log;
use shipmate_types::common::List;

use super::schemas::{Deleted, DocumentPage, IndexList, ModelList, SearchResults};
use crate::extract::{Body, JsonBody, ProjectKey};
use crate::problem::{ApiError, ApiResult};
use crate::read_your_writes::ReadDb;
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
        .route("/v1/indexes/{index_id}/search", post(search_index))
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

/// The `top_k` best ready chunks for the query: by meaning (`vector`, the default: the query is
/// embedded with the index's model), by words (`keyword`: PostgreSQL full text, no embedding), or
/// both fused by reciprocal rank (`hybrid`). `filter` narrows to documents whose metadata matches.
#[utoipa::path(post, path = "/v1/indexes/{index_id}/search", tag = "knowledge base", security(("api_key" = [])),
    request_body = SearchQuery,
    responses((status = 200, body = SearchResults), (status = 404, description = "no such index"),
        (status = 422, description = "invalid query, top_k, mode or filter (a filter value that is an object names its key: `filter.<key>`)")))]
pub async fn search_index(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<Json<SearchResults>> {
    let index = index_of(&state, project.id, &index_id).await?;
    let Search {
        query,
        top_k,
        mode,
        filter,
        highlight,
    } = input.parse::<SearchQuery>()?.into();
    let limit = search::candidates(mode, top_k);
    let (index, query, filter) = (&index, &query, &filter);
    let hybrid = matches!(mode, SearchMode::Hybrid);
    let (exact_below, sizes) = (
        state.settings.common.kb.search_exact_below,
        &state.index_sizes,
    );
    // The best cosine similarity, for the analytics' confidence (keyword ranks are no similarity).
    let (mut results, top_score) = match mode {
        SearchMode::Keyword => (
            reads
                .run(|db| search::keyword(db, index, query, limit, filter))
                .await?,
            None,
        ),
        SearchMode::Vector | SearchMode::Hybrid => {
            // The exact-or-graph check (and, for hybrid, the keyword list) run while the model
            // embeds the query.
            let lists = |db| async move {
                let words = async {
                    match hybrid {
                        true => search::keyword(db, index, query, limit, filter)
                            .await
                            .map(Some),
                        false => Ok(None),
                    }
                };
                tokio::try_join!(sizes.is_small(db, index, filter, exact_below), words)
            };
            let (vector, lists) = tokio::join!(
                state.embed_query(project.id, &index.embedding_model, query),
                reads.run(lists)
            );
            let ((small, words), vector) = (lists?, vector?);
            let nearest = reads
                .run(|db| search::vector(db, index, &vector, limit, small, filter))
                .await?;
            let top_score = nearest.first().map(|r| r.score);
            let results = match words {
                Some(words) => search::fuse(vec![nearest, words], top_k),
                None => nearest,
            };
            (results, top_score)
        }
    };
    if highlight {
        let marks = reads.run(|db| highlight::of(db, query, &results)).await?;
        highlight::attach(&mut results, marks);
    }
    // Analytics are no reason to fail a search: a search the log could not take (the primary
    // away while a replica answers) gets an id nothing will find.
    let logged = search_log::Logged {
        index_id: index.id,
        query,
        mode,
        filter_keys: filter.keys(),
        results: results.len(),
        top_score,
    };
    let search_id = match search_log::log(&state.db, logged).await {
        Ok(id) => id,
        Err(e) => {
            tracing::warn!(error = %e, index_id = %index.id, "search not logged for analytics");
            uuid::Uuid::now_v7()
        }
    };
    Ok(Json(SearchResults { results, search_id }))
}
