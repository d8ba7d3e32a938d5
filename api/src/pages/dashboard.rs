//! `/dashboard`: the project owner's single-page app. A static HTML shell, one script and one
//! stylesheet, all compiled into the binary; the script talks to the `/v1` API with the
//! `shipmate_session` cookie. Every path under `/dashboard/` answers the same shell so client-side
//! routes survive a reload or a shared link.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::html_page;
use crate::state::AppState;

const INDEX_HTML: &str = include_str!("../../assets/dashboard/index.html");
const APP_JS: &str = include_str!("../../assets/dashboard/app.js");
const APP_CSS: &str = include_str!("../../assets/dashboard/app.css");

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/dashboard", get(shell))
        // `{*rest}` never matches an empty tail, so the bare trailing slash gets its own route.
        .route("/dashboard/", get(shell))
        .route("/dashboard/{*rest}", get(shell))
        .route("/dashboard-assets/app.js", get(app_js))
        .route("/dashboard-assets/app.css", get(app_css))
}

/// The app shell (the same document for every client-side route), with the strict CSP.
async fn shell() -> Response {
    html_page(StatusCode::OK, INDEX_HTML.to_owned())
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", APP_JS)
}

async fn app_css() -> Response {
    asset("text/css; charset=utf-8", APP_CSS)
}

/// `no-cache` lets browsers keep a copy but revalidate it, so a new deploy is picked up at once.
fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}
