//! Search analytics: clicks reported on a search's results (any key that may search), and the
//! index's read for the team (the secret key, or a member's session with `X-Project-Id`).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_analytics::query::ReadQuery;
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_kb::search_log::{self, ClickRecorded, SearchAnalytics, SearchClick};
use shipmate_kb::search_stats;

use super::indexes::index_of;
use crate::extract::{Body, ProjectKey};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/indexes/{index_id}/searches/{search_id}/click",
            post(click),
        )
        .route("/v1/indexes/{index_id}/analytics", get(analytics))
}

/// Reports that a search's result was opened (a document once per search; repeats change nothing).
#[utoipa::path(post, path = "/v1/indexes/{index_id}/searches/{search_id}/click", tag = "knowledge base", security(("api_key" = [])),
    params(("index_id" = String, Path), ("search_id" = String, Path, description = "`search_id` of the search's answer")),
    request_body = SearchClick,
    responses((status = 200, body = ClickRecorded), (status = 404, description = "no such index, or no such search of it"), (status = 422, description = "invalid fields")))]
pub async fn click(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Path((index_id, search_id)): Path<(String, String)>,
    Body(c): Body<SearchClick>,
) -> ApiResult<Json<ClickRecorded>> {
    let index = index_of(&state, project.id, &index_id).await?;
    let search_id = parse_id(&search_id, "search")?;
    // The search may still be on its way to the log.
    state.search_log.settled().await;
    search_log::click(&state.db, index.id, search_id, &c).await?;
    Ok(Json(ClickRecorded {
        search_id,
        document_id: c.document_id,
        position: c.position,
    }))
}

/// What the index was searched for: searches, the no-result and click-through rates, and the top,
/// no-result and low-confidence queries (up to 20 each), over `period` or `from`-`to` (UTC days).
#[utoipa::path(get, path = "/v1/indexes/{index_id}/analytics", tag = "knowledge base", security(("api_key" = [])),
    params(("index_id" = String, Path),
        ("period" = Option<shipmate_types::analytics::Period>, Query, description = "`7d`, `30d` (default) or `90d`"),
        ("from" = Option<String>, Query, description = "first day, `YYYY-MM-DD`"), ("to" = Option<String>, Query, description = "last day, `YYYY-MM-DD`")),
    responses((status = 200, body = SearchAnalytics), (status = 403, description = "a public key"), (status = 404, description = "no such index"), (status = 422, description = "a bad period or range")))]
pub async fn analytics(
    State(state): State<AppState>,
    ProjectKey {
        project,
        public_client,
    }: ProjectKey,
    Path(index_id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<SearchAnalytics>> {
    if public_client.is_some() {
        return Err(ApiError::from(AppError::forbidden(
            "search analytics are the team's: use the secret key or a member's session",
        )));
    }
    let index = index_of(&state, project.id, &index_id).await?;
    let range = ReadQuery::parse(&q, chrono::Utc::now())?.range;
    let low = state.settings.common.kb.search_low_score;
    state.search_log.settled().await;
    let r = search_stats::read(&state.db, index.id, range.start, range.end, low).await?;
    Ok(Json(SearchAnalytics {
        period: range.period,
        from: range.start,
        to: range.end,
        searches: r.searches,
        no_result_rate: r.no_result_rate,
        click_through_rate: r.click_through_rate,
        top_queries: r.top_queries,
        no_result_queries: r.no_result_queries,
        low_confidence_queries: r.low_confidence_queries,
    }))
}
