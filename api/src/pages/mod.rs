//! Server-rendered public pages: the feedback board (`/f`) and its roadmap, the testimonial form
//! (`/t`) and the changelog (`/c`) with its Atom feed. Pages are `maud` templates, which escape
//! every value they insert; scripts and styles are external files so a strict
//! Content-Security-Policy (no 'unsafe-inline') holds.

mod board;
pub(crate) mod changelog;
mod dashboard;
mod share;
mod subscriptions;
mod testimonial_form;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, Utc};
use maud::{html, Markup, PreEscaped};

use crate::problem::ApiError;
use crate::state::AppState;

pub const CSP: &str =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
    frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(dashboard::router())
        .route("/f/{slug}", get(board::board))
        .route("/f/{slug}/b/{board}", get(board::board))
        .route("/f/{slug}/roadmap", get(board::roadmap::page))
        .route(
            "/t/{slug}",
            get(testimonial_form::form).post(testimonial_form::without_script),
        )
        .route("/c/{slug}", get(changelog::page))
        .route("/share/{token}", get(share::page))
        .route("/c/{slug}/feed.xml", get(changelog::feed))
        .route(
            "/c/{slug}/subscribe",
            axum::routing::post(changelog::subscribe),
        )
        .route("/subscriptions/confirm", get(subscriptions::confirm))
        .route(
            "/subscriptions/unsubscribe",
            get(subscriptions::ask).post(subscriptions::unsubscribe),
        )
        .route("/assets/app.css", get(app_css))
        // Browsers ask for /favicon.ico whatever the page says; both answer the same mark.
        .route("/favicon.svg", get(favicon))
        .route("/favicon.ico", get(favicon))
        .route("/assets/board.js", get(board_js))
        .route("/assets/board-form.js", get(board_form_js))
        .route("/assets/testimonial.js", get(testimonial_js))
}

/// A full HTML5 document around `body`, with the shared stylesheet and `scripts` (deferred).
pub(crate) fn layout(title: &str, body: Markup, scripts: &[&str]) -> Markup {
    layout_with_head(title, html! {}, body, scripts)
}

/// As `layout`, with extra elements for `<head>`, such as a feed link.
pub(crate) fn layout_with_head(
    title: &str,
    extra_head: Markup,
    body: Markup,
    scripts: &[&str],
) -> Markup {
    html! {
        // maud's `DOCTYPE` is upper case; the pages have always begun with the lower-case form.
        (PreEscaped("<!doctype html>\n"))
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/assets/app.css";
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                (extra_head)
                @for src in scripts {
                    script src=(src) defer {}
                }
            }
            body {
                main class="page" { (body) }
                footer class="site-footer" { "Powered by Shipmate" }
            }
        }
    }
}

/// An HTML response with the security headers every page carries.
pub(crate) fn html_page(status: StatusCode, page: Markup) -> Response {
    let mut res = (status, page.into_string()).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // The board differs per signed-in visitor, so shared caches must not keep pages.
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    res
}

pub(crate) fn not_found_page() -> Response {
    let body = html! {
        section class="card notice" {
            h1 { "Page not found" }
            p { "There is no project at this address. Check the link you followed, or ask the project for a new one." }
        }
    };
    html_page(StatusCode::NOT_FOUND, layout("Page not found", body, &[]))
}

/// A friendly page for a failed lookup: 404 for a missing project, 503 while a dependency is down,
/// 500 otherwise (the details go to the log, never to the visitor).
pub(crate) fn error_page(err: impl Into<ApiError>) -> Response {
    let err: ApiError = err.into();
    let status = err.status();
    if status == StatusCode::NOT_FOUND {
        return not_found_page();
    }
    tracing::error!(error = ?err, "public page failed");
    let (status, text) = if status == StatusCode::SERVICE_UNAVAILABLE {
        (
            status,
            "This page is temporarily unavailable. Please try again in a minute.",
        )
    } else {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong on our side. Please try again later.",
        )
    };
    let body = html! {
        section class="card notice" {
            h1 { "Sorry" }
            p { (text) }
        }
    };
    html_page(status, layout("Something went wrong", body, &[]))
}

/// "21 Nov 2026".
pub(crate) fn human_date(d: DateTime<Utc>) -> String {
    d.format("%-d %b %Y").to_string()
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, max-age=3600"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

async fn app_css() -> Response {
    asset(
        "text/css; charset=utf-8",
        include_str!("../../assets/app.css"),
    )
}

async fn favicon() -> Response {
    asset("image/svg+xml", include_str!("../../assets/favicon.svg"))
}

async fn board_js() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("../../assets/board.js"),
    )
}

async fn board_form_js() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("../../assets/board-form.js"),
    )
}

async fn testimonial_js() -> Response {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("../../assets/testimonial.js"),
    )
}
