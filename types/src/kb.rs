//! The knowledge base: indexes, documents, search.

use crate::changelog::feedback_ids;
use crate::input::{FromInput, Input};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{ContentType, DocumentStatus, SearchMode};

/// A document's metadata: an object of at most 16 KB.
fn metadata(input: &mut Input, field: &str) -> Option<Map<String, Value>> {
    input.opt_object(field, 16_384)
}

/// Largest document content accepted, in bytes (the spec's 100 KB); for files and HTML, of the
/// text taken from them.
pub const MAX_DOCUMENT_BYTES: usize = 102_400;

/// Longest external id, in characters.
pub const MAX_EXTERNAL_ID: usize = 256;

/// An optional external id: a string of 1 to 256 characters (an empty one is refused, not taken
/// as absent: it would name no document).
fn external_id(input: &mut Input, field: &str) -> Option<String> {
    match input.raw(field)? {
        Value::String(s) => match check_external_id(s) {
            Ok(id) => Some(id),
            Err(message) => {
                input.error(field, message);
                None
            }
        },
        _ => {
            input.error(field, "must be a string");
            None
        }
    }
}

/// An external id as given in a path or body: trimmed, 1 to 256 characters.
pub fn check_external_id(s: &str) -> Result<String, String> {
    let s = s.trim();
    match s.chars().count() {
        0 => Err("must not be empty".into()),
        n if n > MAX_EXTERNAL_ID => Err(format!("must be at most {MAX_EXTERNAL_ID} characters")),
        _ if s.contains('\0') => Err("must not contain the NUL character".into()),
        _ => Ok(s.to_owned()),
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Index {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub embedding_model: String,
    pub dimensions: i32,
    pub external_id: Option<String>,
    /// Every document, whatever its status: a bulk load's total.
    pub document_count: i64,
    /// Documents searchable now (`ready`): with `document_count`, a load's progress.
    pub documents_ready: i64,
    /// Documents waiting to be embedded.
    pub documents_pending: i64,
    /// Documents whose embedding failed for good (their `error` says why).
    pub documents_failed: i64,
    pub chunk_count: i64,
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/indexes`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewIndex {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    /// One of `GET /v1/models`; the instance's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub embedding_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub external_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ModelInfo {
    pub id: String,
    pub dimensions: usize,
    pub description: String,
    /// Whether this instance can embed with it now.
    pub available: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Document {
    pub id: Uuid,
    pub index_id: Uuid,
    pub chunks_created: i32,
    pub status: DocumentStatus,
    /// Why embedding failed; only when `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[schema(value_type = std::collections::HashMap<String, Value>)]
    pub metadata: Value,
    /// The caller's own id for the document (unique in the index), or null.
    pub external_id: Option<String>,
    /// Feedback entries of the project the document is about: search results and answers'
    /// citations of its chunks carry their live title, status and score (`feedback`).
    pub feedback_ids: Vec<Uuid>,
    /// Only in the answer of `PUT .../documents/by-external-id/:externalId`: how many chunks kept
    /// their vectors because their text did not change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(default))]
    pub chunks_reused: Option<i32>,
    pub created_at: DateTime<Utc>,
}

// The content's byte limit is checked first by the caller (413, not 422).
/// `POST /v1/indexes/:id/documents`, and each item of a batch.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewDocument {
    /// The text, at most 102,400 bytes (after HTML is reduced to its visible text).
    #[schema(min_length = 1)]
    #[input(max = MAX_DOCUMENT_BYTES)]
    pub content: String,
    /// Returned with every search result, and matched by search filters (at most 16 KB). A
    /// `language` (or `lang`) key naming a language, e.g. `"de"` or `"german"`, sets how keyword
    /// search stems the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = metadata)]
    pub metadata: Option<Map<String, Value>>,
    /// The caller's own id for the document, 1 to 256 characters, unique in the index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 256)]
    #[input(with = external_id)]
    pub external_id: Option<String>,
    /// `text/markdown` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<ContentType>,
    /// Up to 20 feedback entries of the same project the document is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = feedback_ids)]
    pub feedback_ids: Option<Vec<Uuid>>,
}

/// `PUT /v1/indexes/:id/documents/by-external-id/:externalId`: the document's new version.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct DocumentVersion {
    #[schema(min_length = 1)]
    #[input(max = MAX_DOCUMENT_BYTES)]
    pub content: String,
    /// Replaces the old metadata whole (`{}` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = metadata)]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<ContentType>,
    /// Replaces the linked feedback entries whole (none when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = feedback_ids)]
    pub feedback_ids: Option<Vec<Uuid>>,
}

/// `POST /v1/indexes/:id/documents/batch`: 1 to 100 documents, stored all or none.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DocumentBatch {
    #[schema(min_items = 1, max_items = 100)]
    pub documents: Vec<NewDocument>,
}

/// `POST /v1/indexes/:id/documents/file` (multipart/form-data).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DocumentFile {
    /// `.md`, `.markdown`, `.txt`, `.html`, `.htm` or `.pdf`, at most 10 MB; the text taken from it
    /// at most 102,400 bytes.
    #[schema(value_type = String, format = Binary)]
    pub file: String,
    /// A JSON object, as text. The document's metadata gets the file's name as `filename` unless
    /// this sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 256)]
    pub external_id: Option<String>,
    /// Feedback entries of the same project the document is about: ids separated by commas, or a
    /// JSON array of them (at most 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_ids: Option<String>,
}

