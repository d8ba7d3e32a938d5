//! The links in emails: confirming a changelog subscription, and unsubscribing (a page with a
//! button, and the RFC 8058 one-click POST that mail clients send to the `List-Unsubscribe` link).

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use serde::Deserialize;
use shipmate_core::AppError;
use shipmate_outbound::subscriptions;

use super::{html_page, layout};
use crate::state::AppState;

#[derive(Deserialize)]
pub struct TokenQuery {
    #[serde(default)]
    token: String,
}

fn card(status: StatusCode, title: &str, body: Markup) -> Response {
    let html = html! {
        section class="card notice" {
            h1 { (title) }
            (body)
        }
    };
    html_page(status, layout(title, html, &[]))
}

fn failed(e: AppError) -> Response {
    match e {
        AppError::Client { .. } => card(
            StatusCode::NOT_FOUND,
            "Link not recognised",
            html! { p { "This link is not valid. It may have been copied only in part." } },
        ),
        _ => card(
            StatusCode::SERVICE_UNAVAILABLE,
            "Please try again",
            html! { p { "Something went wrong on our side. Nothing changed; try the link again in a minute." } },
        ),
    }
}

/// Opening the confirmation link confirms the subscription.
pub async fn confirm(State(state): State<AppState>, Query(q): Query<TokenQuery>) -> Response {
    match subscriptions::confirm(&state.db, &q.token).await {
        Ok(project) => card(
            StatusCode::OK,
            "Subscription confirmed",
            html! {
                p {
                    "You will receive " (project)
                    "'s new changelog entries by email. Every email has a link to unsubscribe."
                }
            },
        ),
        Err(e) => failed(e),
    }
}

/// Opening the link only asks: link scanners open links too, and must not unsubscribe anyone.
pub async fn ask(Query(q): Query<TokenQuery>) -> Response {
    let body = html! {
        p { "Stop these emails?" }
        form method="post" action={ "/subscriptions/unsubscribe?token=" (q.token) } {
            button type="submit" class="button" { "Unsubscribe" }
        }
    };
    card(StatusCode::OK, "Unsubscribe", body)
}

/// The button's POST, and the one-click POST (`List-Unsubscribe=One-Click`): both unsubscribe.
pub async fn unsubscribe(State(state): State<AppState>, Query(q): Query<TokenQuery>) -> Response {
    match subscriptions::unsubscribe(&state.db, &q.token).await {
        Ok(project) => card(
            StatusCode::OK,
            "Unsubscribed",
            html! { p { "You will no longer receive these emails from " (project) "." } },
        ),
        Err(e) => failed(e),
    }
}
