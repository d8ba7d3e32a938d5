//! The feedback board.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{FeedbackStatus, FeedbackType};

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Feedback {
    pub id: Uuid,
    pub project_id: Uuid,
    pub title: String,
    pub description: Option<String>,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "type"))]
    pub kind: FeedbackType,
    pub status: FeedbackStatus,
    /// Only in the owner's views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitter_email: Option<String>,
    pub upvotes: i32,
    pub downvotes: i32,
    pub score: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Feedback {
    /// The public view: never the submitter's address.
    pub fn public(mut self) -> Self {
        self.submitter_email = None;
        self
    }
}

/// `POST /v1/feedback`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewFeedback {
    /// 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    pub title: String,
    #[serde(rename = "type")]
    pub kind: FeedbackType,
    /// At most 10,000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 10000)]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "email")]
    pub submitter_email: Option<String>,
}

/// `PATCH /v1/feedback/:id`: a status of the entry's type's set.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StatusChange {
    pub status: FeedbackStatus,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct VoteState {
    pub feedback_id: Uuid,
    pub upvotes: i32,
    pub downvotes: i32,
    pub score: i32,
    /// 1, -1, or 0 when the caller has no vote.
    pub user_vote: i32,
}
