//! Markdown preview for the dashboard's changelog editor. The server renders it with the public
//! changelog page's own renderer and sanitiser, so the preview is exactly what readers will see,
//! and the browser never turns author text into HTML itself.

use axum::routing::post;
use axum::{Json, Router};
use shipmate_feedback::changelog::{MarkdownPreview, RenderedMarkdown};

use crate::extract::{Body, SessionUser};
use crate::pages::changelog::{render_markdown, sanitizer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/markdown/preview", post(preview))
}

/// Renders Markdown as the public changelog does (any signed-in user; nothing is stored).
#[utoipa::path(post, path = "/v1/markdown/preview", tag = "changelog", security(("session" = [])),
    request_body = MarkdownPreview,
    responses((status = 200, body = RenderedMarkdown), (status = 422, description = "`markdown` missing, empty or too long")))]
pub async fn preview(
    _: SessionUser,
    Body(MarkdownPreview { markdown }): Body<MarkdownPreview>,
) -> ApiResult<Json<RenderedMarkdown>> {
    Ok(Json(RenderedMarkdown {
        html: render_markdown(&markdown, &sanitizer()),
    }))
}
