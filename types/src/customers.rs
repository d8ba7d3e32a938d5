//! The customer value behind feedback: the end user's company (from the identify token), how much
//! a vote matters, and what members see of it per entry.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::input::FromInput;
use crate::Importance;

/// A customer's company, as its identify token describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Company {
    /// The customer's own id for the company.
    pub id: String,
    pub name: String,
    /// Monthly recurring revenue, in the customer's currency.
    pub mrr: Option<f64>,
    pub plan: Option<String>,
}

/// Votes per importance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ImportanceCounts {
    pub nice_to_have: i32,
    pub important: i32,
    pub must_have: i32,
}

/// `POST /v1/feedback/:id/upvote` (the body may be left out: `nice_to_have`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct VoteRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub importance: Option<Importance>,
}

/// `GET /v1/feedback/:id/voters`: one upvoter.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Voter {
    pub name: String,
    pub email: Option<String>,
    pub company: Option<Company>,
    pub importance: Importance,
    pub voted_at: DateTime<Utc>,
}
