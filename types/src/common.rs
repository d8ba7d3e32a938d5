//! Shapes shared by every part of the API: the error body, deletions, acceptances.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A field-level validation message, as listed in the problem body's `errors`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, ToSchema)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// The RFC 9457 problem body of every error.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// A stable machine code: `validation_failed`, `not_found`, `conflict`...
    pub code: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Deleted {
    pub id: Uuid,
    pub deleted: bool,
}

impl Deleted {
    pub fn new(id: Uuid) -> Self {
        Deleted { id, deleted: true }
    }
}

/// How many analytics events were queued.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Accepted {
    pub accepted: i64,
}

/// A request taken for later (an email that may or may not go out): always `true`, so the answer
/// tells nobody whether an address is known.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Queued {
    pub accepted: bool,
}

impl Queued {
    pub const YES: Queued = Queued { accepted: true };
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Link {
    pub url: String,
}

/// A one-page list (`{"data": [...]}`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct List<T> {
    pub data: Vec<T>,
}

impl<T> From<Vec<T>> for List<T> {
    fn from(data: Vec<T>) -> Self {
        List { data }
    }
}

/// A page of a longer list.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub page: i64,
    pub per_page: i64,
    pub total: i64,
}
