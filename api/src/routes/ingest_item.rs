//! A document as the ingest routes read it from JSON or a file upload, before chunking, and the
//! refusals both readers share.

use crate::problem::ApiResult;
use serde_json::{Map, Value};
use shipmate_core::AppError;
use shipmate_kb::documents::ContentType;
use shipmate_types::kb::check_external_id;
use shipmate_types::kb::MAX_DOCUMENT_BYTES;

/// A document's text before chunking, and where its fields came from (for error paths).
pub(super) struct Item {
    pub text: String,
    pub kind: ContentType,
    pub metadata: Map<String, Value>,
    pub external_id: Option<String>,
    /// The feedback entries the document is about, sorted.
    pub feedback_ids: Vec<uuid::Uuid>,
    /// The prefix of the item's field names in errors: `""`, or `documents[3].` in a batch.
    pub path: String,
}

/// 413 when a document's content is over 100 KB.
pub(super) fn too_large(path: &str, bytes: usize) -> AppError {
    AppError::payload_too_large(format!(
        "{path}content is {bytes} bytes; the limit is {MAX_DOCUMENT_BYTES}"
    ))
}

pub(super) fn path_external_id(raw: &str) -> ApiResult<String> {
    Ok(check_external_id(raw)
        .map_err(|m| AppError::invalid("validation_failed", "external_id", m))?)
}

/// The feedback entries named, each once, sorted (as documents list them).
pub(super) fn sorted_ids(ids: Option<Vec<uuid::Uuid>>) -> Vec<uuid::Uuid> {
    let mut ids = ids.unwrap_or_default();
    ids.sort();
    ids.dedup();
    ids
}
