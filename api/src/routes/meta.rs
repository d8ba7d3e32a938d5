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
        .route("/sdk/sm.js", get(script))
        .route("/sdk/sm.plus.js", get(script_plus))
        .route("/sdk/widgets.js", get(widgets))
}

pub async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// Every configured dependency: ready (200) when the primary and the Redis that takes events
/// (the cluster when set) answer; 503 otherwise. ClickHouse or a replica down keeps it ready:
/// events are still accepted and wait in the queue, reads fall back to the primary.
async fn ready(State(state): State<AppState>) -> Response {
    let db = sqlx::query_scalar!("select 1 as one")
        .fetch_one(&state.db)
        .await
        .is_ok();
    let (redis, streams, redis_cluster, clickhouse) = tokio::join!(
        state.queue.ping(),
        state.queue.streams_ok(),
        state.queue.cluster_ok(),
        state.events.reachable()
    );
    let (healthy, configured) = state.replicas.counts();
    let status = if db && redis && streams {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = json!({
        "postgres": db,
        "redis": redis,
        "replicas": {"healthy": healthy, "configured": configured},
        "clickhouse": clickhouse,
        "redis_cluster": redis_cluster,
    });
    (status, Json(body)).into_response()
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

const SCRIPT: &str = include_str!("../../../sdk/script/sm.js");
/// `sm.js` and what `data-track` adds (outbound links, downloads, 404 pages, engagement), one file.
const SCRIPT_PLUS: &str = concat!(
    include_str!("../../../sdk/script/sm.js"),
    include_str!("../../../sdk/script/plus.js")
);
const WIDGETS: &str = include_str!("../../../sdk/script/widgets.js");

/// The browser analytics script: cached for a day, revalidated by its content hash.
async fn script(headers: axum::http::HeaderMap) -> Response {
    static ETAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    cached_script(&headers, SCRIPT, &ETAG)
}

/// The analytics script with automatic tracking, cached the same way.
async fn script_plus(headers: axum::http::HeaderMap) -> Response {
    static ETAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    cached_script(&headers, SCRIPT_PLUS, &ETAG)
}

/// The embeddable widgets (feedback, changelog, testimonials), cached like the analytics script.
async fn widgets(headers: axum::http::HeaderMap) -> Response {
    static ETAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    cached_script(&headers, WIDGETS, &ETAG)
}

/// A script for customers' pages: cached for a day, revalidated by its content hash (a 304 when
/// the browser's copy is current), loadable from any origin.
fn cached_script(
    headers: &axum::http::HeaderMap,
    body: &'static str,
    etag: &'static std::sync::OnceLock<String>,
) -> Response {
    use axum::http::header;
    let etag = etag.get_or_init(|| {
        use sha2::Digest;
        format!("\"{}\"", hex_prefix(&sha2::Sha256::digest(body.as_bytes())))
    });
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        == Some(etag.as_str())
    {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag.clone())]).into_response();
    }
    (
        [
            (
                header::CONTENT_TYPE,
                "text/javascript; charset=utf-8".to_owned(),
            ),
            (
                header::CACHE_CONTROL,
                "public, max-age=86400, stale-while-revalidate=604800".to_owned(),
            ),
            (header::ETAG, etag.clone()),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".to_owned()),
        ],
        body,
    )
        .into_response()
}

fn hex_prefix(bytes: &[u8]) -> String {
    bytes.iter().take(12).map(|b| format!("{b:02x}")).collect()
}
