//! One entry of the board: votes, labels, the changelog entries that shipped it, and its comments
//! (loaded by `/assets/board.js` when the disclosure opens).

use maud::{html, Markup};
use shipmate_feedback::changelog::ShippedIn;
use shipmate_feedback::feedback::{Feedback, FeedbackType};
use uuid::Uuid;

use crate::pages::human_date;

pub(super) const TYPES: &[(&str, &str)] = &[
    ("bug", "Bug"),
    ("feature", "Feature request"),
    ("feedback", "Feedback"),
];
pub(super) const STATUSES: &[(&str, &str)] = &[
    ("new", "New"),
    ("planned", "Planned"),
    ("in_progress", "In progress"),
    ("done", "Done"),
    ("shipped", "Shipped"),
    ("dismissed", "Dismissed"),
    ("cancelled", "Cancelled"),
];

pub(super) fn label_for<'a>(table: &[(&str, &'a str)], value: &'a str) -> &'a str {
    table
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, l)| *l)
        .unwrap_or(value)
}

/// A CSS class suffix from a known value; anything unexpected falls back to a neutral style.
pub(super) fn class_for(value: &str) -> &str {
    if value.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        value
    } else {
        "other"
    }
}

/// What an entry needs besides itself: who is looking and where the links go.
pub(super) struct Context<'a> {
    pub slug: &'a str,
    pub signed_in: bool,
    pub sign_in_href: &'a str,
}

/// An entry with what the board loaded around it.
pub(super) struct Row<'a> {
    pub entry: &'a Feedback,
    pub my_vote: i16,
    pub comments: i64,
    pub shipped_in: Vec<&'a ShippedIn>,
}

pub(super) fn entry(ctx: &Context, row: &Row) -> Markup {
    let e = row.entry;
    // Only feature requests take votes; the server answers 422 for the others.
    let votable = ctx.signed_in && e.kind == FeedbackType::Feature;
    let description = e
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    html! {
        li class="card entry" data-entry=(e.id) id={ "entry-" (e.id) } {
            div class="tally" {
                @if votable { (vote_button(e.id, "up", "▲", "Upvote", row.my_vote > 0)) }
                span class="score" data-score title="Score" { (e.score) }
                @if votable { (vote_button(e.id, "down", "▼", "Downvote", row.my_vote < 0)) }
            }
            div class="entry-body" {
                h2 class="entry-title" { (e.title) }
                @if let Some(d) = description {
                    p class="desc" { (d) }
                }
                p class="meta" {
                    span class={ "label type-" (class_for(e.kind.as_str())) } { (label_for(TYPES, e.kind.as_str())) }
                    " "
                    span class={ "badge status-" (class_for(e.status.as_str())) } { (label_for(STATUSES, e.status.as_str())) }
                    " "
                    span class="counts" {
                        span data-upvotes { (e.upvotes) } " up · " span data-downvotes { (e.downvotes) } " down"
                    }
                    " "
                    time datetime=(e.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)) {
                        (human_date(e.created_at))
                    }
                }
                (shipped_in(ctx.slug, &row.shipped_in))
                (comments(ctx, e.id, row.comments))
            }
        }
    }
}

/// "Shipped in <changelog entry>", each a link to it on the changelog page.
pub(super) fn shipped_in(slug: &str, links: &[&ShippedIn]) -> Markup {
    html! {
        @if !links.is_empty() {
            p class="shipped-in" {
                "Shipped in "
                @for (i, s) in links.iter().enumerate() {
                    @if i > 0 { ", " }
                    a href={ "/c/" (slug) "#" (s.entry_id) } { (s.title) }
                }
            }
        }
    }
}

/// A disclosure whose list `/assets/board.js` fills on first opening; signed-in visitors also get
/// a form to add a comment (the session cookie authenticates it).
fn comments(ctx: &Context, id: Uuid, count: i64) -> Markup {
    let field = format!("comment-{id}");
    html! {
        details class="comments" data-comments=(id) {
            summary { "Comments (" span data-comment-count { (count) } ")" }
            ol class="comment-list" data-comment-list {}
            p class="comment-msg" data-comment-msg role="status" aria-live="polite" {}
            noscript { p class="muted" { "Comments need JavaScript to load." } }
            @if ctx.signed_in {
                form class="comment-form" data-comment-form=(id) novalidate {
                    label for=(field) class="sr-only" { "Your comment" }
                    textarea id=(field) name="body" rows="3" maxlength="5000" required
                        placeholder="Add a comment" {}
                    button type="submit" class="button" { "Comment" }
                }
            } @else {
                p class="muted" { a href=(ctx.sign_in_href) { "Sign in to comment" } }
            }
        }
    }
}

fn vote_button(id: Uuid, dir: &str, glyph: &str, label: &str, active: bool) -> Markup {
    let class = if active {
        format!("vote vote-{dir} is-active")
    } else {
        format!("vote vote-{dir}")
    };
    html! {
        button type="button" class=(class) data-vote=(dir) data-id=(id) aria-pressed=(active)
            aria-label=(label) title=(label) { (glyph) }
    }
}
