//! Insights across the project's areas: search gaps, what people search the knowledge base for and
//! do not find, next to the public feedback request that would answer it; and a request made from
//! a gap in one step (members).

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_analytics::query::ReadQuery;
use shipmate_feedback::feedback::boards::{self, Audience};
use shipmate_feedback::feedback::similar::{self, MODEL};
use shipmate_feedback::feedback::{self, Feedback, FeedbackModeration, NewFeedback, Start};
use shipmate_kb::gaps::{self, Missed};
use shipmate_outbound::notify;
use shipmate_types::common::List;
use shipmate_types::search_analytics::{GapFeedback, GapToFeedback, SearchGap};

use crate::extract::{Body, Member, ProjectAccess};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/insights/search-gaps",
            get(search_gaps),
        )
        .route(
            "/v1/projects/{project_id}/insights/search-gaps/feedback",
            post(gap_to_feedback),
        )
}

/// The period's no-result and low-confidence queries of every index of the project, queries close
/// in meaning (by the bundled local model) taken as one gap, most searched first (up to 20 per
/// index are read), each with the most similar public feedback entry (`null` when none is
/// related).
#[utoipa::path(get, path = "/v1/projects/{project_id}/insights/search-gaps", tag = "knowledge base", security(("session" = [])),
    params(("project_id" = String, Path),
        ("period" = Option<shipmate_types::analytics::Period>, Query, description = "`7d`, `30d` (default) or `90d`"),
        ("from" = Option<String>, Query, description = "first day, `YYYY-MM-DD`"), ("to" = Option<String>, Query, description = "last day, `YYYY-MM-DD`")),
    responses((status = 200, body = List<SearchGap>), (status = 403, description = "not a member (viewers neither)"), (status = 422, description = "a bad period or range")))]
pub async fn search_gaps(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<List<SearchGap>>> {
    let range = ReadQuery::parse(&q, chrono::Utc::now())?.range;
    let low = state.settings.common.kb.search_low_score;
    state.search_log.settled().await;
    let missed = gaps::missed(&state.db, project.id, range.start, range.end, low).await?;
    if missed.is_empty() {
        return Ok(Json(List { data: Vec::new() }));
    }
    let texts: Vec<String> = missed.iter().map(|m| m.query.clone()).collect();
    let vectors = state.embed_queries(project.id, MODEL, texts).await?;
    let grouped = gaps::group(missed.into_iter().zip(vectors).collect());
    let public = boards::visible(&state.db, project.id, &Audience::Public).await?;
    let on = public.listing(None)?;
    let mut data = Vec::with_capacity(grouped.len());
    for (Missed { query, searches }, vector) in grouped {
        let closest = similar::similar(&state.db, project.id, on.as_deref(), &vector).await?;
        let similar_feedback = closest.into_iter().next().map(|e| GapFeedback {
            id: e.id,
            title: e.title,
            status: e.status.to_string(),
            similarity: e.similarity,
        });
        data.push(SearchGap {
            query,
            searches,
            similar_feedback,
        });
    }
    Ok(Json(List { data }))
}

/// Makes a feedback entry of a gap: its query as the title (first letter upper case), on the
/// default board, approved and on the roadmap as a member's entries are.
#[utoipa::path(post, path = "/v1/projects/{project_id}/insights/search-gaps/feedback", tag = "knowledge base", security(("session" = [])),
    params(("project_id" = String, Path)),
    request_body = GapToFeedback,
    responses((status = 201, body = Feedback), (status = 403, description = "not a member (viewers neither)"), (status = 422, description = "an empty query or an unknown type")))]
pub async fn gap_to_feedback(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Member>,
    Body(gap): Body<GapToFeedback>,
) -> ApiResult<(StatusCode, Json<Feedback>)> {
    let visible = boards::visible(&state.db, project.id, &Audience::Team).await?;
    let start = Start {
        board_id: visible.target(None)?.id,
        moderation: FeedbackModeration::Approved,
        on_roadmap: true,
    };
    let mut title = gap.query.trim().to_owned();
    if let Some(first) = title.chars().next() {
        title.replace_range(..first.len_utf8(), &first.to_uppercase().to_string());
    }
    let new = NewFeedback {
        title,
        kind: gap.kind,
        description: None,
        submitter_email: None,
        board: None,
    };
    let mut tx = state.db.begin().await?;
    let entry = feedback::create(&mut tx, project.id, new, start).await?;
    let deliveries = notify::feedback_created(&mut tx, state.mail(), &entry).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok((StatusCode::CREATED, Json(entry)))
}
