//! Putting documents into an index: one at a time, by external id (upsert), in batches, and as
//! files. Each path turns its input into drafts (text, chunks, metadata), stores them, and queues
//! the embedding of whatever is `pending`.

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::StatusCode;
use axum::routing::{post, put};
use axum::{Json, Router};
use serde_json::Value;
use shipmate_core::error::FieldError;
use shipmate_core::error::Refusal;
use shipmate_core::queue::{EmbedJob, EMBED_STREAM};
use shipmate_core::AppError;
use shipmate_kb::content;
use shipmate_kb::documents::{
    self, ContentType, Document, DocumentStatus, DocumentVersion, Draft, NewDocument,
};
use shipmate_kb::indexes::IndexRef;
use shipmate_kb::upsert::{self, Upserted};
use shipmate_kb::{chunking, MAX_BATCH, MAX_FILE_BYTES};
use shipmate_types::common::List;
use shipmate_types::input::Input;
use shipmate_types::kb::MAX_DOCUMENT_BYTES;

use super::indexes::index_of;
use super::ingest_item::{path_external_id, sorted_ids, too_large, Item};
use super::schemas::{Deleted, DocumentList};
use crate::extract::{JsonBody, ProjectKey};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

/// A batch of 100 documents of 100 KB each, JSON-escaped, fits.
const BATCH_BODY_BYTES: usize = 24 * 1024 * 1024;
/// The file and the multipart form around it.
const FILE_BODY_BYTES: usize = MAX_FILE_BYTES + 64 * 1024;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/indexes/{index_id}/documents", post(upload))
        .route(
            "/v1/indexes/{index_id}/documents/batch",
            post(upload_batch).layer(DefaultBodyLimit::max(BATCH_BODY_BYTES)),
        )
        .route(
            "/v1/indexes/{index_id}/documents/file",
            post(upload_file).layer(DefaultBodyLimit::max(FILE_BODY_BYTES)),
        )
        .route(
            "/v1/indexes/{index_id}/documents/by-external-id/{external_id}",
            put(upsert_document).delete(remove_by_external_id),
        )
}

/// 413 when the content sent (`field`) is over 100 KB: checked before anything else is read.
fn check_size(input: &Input, field: &str, path: &str) -> ApiResult<()> {
    match input.raw(field) {
        Some(Value::String(s)) if s.len() > MAX_DOCUMENT_BYTES => {
            Err(ApiError::from(too_large(path, s.len())))
        }
        _ => Ok(()),
    }
}

/// Reads each item's text (HTML to Markdown) and chunks them all on the blocking pool (rayon
/// across a batch). A text with nothing to index is a 422 naming its field; a text grown past the
/// limit a 413.
async fn drafts(state: &AppState, index: &IndexRef, items: Vec<Item>) -> ApiResult<Vec<Draft>> {
    let embedder = state.models.embedder(&index.embedding_model)?;
    let (items, chunked) = tokio::task::spawn_blocking(move || {
        let texts: Vec<(String, ContentType)> = items
            .iter()
            .map(|i| (content::to_text(i.text.clone(), i.kind), i.kind))
            .collect();
        let hashes: Vec<String> = items
            .iter()
            .map(|i| documents::content_hash(&i.text, i.kind))
            .collect();
        let chunked = chunking::chunk_all(&texts, embedder.tokenizer(), embedder.max_tokens());
        let sizes: Vec<usize> = texts.iter().map(|(t, _)| t.len()).collect();
        let measured = chunked.into_iter().zip(sizes).zip(hashes);
        (items, measured.collect::<Vec<_>>())
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?;
    let mut errors = Vec::new();
    let mut out = Vec::with_capacity(items.len());
    for (item, ((chunks, size), content_hash)) in items.into_iter().zip(chunked) {
        if size > MAX_DOCUMENT_BYTES {
            return Err(ApiError::from(too_large(&item.path, size)));
        }
        if chunks.is_empty() {
            errors.push(FieldError {
                field: format!("{}content", item.path),
                message: "has no text to index".into(),
            });
        }
        out.push(Draft {
            metadata: item.metadata,
            external_id: item.external_id,
            chunks,
            content_hash,
            feedback_ids: item.feedback_ids,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(ApiError::from(AppError::validation(errors)))
    }
}

/// Queues the embedding of the `pending` documents. They are durable in Postgres: if Redis is
/// down, the workers' sweep still finds them.
async fn enqueue(state: &AppState, project_id: uuid::Uuid, docs: &[&Document]) {
    for doc in docs.iter().filter(|d| d.status == DocumentStatus::Pending) {
        let job = EmbedJob {
            document_id: doc.id,
            project_id,
        };
        if let Err(e) = state.queue.push(EMBED_STREAM, &job).await {
            tracing::warn!(error = %e, document_id = %doc.id, "could not queue the embedding job; the workers' sweep will pick it up");
        }
    }
}

fn item(new: NewDocument, path: String) -> Item {
    Item {
        kind: new.content_type.unwrap_or(ContentType::Markdown),
        text: new.content,
        metadata: new.metadata.unwrap_or_default(),
        external_id: new.external_id,
        feedback_ids: sorted_ids(new.feedback_ids),
        path,
    }
}

/// Uploads a document: chunks it (so `chunks_created` is real), stores it `pending`, and queues
/// its embedding. It is searchable once `status` is `ready`.
#[utoipa::path(post, path = "/v1/indexes/{index_id}/documents", tag = "knowledge base", security(("api_key" = [])),
    request_body = NewDocument,
    responses((status = 201, body = Document), (status = 404, description = "no such index"),
        (status = 409, description = "a document with this `external_id` is already in the index"),
        (status = 413, description = "content over 100 KB"), (status = 422, description = "invalid fields")))]
pub async fn upload(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<Document>)> {
    let index = index_of(&state, project.id, &index_id).await?;
    check_size(&input, "content", "")?;
    let new: NewDocument = input.parse()?;
    store_new(&state, &index, project.id, item(new, String::new())).await
}

/// Stores one new document: 201.
async fn store_new(
    state: &AppState,
    index: &IndexRef,
    project_id: uuid::Uuid,
    item: Item,
) -> ApiResult<(StatusCode, Json<Document>)> {
    let drafts = drafts(state, index, vec![item]).await?;
    let doc = documents::create(&state.db, index, drafts)
        .await?
        .pop()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("no document stored")))?;
    enqueue(state, project_id, &[&doc]).await;
    Ok((StatusCode::CREATED, Json(doc)))
}

