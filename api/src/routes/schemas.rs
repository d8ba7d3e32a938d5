//! The shapes of list, deletion and acceptance answers, for the OpenAPI document only (handlers
//! build these with `json!`): the schema fuzzer checks every answer against them.

use serde::Serialize;
use shipmate_shared::api_keys::ApiKey;
use shipmate_shared::auth::admin::Account;
use shipmate_shared::auth::oauth::ProviderInfo;
use shipmate_shared::auth::sessions::SessionInfo;
use shipmate_shared::auth::{Registration, User};
use shipmate_shared::changelog::Entry;
use shipmate_shared::feedback::Feedback;
use shipmate_shared::kb::documents::Document;
use shipmate_shared::kb::indexes::Index;
use shipmate_shared::kb::models::ModelInfo;
use shipmate_shared::kb::search::SearchResult;
use shipmate_shared::projects::ProjectView;
use shipmate_shared::teams::invites::Invite;
use shipmate_shared::teams::members::Member;
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
    pub data: Vec<ProjectView>,
}

#[derive(Serialize, ToSchema)]
pub struct ApiKeyList {
    pub data: Vec<ApiKey>,
}

#[derive(Serialize, ToSchema)]
pub struct ProviderList {
    /// Email and password first, then every configured identity provider.
    pub data: Vec<ProviderInfo>,
    /// Who may create an account here.
    pub registration: Registration,
    /// True until the first account exists (made through the setup link on the server's log).
    pub setup_required: bool,
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

/// A session token and its user: the answer of every sign-in.
#[derive(Serialize, ToSchema)]
pub struct SignedIn {
    pub token: String,
    pub user: User,
    /// With `cli_callback`: the loopback URL (with `token` and `state`) to hand the session to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct SessionList {
    pub data: Vec<SessionInfo>,
}

#[derive(Serialize, ToSchema)]
pub struct MemberList {
    pub data: Vec<Member>,
}

#[derive(Serialize, ToSchema)]
pub struct InviteList {
    pub data: Vec<Invite>,
}

#[derive(Serialize, ToSchema)]
pub struct AccountList {
    pub data: Vec<Account>,
}

#[derive(Serialize, ToSchema)]
pub struct Link {
    pub url: String,
}
