//! `/dashboard`: the project owner's single-page app. A static HTML shell, a few scripts and one
//! stylesheet, all compiled into the binary; the scripts talk to the `/v1` API with the
//! `shipmate_session` cookie. Every path under `/dashboard/` answers the same shell so client-side
//! routes survive a reload or a shared link, and so do the public account pages (`/login`,
//! `/register`, `/setup`, `/reset-password`, `/invite/<token>`), which the shell renders without a
//! session.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use maud::PreEscaped;

use super::html_page;
use crate::state::AppState;

const INDEX_HTML: &str = include_str!("../../assets/dashboard/index.html");
const APP_JS: &str = include_str!("../../assets/dashboard/app.js");
const APP_CSS: &str = include_str!("../../assets/dashboard/app.css");
const AUTH_JS: &str = include_str!("../../assets/dashboard/auth.js");
const INVITE_JS: &str = include_str!("../../assets/dashboard/invite.js");
const ACCOUNT_JS: &str = include_str!("../../assets/dashboard/account.js");
const MEMBERS_JS: &str = include_str!("../../assets/dashboard/members.js");
const ADMIN_JS: &str = include_str!("../../assets/dashboard/admin.js");
const WEBHOOKS_JS: &str = include_str!("../../assets/dashboard/webhooks.js");

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/dashboard", get(shell))
        // `{*rest}` never matches an empty tail, so the bare trailing slash gets its own route.
        .route("/dashboard/", get(shell))
        .route("/dashboard/{*rest}", get(shell))
        .route("/login", get(shell))
        .route("/register", get(shell))
        .route("/setup", get(shell))
        .route("/reset-password", get(shell))
        .route("/invite/{token}", get(shell))
        .route("/dashboard-assets/app.js", get(app_js))
        .route("/dashboard-assets/app.css", get(app_css))
        .route("/dashboard-assets/auth.js", get(auth_js))
        .route("/dashboard-assets/invite.js", get(invite_js))
        .route("/dashboard-assets/account.js", get(account_js))
        .route("/dashboard-assets/members.js", get(members_js))
        .route("/dashboard-assets/admin.js", get(admin_js))
        .route("/dashboard-assets/webhooks.js", get(webhooks_js))
}

/// The app shell (the same document for every client-side route), with the strict CSP. A static
/// file rather than a template: nothing in it comes from data, and it stays beside the scripts that
/// fill it in.
async fn shell() -> Response {
    html_page(StatusCode::OK, PreEscaped(INDEX_HTML.to_owned()))
}

async fn app_js() -> Response {
    script(APP_JS)
}

// The views beside app.js, loaded after it (index.html): public account pages, the invitation page,
// account, members, admin, webhooks.
async fn auth_js() -> Response {
    script(AUTH_JS)
}

async fn invite_js() -> Response {
    script(INVITE_JS)
}

async fn account_js() -> Response {
    script(ACCOUNT_JS)
}

async fn members_js() -> Response {
    script(MEMBERS_JS)
}

async fn admin_js() -> Response {
    script(ADMIN_JS)
}

async fn webhooks_js() -> Response {
    script(WEBHOOKS_JS)
}

fn script(body: &'static str) -> Response {
    asset("text/javascript; charset=utf-8", body)
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