/// Uploads 1 to 100 documents in one transaction, answered in order. Nothing is stored unless
/// every document is valid: a 422 lists each bad field as `documents[i].field`.
#[utoipa::path(post, path = "/v1/indexes/{index_id}/documents/batch", tag = "knowledge base", security(("api_key" = [])),
    request_body = shipmate_types::kb::DocumentBatch,
    responses((status = 201, body = shipmate_types::common::List<shipmate_types::kb::Document>), (status = 404, description = "no such index"),
        (status = 409, description = "an `external_id` is already in the index"),
        (status = 413, description = "a document's content over 100 KB"),
        (status = 422, description = "invalid fields, each named by its path (`documents[3].content`)")))]
pub async fn upload_batch(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<DocumentList>)> {
    let index = index_of(&state, project.id, &index_id).await?;
    let items = batch_items(input)?;
    let drafts = drafts(&state, &index, items).await?;
    let docs = documents::create(&state.db, &index, drafts).await?;
    enqueue(&state, project.id, &docs.iter().collect::<Vec<_>>()).await;
    Ok((StatusCode::CREATED, Json(List { data: docs })))
}

/// Reads a batch body: every item checked, every problem of every item in one 422.
fn batch_items(input: Input) -> ApiResult<Vec<Item>> {
    let field = |msg: &str| AppError::invalid("validation_failed", "documents", msg.to_owned());
    let list = match input.raw("documents") {
        Some(Value::Array(list)) => list.clone(),
        Some(_) => return Err(ApiError::from(field("must be an array of documents"))),
        None => return Err(ApiError::from(field("is required"))),
    };
    if list.is_empty() || list.len() > MAX_BATCH {
        return Err(ApiError::from(field(&format!(
            "must hold 1 to {MAX_BATCH} documents"
        ))));
    }
    let mut errors = Vec::new();
    let mut items = Vec::with_capacity(list.len());
    for (i, value) in list.into_iter().enumerate() {
        let path = format!("documents[{i}].");
        let Ok(doc) = Input::new(value) else {
            errors.push(FieldError {
                field: format!("documents[{i}]"),
                message: "must be an object".into(),
            });
            continue;
        };
        check_size(&doc, "content", &path)?;
        match doc.parse::<NewDocument>() {
            Ok(new) => {
                let repeats = new.external_id.as_ref().and_then(|x| {
                    items
                        .iter()
                        .position(|o: &Item| o.external_id.as_ref() == Some(x))
                });
                if let Some(first) = repeats {
                    errors.push(FieldError {
                        field: format!("{path}external_id"),
                        message: format!("repeats documents[{first}].external_id"),
                    });
                }
                items.push(item(new, path));
            }
            Err(bad) => errors.extend(bad.errors.into_iter().map(|e| FieldError {
                field: format!("{path}{}", e.field),
                message: e.message,
            })),
        }
    }
    if errors.is_empty() {
        Ok(items)
    } else {
        Err(ApiError::from(AppError::validation(errors)))
    }
}

