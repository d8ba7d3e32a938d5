//! The links in emails: confirming a changelog subscription, and unsubscribing (a page with a
//! button, and the RFC 8058 one-click POST that mail clients send to the `List-Unsubscribe` link).

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use shipmate_shared::outbound::subscriptions;
use shipmate_shared::AppError;

use super::{esc, html_page, layout};
use crate::state::AppState;

#[derive(Deserialize)]
pub struct TokenQuery {
    #[serde(default)]
    token: String,
}

fn card(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<section class=\"card notice\">\n<h1>{}</h1>\n{body}\n</section>",
        esc(title)
    );
    html_page(status, layout(title, &html, &[]))
}

fn failed(e: AppError) -> Response {
    match e {
        AppError::Client { .. } => card(
            StatusCode::NOT_FOUND,
            "Link not recognised",
            "<p>This link is not valid. It may have been copied only in part.</p>",
        ),
        _ => card(
            StatusCode::SERVICE_UNAVAILABLE,
            "Please try again",
            "<p>Something went wrong on our side. Nothing changed; try the link again in a minute.</p>",
        ),
    }
}

/// Opening the confirmation link confirms the subscription.
pub async fn confirm(State(state): State<AppState>, Query(q): Query<TokenQuery>) -> Response {
    match subscriptions::confirm(&state.db, &q.token).await {
        Ok(project) => card(
            StatusCode::OK,
            "Subscription confirmed",
            &format!(
                "<p>You will receive {}'s new changelog entries by email. Every email has a link to unsubscribe.</p>",
                esc(&project)
            ),
        ),
        Err(e) => failed(e),
    }
}

/// Opening the link only asks: link scanners open links too, and must not unsubscribe anyone.
pub async fn ask(Query(q): Query<TokenQuery>) -> Response {
    let body = format!(
        "<p>Stop these emails?</p>\n<form method=\"post\" action=\"/subscriptions/unsubscribe?token={}\">\
         <button type=\"submit\" class=\"button\">Unsubscribe</button></form>",
        esc(&q.token)
    );
    card(StatusCode::OK, "Unsubscribe", &body)
}

/// The button's POST, and the one-click POST (`List-Unsubscribe=One-Click`): both unsubscribe.
pub async fn unsubscribe(State(state): State<AppState>, Query(q): Query<TokenQuery>) -> Response {
    match subscriptions::unsubscribe(&state.db, &q.token).await {
        Ok(project) => card(
            StatusCode::OK,
            "Unsubscribed",
            &format!(
                "<p>You will no longer receive these emails from {}.</p>",
                esc(&project)
            ),
        ),
        Err(e) => failed(e),
    }
}
