//! `/t/{slug}`: the public testimonial form. `/assets/testimonial.js` sends it as JSON to
//! `POST /v1/testimonials/by-project/{slug}` (rate-limited, honeypot-checked) and shows the
//! server's field errors inline; without JavaScript a POST here only explains that it is needed.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use shipmate_accounts::projects::{self, Project};

use super::{error_page, html_page, layout};
use crate::limits::HONEYPOT_FIELD;
use crate::state::AppState;

pub async fn form(State(state): State<AppState>, Path(slug): Path<String>) -> Response {
    match projects::by_slug(&state.db, &slug).await {
        Ok(project) => render(&project, StatusCode::OK, None),
        Err(e) => error_page(e),
    }
}

/// The form posted without JavaScript: nothing is stored; say what is needed.
pub async fn without_script(State(state): State<AppState>, Path(slug): Path<String>) -> Response {
    match projects::by_slug(&state.db, &slug).await {
        Ok(project) => render(
            &project,
            StatusCode::BAD_REQUEST,
            Some("Your testimonial was not sent: this form needs JavaScript. Please enable it and try again."),
        ),
        Err(e) => error_page(e),
    }
}

fn field(id: &str, label: &str, hint: Option<&str>, control: Markup) -> Markup {
    html! {
        div class="field" {
            label for=(id) {
                (label)
                @if let Some(h) = hint {
                    " "
                    span class="optional" { (h) }
                }
            }
            (control)
            p class="err" id={ "err-" (id) } aria-live="polite" {}
        }
    }
}

fn stars() -> Markup {
    // Highest first: with `flex-direction: row-reverse` they show 1..5 left to right, and
    // `input:checked ~ label` lights the chosen star and every lower one.
    html! {
        @for n in (1..=5).rev() {
            @let noun = if n == 1 { "star" } else { "stars" };
            input type="radio" id={ "rating-" (n) } name="rating" value=(n) aria-describedby="err-rating";
            label for={ "rating-" (n) } title={ (n) " " (noun) } {
                span class="sr-only" { (n) " " (noun) }
            }
        }
    }
}

fn render(project: &Project, status: StatusCode, notice: Option<&str>) -> Response {
    let name = &project.name;
    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Testimonial" }
            h1 { "Share your experience with " (name) }
            p class="muted" {
                "A few words about how " (name)
                " helped you. The team reviews every testimonial before it appears anywhere."
            }
        }
        @if let Some(n) = notice {
            p class="card notice notice-warn" role="alert" { (n) }
        }
        form id="testimonial" class="card form" method="post" action={ "/t/" (project.slug) }
            data-slug=(project.slug) novalidate {
            (field("author_name", "Your name", None, html! {
                input id="author_name" name="author_name" type="text" maxlength="100" autocomplete="name"
                    required aria-describedby="err-author_name";
            }))
            (field("author_email", "Email", Some("(never shown publicly)"), html! {
                input id="author_email" name="author_email" type="email" maxlength="254" autocomplete="email"
                    required aria-describedby="err-author_email";
            }))
            (field("author_title", "Job title or role", Some("(optional)"), html! {
                input id="author_title" name="author_title" type="text" maxlength="100"
                    autocomplete="organization-title" aria-describedby="err-author_title";
            }))
            fieldset class="field rating" {
                legend { "Rating" }
                div class="stars" { (stars()) }
                p class="err" id="err-rating" aria-live="polite" {}
            }
            (field("content", "Your testimonial", None, html! {
                textarea id="content" name="content" rows="6" maxlength="5000" required
                    aria-describedby="err-content" {}
            }))
            (field("tweet_url", "Link to a tweet", Some("(optional)"), html! {
                input id="tweet_url" name="tweet_url" type="url" maxlength="2048" inputmode="url"
                    placeholder="https://" aria-describedby="err-tweet_url";
            }))
            // People never see or fill this; naive bots do, and the server then drops the submission.
            div class="hp" aria-hidden="true" {
                label for=(HONEYPOT_FIELD) { "Website" }
                input id=(HONEYPOT_FIELD) name=(HONEYPOT_FIELD) type="text" tabindex="-1" autocomplete="off";
            }
            p class="err form-err" id="err-form" role="alert" {}
            button type="submit" class="button" { "Send testimonial" }
        }
        section id="thanks" class="card thanks hidden" tabindex="-1" role="status" {
            h2 { "Thank you!" }
            p { "Your testimonial has been sent to the " (name) " team for review." }
        }
    };
    let title = format!("Share your experience with {name}");
    html_page(status, layout(&title, body, &["/assets/testimonial.js"]))
}
