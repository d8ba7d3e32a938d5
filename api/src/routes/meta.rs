//! Health, readiness, the OpenAPI document and the human-readable reference.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use utoipa::OpenApi;

use super::ApiDoc;
use crate::state::AppState;

pub fn api_router() -> Router<AppState> {
    Router::new().route("/v1/openapi.json", get(openapi))
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/healthz",
            get(|| async { Json(json!({ "status": "ok" })) }),
        )
        .route("/readyz", get(ready))
        .route("/docs", get(docs))
        .route("/docs.js", get(docs_js))
}

pub async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// Ready when Postgres and Redis answer; 503 naming the failing dependency otherwise.
async fn ready(State(state): State<AppState>) -> Response {
    let db = sqlx::query_scalar::<_, i32>("select 1")
        .fetch_one(&state.db)
        .await
        .is_ok();
    let redis = state.queue.ping().await;
    let status = if db && redis {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(json!({ "postgres": db, "redis": redis }))).into_response()
}

/// The API reference, rendered in the browser from `/v1/openapi.json` with no external assets.
async fn docs() -> Html<&'static str> {
    Html(include_str!("../../assets/docs.html"))
}

async fn docs_js() -> impl IntoResponse {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/javascript; charset=utf-8",
        )],
        include_str!("../../assets/docs.js"),
    )
}
