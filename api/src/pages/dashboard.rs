//! `/dashboard`: the project owner's single-page app. A static HTML shell, its ES modules and one
//! stylesheet, all compiled into the binary; the scripts talk to the `/v1` API with the
//! `shipmate_session` cookie. Every path under `/dashboard/` answers the same shell so client-side
//! routes survive a reload or a shared link, and so do the public account pages (`/login`,
//! `/register`, `/setup`, `/reset-password`, `/verify-email`, `/invite/<token>`), which the shell
//! renders without a session.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use maud::PreEscaped;

use super::html_page;
use crate::state::AppState;

const INDEX_HTML: &str = include_str!("../../assets/dashboard/index.html");
const APP_CSS: &str = include_str!("../../assets/dashboard/app.css");

/// `(name, contents)` of each named file in assets/dashboard/, compiled into the binary.
macro_rules! dashboard_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../assets/dashboard/", $name)))),*]
    };
}

/// The app's ES modules, served at `/dashboard-assets/<name>`: index.html loads `app.js` with
/// `type="module"`, and it imports the rest (one module per view, plus the shared helpers).
const SCRIPTS: &[(&str, &str)] = dashboard_files![
    // The entry (the route table), the shell and the shared helpers.
    "app.js",
    "router.js",
    "state.js",
    "dom.js",
    "api.js",
    "ui.js",
    "roles.js",
    // One module per view.
    "projects.js",
    "feedback.js",
    "feedback-entry.js",
    "feedback-picker.js",
    "feedback-github.js",
    "feedback-tags.js",
    "feedback-boards.js",
    "feedback-value.js",
    "testimonials.js",
    "changelog.js",
    "knowledge.js",
    "kb-search.js",
    "kb-analytics.js",
    "kb-ask.js",
    "kb-gaps.js",
    "kb-upload.js",
    "kb-document.js",
    "analytics.js",
    "analytics-query.js",
    "analytics-goals.js",
    "analytics-funnels.js",
    "analytics-share.js",
    "analytics-segments.js",
    "analytics-goal-picker.js",
    "analytics-imports.js",
    "analytics-journeys.js",
    "analytics-alerts.js",
    "analytics-install.js",
    "settings.js",
    "auth.js",
    "verify.js",
    "verify-notice.js",
    "invite.js",
    "account.js",
    "tokens.js",
    "members.js",
    "admin.js",
    "webhooks.js",
];

pub fn router() -> Router<AppState> {
    let router = Router::new()
        .route("/dashboard", get(shell))
        // `{*rest}` never matches an empty tail, so the bare trailing slash gets its own route.
        .route("/dashboard/", get(shell))
        .route("/dashboard/{*rest}", get(shell))
        .route("/login", get(shell))
        .route("/register", get(shell))
        .route("/setup", get(shell))
        .route("/reset-password", get(shell))
        .route("/verify-email", get(shell))
        .route("/invite/{token}", get(shell))
        .route("/dashboard-assets/app.css", get(app_css));
    SCRIPTS.iter().fold(router, |router, &(name, body)| {
        router.route(
            &format!("/dashboard-assets/{name}"),
            get(move || async move { script(body) }),
        )
    })
}

/// The app shell (the same document for every client-side route), with the strict CSP. A static
/// file rather than a template: nothing in it comes from data, and it stays beside the scripts that
/// fill it in.
async fn shell() -> Response {
    html_page(StatusCode::OK, PreEscaped(INDEX_HTML.to_owned()))
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

#[cfg(test)]
mod tests {
    use super::SCRIPTS;

    /// A module missing from `SCRIPTS` would be a 404 for the browser, and the whole app would not
    /// start: every file beside app.js is served, and every relative import names one of them.
    #[test]
    fn every_module_is_served_and_every_import_resolves() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/dashboard");
        let served = |name: &str| SCRIPTS.iter().any(|(n, _)| *n == name);
        for entry in std::fs::read_dir(dir).expect("the dashboard's assets") {
            let name = entry.expect("a directory entry").file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".js") {
                assert!(served(&name), "{name} is not in SCRIPTS");
            }
        }
        for (name, body) in SCRIPTS {
            for import in body.split("from './").skip(1) {
                let target = import.split('\'').next().unwrap_or_default();
                assert!(
                    served(target),
                    "{name} imports {target}, which is not served"
                );
            }
        }
    }
}
