//! Testimonials: collection (API key or the public form), the approved list, moderation (owner).

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use shipmate_accounts::projects;
use shipmate_core::params::{parse_id, Paging};
use shipmate_feedback::testimonials::{
    self, ModerationDecision, NewTestimonial, Testimonial, TestimonialStatus,
};
use shipmate_outbound::notify;
use shipmate_types::common::Page;

use super::schemas::{Deleted, TestimonialsWithStats};
use crate::extract::{Body, JsonBody, Member, ProjectAccess, ProjectKey, Viewer};
use crate::problem::ApiResult;
use crate::read_your_writes::ReadDb;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/testimonials", post(create).get(list_approved))
        .route("/v1/testimonials/by-project/{slug}", post(create_public))
        .route("/v1/testimonials/all", get(list_all))
        .route("/v1/testimonials/{id}", patch(moderate).delete(remove))
}

/// Collects a testimonial (status `pending`).
#[utoipa::path(post, path = "/v1/testimonials", tag = "testimonials", security(("api_key" = [])),
    request_body = NewTestimonial,
    responses((status = 201, body = Testimonial), (status = 401, description = "bad API key"), (status = 422, description = "invalid fields")))]
pub async fn create(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Body(new): Body<NewTestimonial>,
) -> ApiResult<(StatusCode, Json<Testimonial>)> {
    let created = store(&state, project.id, new).await?;
    // The key is public by nature (it sits in customers' pages): addresses are for the owner's views only.
    Ok((StatusCode::CREATED, Json(created.public())))
}

/// Stores a testimonial with its event and notifications, then queues them.
async fn store(
    state: &AppState,
    project_id: uuid::Uuid,
    new: NewTestimonial,
) -> ApiResult<Testimonial> {
    let mut tx = state.db.begin().await?;
    let created = testimonials::create(&mut tx, project_id, new).await?;
    let deliveries = notify::testimonial_created(&mut tx, state.mail(), &created).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok(created)
}

/// The public form's submission, without a key: rate-limited per IP, with a honeypot field.
#[utoipa::path(post, path = "/v1/testimonials/by-project/{slug}", tag = "testimonials",
    request_body = NewTestimonial,
    responses((status = 201, body = Testimonial), (status = 404, description = "unknown slug"), (status = 422, description = "invalid fields"), (status = 429, description = "too many submissions")))]
pub async fn create_public(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(slug): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<Testimonial>)> {
    let project = projects::by_slug(&state.db, &slug).await?;
    let bot = crate::limits::honeypot_tripped(&input);
    let new: NewTestimonial = input.parse()?;
    // Counted per address and form, after validation: a flood at one form is stopped, while a
    // person fixing typos (or an office behind one address using several forms) is not.
    let client = crate::limits::bucket(state.client_ip(peer, &headers));
    state.limits.write(client, project.id).await?;
    if bot {
        // Answer as if accepted, so the bot learns nothing; keep nothing.
        tracing::info!(project_id = %project.id, "testimonial honeypot tripped; dropped");
        let now = chrono::Utc::now();
        let fake = Testimonial {
            id: uuid::Uuid::now_v7(),
            project_id: project.id,
            author_name: new.author_name,
            author_email: None,
            author_title: new.author_title,
            content: new.content,
            rating: new.rating,
            tweet_url: new.tweet_url,
            status: TestimonialStatus::Pending,
            created_at: now,
            updated_at: now,
        };
        return Ok((StatusCode::CREATED, Json(fake)));
    }
    let created = store(&state, project.id, new).await?;
    Ok((StatusCode::CREATED, Json(created.public())))
}

/// Approved testimonials only, for the project's site.
#[utoipa::path(get, path = "/v1/testimonials", tag = "testimonials", security(("api_key" = [])),
    params(("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query, description = "1 to 100, default 50")),
    responses((status = 200, body = shipmate_types::common::Page<shipmate_types::testimonials::Testimonial>), (status = 401, description = "bad API key")))]
pub async fn list_approved(
    ReadDb(reads): ReadDb,
    ProjectKey { project, .. }: ProjectKey,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Page<Testimonial>>> {
    let paging = Paging::parse(&q)?;
    let (data, total) = reads
        .run(|db| testimonials::list(db, project.id, true, paging))
        .await?;
    let data = data.into_iter().map(Testimonial::public).collect();
    Ok(Json(paging.wrap(data, total)))
}

/// Every testimonial with stats (viewers and up).
#[utoipa::path(get, path = "/v1/testimonials/all", tag = "testimonials", security(("session" = [])),
    params(("project_id" = String, Query), ("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query, description = "1 to 100, default 50")),
    responses((status = 200, body = TestimonialsWithStats), (status = 403, description = "without the role needed")))]
pub async fn list_all(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Viewer>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<TestimonialsWithStats>> {
    let paging = Paging::parse(&q)?;
    let (data, total) = testimonials::list(&state.db, project.id, false, paging).await?;
    let stats = testimonials::stats(&state.db, project.id).await?;
    Ok(Json(TestimonialsWithStats {
        data,
        page: paging.page,
        per_page: paging.per_page,
        total,
        stats,
    }))
}

/// Approves or rejects (from any state).
#[utoipa::path(patch, path = "/v1/testimonials/{id}", tag = "testimonials", security(("session" = [])),
    params(("id" = String, Path), ("project_id" = String, Query)),
    request_body = ModerationDecision,
    responses((status = 200, body = Testimonial), (status = 403, description = "without the role needed"), (status = 404, description = "no such testimonial"), (status = 422, description = "invalid status")))]
pub async fn moderate(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Path(id): Path<String>,
    Body(ModerationDecision { status }): Body<ModerationDecision>,
) -> ApiResult<Json<Testimonial>> {
    let id = parse_id(&id, "testimonial")?;
    let mut tx = state.db.begin().await?;
    let (t, previous) = testimonials::set_status(&mut tx, project.id, id, status.into()).await?;
    let deliveries = notify::testimonial_moderated(&mut tx, &t, previous).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok(Json(t))
}

#[utoipa::path(delete, path = "/v1/testimonials/{id}", tag = "testimonials", security(("session" = [])),
    params(("id" = String, Path), ("project_id" = String, Query)),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "no such testimonial")))]
pub async fn remove(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Path(id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&id, "testimonial")?;
    testimonials::delete(&state.db, project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}