/// Creates or replaces the document with this external id. Chunks whose text did not change keep
/// their vectors (`chunks_reused`); if all did, the document is `ready` at once. Otherwise the old
/// version stays searchable until the new one is embedded, then they swap atomically.
#[utoipa::path(put, path = "/v1/indexes/{index_id}/documents/by-external-id/{external_id}", tag = "knowledge base", security(("api_key" = [])),
    params(("index_id" = String, Path), ("external_id" = String, Path, description = "the caller's id for the document, 1 to 256 characters")),
    request_body = DocumentVersion,
    responses((status = 200, body = Document, description = "replaced"), (status = 201, body = Document, description = "created"),
        (status = 404, description = "no such index"), (status = 413, description = "content over 100 KB"),
        (status = 422, description = "invalid fields or external id")))]
pub async fn upsert_document(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path((index_id, external_id)): Path<(String, String)>,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<Document>)> {
    let index = index_of(&state, project.id, &index_id).await?;
    let external_id = path_external_id(&external_id)?;
    check_size(&input, "content", "")?;
    let version: DocumentVersion = input.parse()?;
    let new = NewDocument {
        content: version.content,
        metadata: version.metadata,
        external_id: Some(external_id),
        content_type: version.content_type,
        feedback_ids: version.feedback_ids,
    };
    store_version(&state, &index, project.id, item(new, String::new())).await
}

/// Upserts one item by its external id: 201 when created, 200 when replaced.
async fn store_version(
    state: &AppState,
    index: &IndexRef,
    project_id: uuid::Uuid,
    item: Item,
) -> ApiResult<(StatusCode, Json<Document>)> {
    let external_id = item.external_id.clone().unwrap_or_default();
    let hash = documents::content_hash(&item.text, item.kind);
    if let Some(document) = upsert::live_if_unchanged(
        &state.db,
        index,
        &external_id,
        &hash,
        &item.metadata,
        &item.feedback_ids,
    )
    .await?
    {
        return Ok((StatusCode::OK, Json(document)));
    }
    let draft = drafts(state, index, vec![item])
        .await?
        .pop()
        .ok_or_else(|| AppError::Internal(anyhow::anyhow!("no draft")))?;
    let Upserted { document, created } =
        upsert::upsert(&state.db, index, &external_id, draft).await?;
    enqueue(state, project_id, &[&document]).await;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(document)))
}

/// Deletes the document with this external id, and its chunks.
#[utoipa::path(delete, path = "/v1/indexes/{index_id}/documents/by-external-id/{external_id}", tag = "knowledge base", security(("api_key" = [])),
    params(("index_id" = String, Path), ("external_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 404, description = "no such index or document")))]
pub async fn remove_by_external_id(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path((index_id, external_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let index = index_of(&state, project.id, &index_id).await?;
    let external_id = path_external_id(&external_id)?;
    let id = documents::delete_by_external_id(&state.db, index.id, &external_id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Uploads a file (multipart, field `file`, up to 10 MB): Markdown, text, HTML or PDF, by its
/// name's extension. Optional fields: `metadata` (a JSON object, as text; it gets the file's name
/// as `filename` unless it sets one) and `external_id`, with which the upload creates or replaces
/// that document as `PUT .../by-external-id` does.
#[utoipa::path(post, path = "/v1/indexes/{index_id}/documents/file", tag = "knowledge base", security(("api_key" = [])),
    request_body(content = shipmate_types::kb::DocumentFile, content_type = "multipart/form-data"),
    responses((status = 201, body = Document, description = "created"), (status = 200, body = Document, description = "replaced (with `external_id`)"),
        (status = 404, description = "no such index"),
        (status = 413, description = "a file over 10 MB, or its text over 100 KB"),
        (status = 415, description = "a file of a type not taken (only .md, .markdown, .txt, .html, .htm, .pdf)"),
        (status = 422, description = "`no_text`: a PDF without extractable text; or invalid fields")))]
pub async fn upload_file(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path(index_id): Path<String>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> ApiResult<(StatusCode, Json<Document>)> {
    let index = index_of(&state, project.id, &index_id).await?;
    let multipart = multipart.map_err(|_| {
        AppError::client(
            Refusal::UnsupportedMediaType,
            "unsupported_media_type",
            "send the file as multipart/form-data, in the field `file`",
        )
    })?;
    let item = super::ingest_file::read(multipart).await?;
    if item.external_id.is_some() {
        store_version(&state, &index, project.id, item).await
    } else {
        store_new(&state, &index, project.id, item).await
    }
}
