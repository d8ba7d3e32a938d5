//! Logging with one span per request carrying its request id, and shutdown on signals.

use std::io::IsTerminal;

use axum::http::{HeaderName, Request};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tracing_subscriber::EnvFilter;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub fn init() {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        // Colour codes only for a person at a terminal: a log file or journal would keep them raw.
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}

/// The span of one request: its request id (kept from `x-request-id`, else a new UUID), method and
/// path, and the project once an extractor has found it (`record_project`); never headers, which
/// carry keys and tokens.
pub fn request_span(req: &Request<axum::body::Body>) -> tracing::Span {
    let id = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.uri().path(),
        project_id = tracing::field::Empty,
    )
}

/// Names the tenant on the request's span, so every line logged for the request carries it.
pub fn record_project(id: uuid::Uuid) {
    tracing::Span::current().record("project_id", tracing::field::display(id));
}

pub fn set_request_id() -> SetRequestIdLayer<MakeRequestUuid> {
    SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid)
}

pub fn propagate_request_id() -> PropagateRequestIdLayer {
    PropagateRequestIdLayer::new(REQUEST_ID)
}

pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down; finishing requests in flight");
}
