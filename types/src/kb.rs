//! The knowledge base: indexes, documents, search.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::DocumentStatus;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Index {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub embedding_model: String,
    pub dimensions: i32,
    pub external_id: Option<String>,
    pub document_count: i64,
    pub chunk_count: i64,
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/indexes`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewIndex {
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    /// One of `GET /v1/models`; the instance's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/indexes/:id/documents`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewDocument {
    /// Text or Markdown, at most 102,400 bytes.
    #[schema(min_length = 1)]
    pub content: String,
    /// Returned with every search result (at most 16 KB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// `POST /v1/indexes/:id/search`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchQuery {
    #[schema(min_length = 1, max_length = 2000)]
    pub query: String,
    /// 1 to 20, default 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 20)]
    pub top_k: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct SearchResult {
    pub document_id: Uuid,
    pub chunk_content: String,
    /// Cosine similarity: higher is closer.
    pub score: f64,
    #[schema(value_type = std::collections::HashMap<String, Value>)]
    pub metadata: Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchResults {
    pub results: Vec<SearchResult>,
}
