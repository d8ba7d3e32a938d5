//! The shapes of list, deletion and acceptance answers, for the OpenAPI document only (handlers
//! build these with `json!`): the schema fuzzer checks every answer against them.

use serde::Serialize;
use shipmate_shared::api_keys::ApiKey;
use shipmate_shared::auth::oauth::ProviderInfo;
use shipmate_shared::changelog::Entry;
use shipmate_shared::feedback::Feedback;
use shipmate_shared::kb::documents::Document;
use shipmate_shared::kb::indexes::Index;
use shipmate_shared::kb::models::ModelInfo;
use shipmate_shared::kb::search::SearchResult;
use shipmate_shared::projects::Project;
use shipmate_shared::testimonials::{Stats, Testimonial};
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Deleted {
    pub id: uuid::Uuid,
    pub deleted: bool,
}

#[derive(Serialize, ToSchema)]
pub struct Accepted {
    pub accepted: i64,
}

#[derive(Serialize, ToSchema)]
pub struct ProjectList {
    pub data: Vec<Project>,
}

#[derive(Serialize, ToSchema)]
pub struct ApiKeyList {
    pub data: Vec<ApiKey>,
}

#[derive(Serialize, ToSchema)]
pub struct ProviderList {
    pub data: Vec<ProviderInfo>,
}

#[derive(Serialize, ToSchema)]
pub struct FeedbackList {
    pub data: Vec<Feedback>,
}

#[derive(Serialize, ToSchema)]
pub struct TestimonialList {
    pub data: Vec<Testimonial>,
}

#[derive(Serialize, ToSchema)]
pub struct TestimonialsWithStats {
    pub data: Vec<Testimonial>,
    pub stats: Stats,
}

#[derive(Serialize, ToSchema)]
pub struct EntryList {
    pub data: Vec<Entry>,
}

#[derive(Serialize, ToSchema)]
pub struct ModelList {
    pub data: Vec<ModelInfo>,
}

#[derive(Serialize, ToSchema)]
pub struct IndexList {
    pub data: Vec<Index>,
}

#[derive(Serialize, ToSchema)]
pub struct DocumentPage {
    pub data: Vec<Document>,
    pub page: i64,
    pub per_page: i64,
    pub total: i64,
}

#[derive(Serialize, ToSchema)]
pub struct SearchResults {
    pub results: Vec<SearchResult>,
}
