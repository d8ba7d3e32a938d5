//! Imports of another analytics tool's history (`/v1/analytics/imports`).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// An import: its file waits (`pending`, with `progress`) until a worker applies it whole
/// (`done`, with the days and rows it brought) or not at all (`failed`, with `error`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AnalyticsImport {
    pub id: Uuid,
    pub project_id: Uuid,
    /// Where the file came from: `plausible`.
    pub source: String,
    /// `pending`, `done` or `failed`.
    pub status: String,
    /// With `failed`: why (nothing of the file was kept).
    pub error: Option<String>,
    /// The uploaded file's name.
    pub file_name: String,
    /// Percent applied, while `pending`.
    pub progress: i32,
    /// The first day imported (UTC), once done.
    pub from: Option<NaiveDate>,
    /// The last day imported, once done.
    pub to: Option<NaiveDate>,
    /// Daily figures kept (a day's page, source, country, ... each one row).
    pub rows: i64,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// The body of `POST /v1/analytics/imports` (multipart/form-data).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ImportFile {
    /// Plausible's export: the ZIP its "Export data" makes, or one of its CSV files
    /// (`imported_pages_20250101_20251231.csv`, ...), at most 100 MB.
    #[schema(value_type = String, format = Binary)]
    pub file: String,
}

/// `GET /v1/analytics/imports`: the project's imports, newest first.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ImportList {
    pub data: Vec<AnalyticsImport>,
}
