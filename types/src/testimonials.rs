//! Testimonials and their moderation.

use crate::input::FromInput;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{Moderation, TestimonialStatus};

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Testimonial {
    pub id: Uuid,
    pub project_id: Uuid,
    pub author_name: String,
    /// Only in the owner's views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_email: Option<String>,
    pub author_title: Option<String>,
    pub content: String,
    pub rating: i16,
    pub tweet_url: Option<String>,
    pub status: TestimonialStatus,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Testimonial {
    /// The public view: never the author's address.
    pub fn public(mut self) -> Self {
        self.author_email = None;
        self
    }
}

/// `POST /v1/testimonials` and the public form's `POST /v1/testimonials/by-project/:slug`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewTestimonial {
    #[schema(min_length = 1, max_length = 100)]
    pub author_name: String,
    #[schema(format = "email")]
    pub author_email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 100)]
    pub author_title: Option<String>,
    #[schema(min_length = 1, max_length = 5000)]
    pub content: String,
    #[schema(minimum = 1, maximum = 5)]
    pub rating: i16,
    /// An http(s) URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    #[input(http_url)]
    pub tweet_url: Option<String>,
}

/// `PATCH /v1/testimonials/:id`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct ModerationDecision {
    pub status: Moderation,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Stats {
    pub total: i64,
    pub pending: i64,
    pub approved: i64,
    pub rejected: i64,
    /// Over approved testimonials; `null` without any.
    pub average_rating: Option<f64>,
}

/// The members' list: a page of every testimonial, with the counts over all of them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TestimonialsWithStats {
    pub data: Vec<Testimonial>,
    pub page: i64,
    pub per_page: i64,
    pub total: i64,
    pub stats: Stats,
}