/// `POST /v1/indexes/:id/search`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct SearchQuery {
    #[schema(min_length = 1, max_length = 2000)]
    pub query: String,
    /// 1 to 20, default 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 20)]
    pub top_k: Option<i64>,
    /// `vector` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
    /// Only chunks of documents whose metadata has, for every key, that value (or one of the
    /// listed values). Values are strings, numbers, booleans or null, or lists of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<std::collections::HashMap<String, Value>>)]
    #[input(with = filter)]
    pub filter: Option<Map<String, Value>>,
    /// Add `highlights` to each result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub highlight: Option<bool>,
    /// In `keyword` and `hybrid` modes, also find the words of the index within one edit of a
    /// query word of five or more letters (two edits from nine) that the index does not hold.
    /// On unless `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typo_tolerance: Option<bool>,
}

/// At most this many keys in a search filter, and this many values for one key: a filter is a
/// condition, not a list of documents.
pub const MAX_FILTER_KEYS: usize = 16;
pub const MAX_FILTER_VALUES: usize = 100;

/// A search filter, one problem per bad key (`filter.<key>`): values must be strings, numbers,
/// booleans or null, or non-empty lists of them.
fn filter(input: &mut Input, field: &str) -> Option<Map<String, Value>> {
    let object = match input.raw(field)? {
        Value::Object(m) => m.clone(),
        _ => {
            input.error(field, "must be an object of metadata keys to values");
            return None;
        }
    };
    if object.len() > MAX_FILTER_KEYS {
        input.error(field, format!("must have at most {MAX_FILTER_KEYS} keys"));
        return None;
    }
    for (key, value) in &object {
        let path = format!("{field}.{key}");
        let values = match value {
            Value::Array(items) => items.as_slice(),
            v => std::slice::from_ref(v),
        };
        if values.is_empty() {
            input.error(&path, "must list at least one value");
        } else if values.len() > MAX_FILTER_VALUES {
            input.error(
                &path,
                format!("must list at most {MAX_FILTER_VALUES} values"),
            );
        } else if values.iter().any(|v| v.is_object() || v.is_array()) {
            input.error(
                &path,
                "must be a string, number, boolean or null, or a list of them (objects and nested lists are not allowed)",
            );
        }
    }
    Some(object)
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct SearchResult {
    pub document_id: Uuid,
    pub chunk_content: String,
    /// The chunk's place in its document, from 0.
    pub chunk_index: i32,
    /// Higher is closer. `vector`: cosine similarity; `keyword`: PostgreSQL's `ts_rank_cd`;
    /// `hybrid`: the reciprocal rank fusion score (sum of 1 / (60 + rank) over both lists).
    pub score: f64,
    #[schema(value_type = std::collections::HashMap<String, Value>)]
    pub metadata: Value,
    /// With `"highlight": true`: the chunk's passages that hold the query's words, those words
    /// in `<mark>`, everything else HTML-escaped (empty when no word occurs, as in a search by
    /// meaning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub highlights: Option<Vec<String>>,
    /// The feedback entries the chunk's document is about (`feedback_ids`), as they are now;
    /// absent when it names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub feedback: Option<Vec<LinkedFeedback>>,
}

/// A feedback entry a document is about, as it is now. A publishable key sees entries of public
/// boards only.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct LinkedFeedback {
    pub id: Uuid,
    pub title: String,
    pub status: String,
    /// Upvotes minus downvotes.
    pub score: i64,
}

/// One chunk of a document's newest version, in order (`GET .../documents/:id/chunks`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Chunk {
    /// The chunk's place in its document, from 0 (as search results give it).
    pub chunk_index: i32,
    pub content: String,
    /// Whether it has its vector (unchanged chunks of an upsert keep theirs); a version is
    /// searchable once all of its chunks have one.
    pub ready: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchResults {
    pub results: Vec<SearchResult>,
    /// The search as logged for the index's analytics: report clicks on its results with it.
    pub search_id: Uuid,
}

/// `POST /v1/indexes/:id/answer`: a question answered from the index's best chunks.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct AnswerQuery {
    #[schema(min_length = 1, max_length = 2000)]
    pub question: String,
    /// How many chunks the model reads: 1 to 20, default 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 20)]
    pub top_k: Option<i64>,
    /// How the chunks are found: `hybrid` when absent (meaning and words together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SearchMode>,
    /// As in a search: only chunks of documents whose metadata matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<std::collections::HashMap<String, Value>>)]
    #[input(with = filter)]
    pub filter: Option<Map<String, Value>>,
}

/// A chunk the answer cites.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Citation {
    pub document_id: Uuid,
    /// The chunk's place in its document, from 0.
    pub chunk_index: i32,
    pub chunk_content: String,
    #[schema(value_type = std::collections::HashMap<String, Value>)]
    pub metadata: Value,
    /// As in search results: the feedback entries the document is about, as they are now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<Vec<LinkedFeedback>>,
}

/// The model's answer and the chunks it cites (`[n]` in the text is the n-th chunk it was
/// given), in the order first cited.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Answer {
    pub answer: String,
    pub citations: Vec<Citation>,
    /// The retrieval, logged in the index's search analytics.
    pub search_id: Uuid,
}

/// A piece of a streamed answer (`event: delta` of `POST .../answer` with
/// `Accept: text/event-stream`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AnswerDelta {
    pub text: String,
}
