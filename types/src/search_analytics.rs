//! What people search a knowledge base for, and what they find: clicks reported on results and
//! the per-index analytics read (anchor: Trieve's search analytics).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::analytics::Period;
use crate::input::FromInput;

/// `POST /v1/indexes/:indexId/searches/:searchId/click`: a result the searcher opened.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct SearchClick {
    /// The result's document.
    pub document_id: Uuid,
    /// The result's rank in the answer, from 1.
    #[schema(minimum = 1, maximum = 100)]
    pub position: i32,
}

/// A query as analytics groups it: by its text in lowercase with runs of spaces as one.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TopQuery {
    pub query: String,
    pub count: i64,
    /// The mean of the searches' top similarity (`vector` and `hybrid` searches; `null` when
    /// every search of it was `keyword`).
    pub avg_top_score: Option<f64>,
    /// Its searches with at least one click.
    pub clicks: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QueryCount {
    pub query: String,
    pub count: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LowConfidenceQuery {
    pub query: String,
    pub count: i64,
    pub avg_top_score: f64,
}

/// `GET /v1/indexes/:indexId/analytics`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchAnalytics {
    pub period: Period,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub searches: i64,
    /// Searches with no result over all searches, 0 to 1.
    pub no_result_rate: f64,
    /// Searches with at least one click over all searches, 0 to 1.
    pub click_through_rate: f64,
    /// The 20 most searched queries.
    pub top_queries: Vec<TopQuery>,
    /// The 20 most searched queries that found nothing.
    pub no_result_queries: Vec<QueryCount>,
    /// The 20 most searched queries whose mean top similarity is under the low-score threshold
    /// (`SHIPMATE_SEARCH_LOW_SCORE`, default 0.3).
    pub low_confidence_queries: Vec<LowConfidenceQuery>,
}

/// A click as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ClickRecorded {
    pub search_id: Uuid,
    pub document_id: Uuid,
    pub position: i32,
}

/// A search gap: what people searched for across the project's indexes and did not find (no
/// result, or a low-confidence one), with the public feedback entry closest to it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchGap {
    /// The most searched spelling of the group (queries close in meaning are one gap).
    pub query: String,
    /// Searches of the group that found nothing, or found only low-confidence results.
    pub searches: i64,
    pub similar_feedback: Option<GapFeedback>,
}

/// The public feedback entry most similar to a gap (by the bundled local model).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GapFeedback {
    pub id: Uuid,
    pub title: String,
    pub status: String,
    /// Cosine similarity, 0 to 1.
    pub similarity: f64,
}

/// `POST /v1/projects/:projectId/insights/search-gaps/feedback`: a feedback entry made from a gap.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct GapToFeedback {
    /// The gap's query: the entry's title (its first letter made upper case).
    #[schema(min_length = 1, max_length = 200)]
    pub query: String,
    #[serde(rename = "type")]
    pub kind: crate::FeedbackType,
}
