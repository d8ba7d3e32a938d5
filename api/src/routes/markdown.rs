//! Markdown preview for the dashboard's changelog editor. The server renders it with the public
//! changelog page's own renderer and sanitiser, so the preview is exactly what readers will see,
//! and the browser never turns author text into HTML itself.

use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use shipmate_shared::changelog::MAX_CONTENT;
use shipmate_shared::AppResult;
use utoipa::ToSchema;

use crate::extract::{JsonBody, SessionUser};
use crate::pages::changelog::{render_markdown, sanitizer};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/markdown/preview", post(preview))
}

/// The body of a preview. Parsed field by field with `Input` (for the contract's 422s); this
/// type is the document's description of it.
#[derive(Deserialize, ToSchema)]
pub struct PreviewRequest {
    /// Markdown, 1 to 100,000 characters after trimming: the rule of a changelog entry's content.
    pub markdown: String,
}

#[derive(Serialize, ToSchema)]
pub struct PreviewResponse {
    /// Sanitised HTML, as the public changelog page would show the same Markdown.
    pub html: String,
}

/// Renders Markdown as the public changelog does (any signed-in user; nothing is stored).
#[utoipa::path(post, path = "/v1/markdown/preview", tag = "changelog", security(("session" = [])),
    request_body = PreviewRequest,
    responses((status = 200, body = PreviewResponse), (status = 422, description = "`markdown` missing, empty or too long")))]
pub async fn preview(
    _: SessionUser,
    JsonBody(mut input): JsonBody,
) -> AppResult<Json<PreviewResponse>> {
    // Trimmed, as an entry's content is when it is saved, so the preview shows what will be published.
    let markdown = input.string("markdown", 1, MAX_CONTENT);
    input.finish()?;
    let markdown = markdown.unwrap_or_default();
    Ok(Json(PreviewResponse {
        html: render_markdown(&markdown, &sanitizer()),
    }))
}
