//! The board's submission form. `/assets/board-form.js` sends it as JSON to
//! `POST /v1/feedback/by-project/{slug}` and suggests similar entries while the title is typed;
//! without JavaScript the form stays hidden, as it could not send anything.

use maud::{html, Markup};
use shipmate_accounts::projects::Project;

use crate::limits::HONEYPOT_FIELD;

const KINDS: &[(&str, &str)] = &[
    ("feature", "Feature request"),
    ("bug", "Bug report"),
    ("feedback", "General feedback"),
];

fn field(id: &str, name: &str, label: &str, hint: Option<&str>, control: Markup) -> Markup {
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
            p class="err" id={ "fb-err-" (name) } aria-live="polite" {}
        }
    }
}

/// `signed_in`: the account's address gets the updates, so the form asks for none. `board`: the
/// slug of the board whose page this is (entries go there), or none for the default board.
pub(super) fn submit_form(project: &Project, board: Option<&str>, signed_in: bool) -> Markup {
    html! {
        section id="submit" class="card submit hidden" aria-labelledby="submit-head" {
            h2 id="submit-head" { "Share an idea or report a bug" }
            form id="feedback-form" class="form" data-slug=(project.slug) data-board=[board] novalidate {
                (field("fb-title", "title", "Title", None, html! {
                    input id="fb-title" name="title" type="text" maxlength="200" required
                        autocomplete="off" aria-describedby="fb-err-title similar";
                }))
                // Filled by the script with entries close in meaning to the title being typed.
                div id="similar" class="similar hidden" aria-live="polite" {
                    p class="similar-head" { "Is this already asked?" }
                    ul id="similar-list" {}
                }
                (field("fb-type", "type", "Kind", None, html! {
                    select id="fb-type" name="type" aria-describedby="fb-err-type" {
                        @for (value, label) in KINDS {
                            option value=(value) { (label) }
                        }
                    }
                }))
                (field("fb-description", "description", "Details", Some("(optional)"), html! {
                    textarea id="fb-description" name="description" rows="4" maxlength="10000"
                        aria-describedby="fb-err-description" {}
                }))
                @if signed_in {
                    p class="muted" { "Updates about it go to your account's email address." }
                } @else {
                    (field("fb-email", "submitter_email", "Email for updates", Some("(optional, never shown)"), html! {
                        input id="fb-email" name="submitter_email" type="email" maxlength="254"
                            autocomplete="email" aria-describedby="fb-err-submitter_email";
                    }))
                }
                // People never see or fill this; naive bots do, and the server then drops the submission.
                div class="hp" aria-hidden="true" {
                    label for=(HONEYPOT_FIELD) { "Website" }
                    input id=(HONEYPOT_FIELD) name=(HONEYPOT_FIELD) type="text" tabindex="-1" autocomplete="off";
                }
                p class="err form-err" id="fb-err-form" role="alert" {}
                button type="submit" class="button" { "Send" }
            }
            p id="submit-done" class="notice done hidden" role="status" tabindex="-1" {}
        }
    }
}
