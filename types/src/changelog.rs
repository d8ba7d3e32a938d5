//! The changelog.

use crate::input::{FromInput, Input};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::ChangelogType;

/// The longest an entry's Markdown may be, in characters (the dashboard's preview takes as much).
pub const MAX_CONTENT: usize = 100_000;

/// When sent: the ids of feedback entries, each once.
pub(crate) fn feedback_ids(input: &mut Input, field: &str) -> Option<Vec<Uuid>> {
    input.present(field, |i| {
        let ids = i.string_list(
            field,
            false,
            |s| Uuid::parse_str(s).is_ok(),
            "must be ids of feedback entries",
        );
        Some(ids.iter().filter_map(|s| Uuid::parse_str(s).ok()).collect())
    })
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Entry {
    pub id: Uuid,
    pub project_id: Uuid,
    pub title: String,
    /// Markdown.
    pub content: String,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "type"))]
    pub kind: ChangelogType,
    pub published: bool,
    /// `null` while a draft.
    pub published_at: Option<DateTime<Utc>>,
    /// The feedback entries this change answers; publishing ships them.
    pub feedback_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `POST /v1/projects/:id/changelog`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewEntry {
    #[schema(min_length = 1, max_length = 200)]
    pub title: String,
    /// Markdown, at most 100,000 characters.
    #[schema(min_length = 1, max_length = 100000)]
    pub content: String,
    #[serde(rename = "type")]
    pub kind: ChangelogType,
    /// Publish at once (default false: a draft).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
    /// Feedback entries of the same project that this change answers (at most 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = feedback_ids)]
    pub feedback_ids: Option<Vec<Uuid>>,
}

// A field that is present must be valid; an empty title or content is not a change but an error.
/// `PATCH /v1/changelog/:id`: any of the fields.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct EntryChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200)]
    #[input(present)]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 100000)]
    #[input(present)]
    pub content: Option<String>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ChangelogType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<bool>,
    /// Replaces the linked feedback entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = feedback_ids)]
    pub feedback_ids: Option<Vec<Uuid>>,
}

impl From<NewEntry> for EntryChanges {
    fn from(n: NewEntry) -> Self {
        EntryChanges {
            title: Some(n.title),
            content: Some(n.content),
            kind: Some(n.kind),
            published: n.published,
            feedback_ids: n.feedback_ids,
        }
    }
}

// Trimmed, as an entry's content is when it is saved, so the preview shows what will be published.
/// `POST /v1/markdown/preview`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct MarkdownPreview {
    /// Markdown, 1 to 100,000 characters after trimming: the rule of a changelog entry's content.
    #[schema(min_length = 1, max_length = 100000)]
    pub markdown: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RenderedMarkdown {
    /// Sanitised HTML, as the public changelog page would show the same Markdown.
    pub html: String,
}
