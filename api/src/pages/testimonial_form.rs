//! `/t/{slug}`: the public testimonial form. `/assets/testimonial.js` sends it as JSON to
//! `POST /v1/testimonials/by-project/{slug}` (rate-limited, honeypot-checked) and shows the
//! server's field errors inline; without JavaScript a POST here only explains that it is needed.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use shipmate_shared::projects::{self, Project};

use super::{error_page, esc, html_page, layout};
use crate::routes::testimonials::HONEYPOT_FIELD;
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

fn field(id: &str, label: &str, hint: Option<&str>, control: &str) -> String {
    let hint = hint
        .map(|h| format!(" <span class=\"optional\">{}</span>", esc(h)))
        .unwrap_or_default();
    format!(
        "<div class=\"field\">\n<label for=\"{id}\">{label}{hint}</label>\n{control}\n\
         <p class=\"err\" id=\"err-{id}\" aria-live=\"polite\"></p>\n</div>\n",
        label = esc(label),
    )
}

fn stars() -> String {
    // Highest first: with `flex-direction: row-reverse` they show 1..5 left to right, and
    // `input:checked ~ label` lights the chosen star and every lower one.
    let mut out = String::new();
    for n in (1..=5).rev() {
        let noun = if n == 1 { "star" } else { "stars" };
        out.push_str(&format!(
            "<input type=\"radio\" id=\"rating-{n}\" name=\"rating\" value=\"{n}\" aria-describedby=\"err-rating\">\
             <label for=\"rating-{n}\" title=\"{n} {noun}\"><span class=\"sr-only\">{n} {noun}</span></label>"
        ));
    }
    out
}

fn render(project: &Project, status: StatusCode, notice: Option<&str>) -> Response {
    let name = esc(&project.name);
    let slug = esc(&project.slug);
    let notice = notice
        .map(|n| {
            format!(
                "<p class=\"card notice notice-warn\" role=\"alert\">{}</p>\n",
                esc(n)
            )
        })
        .unwrap_or_default();
    let mut fields = String::new();
    fields.push_str(&field(
        "author_name",
        "Your name",
        None,
        "<input id=\"author_name\" name=\"author_name\" type=\"text\" maxlength=\"100\" autocomplete=\"name\" required aria-describedby=\"err-author_name\">",
    ));
    fields.push_str(&field(
        "author_email",
        "Email",
        Some("(never shown publicly)"),
        "<input id=\"author_email\" name=\"author_email\" type=\"email\" maxlength=\"254\" autocomplete=\"email\" required aria-describedby=\"err-author_email\">",
    ));
    fields.push_str(&field(
        "author_title",
        "Job title or role",
        Some("(optional)"),
        "<input id=\"author_title\" name=\"author_title\" type=\"text\" maxlength=\"100\" autocomplete=\"organization-title\" aria-describedby=\"err-author_title\">",
    ));
    fields.push_str(&format!(
        "<fieldset class=\"field rating\">\n<legend>Rating</legend>\n<div class=\"stars\">{}</div>\n\
         <p class=\"err\" id=\"err-rating\" aria-live=\"polite\"></p>\n</fieldset>\n",
        stars()
    ));
    fields.push_str(&field(
        "content",
        "Your testimonial",
        None,
        "<textarea id=\"content\" name=\"content\" rows=\"6\" maxlength=\"5000\" required aria-describedby=\"err-content\"></textarea>",
    ));
    fields.push_str(&field(
        "tweet_url",
        "Link to a tweet",
        Some("(optional)"),
        "<input id=\"tweet_url\" name=\"tweet_url\" type=\"url\" maxlength=\"2048\" inputmode=\"url\" placeholder=\"https://\" aria-describedby=\"err-tweet_url\">",
    ));
    // People never see or fill this; naive bots do, and the server then drops the submission.
    fields.push_str(&format!(
        "<div class=\"hp\" aria-hidden=\"true\">\n<label for=\"{hp}\">Website</label>\n\
         <input id=\"{hp}\" name=\"{hp}\" type=\"text\" tabindex=\"-1\" autocomplete=\"off\">\n</div>\n",
        hp = HONEYPOT_FIELD,
    ));

    let body = format!(
        "<header class=\"page-head\">\n<p class=\"eyebrow\">Testimonial</p>\n<h1>Share your experience with {name}</h1>\n\
         <p class=\"muted\">A few words about how {name} helped you. The team reviews every testimonial before it appears anywhere.</p>\n\
         </header>\n{notice}\
         <form id=\"testimonial\" class=\"card form\" method=\"post\" action=\"/t/{slug}\" data-slug=\"{slug}\" novalidate>\n\
         {fields}<p class=\"err form-err\" id=\"err-form\" role=\"alert\"></p>\n\
         <button type=\"submit\" class=\"button\">Send testimonial</button>\n</form>\n\
         <section id=\"thanks\" class=\"card thanks hidden\" tabindex=\"-1\" role=\"status\">\n\
         <h2>Thank you!</h2>\n<p>Your testimonial has been sent to the {name} team for review.</p>\n</section>\n"
    );
    let title = format!("Share your experience with {}", project.name);
    html_page(status, layout(&title, &body, &["/assets/testimonial.js"]))
}
