//! `/f/{slug}`: the public feedback board. Filters are a plain GET form so the page works without
//! JavaScript; signed-in visitors get vote buttons that `/assets/board.js` wires up.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use shipmate_shared::feedback::{self, Feedback, ListFilter};
use shipmate_shared::projects::{self, Project};
use shipmate_shared::validate::Paging;
use uuid::Uuid;

use super::{error_page, html_page, human_date, layout};
use crate::extract::MaybeUser;
use crate::routes::feedback::parse_filter;
use crate::state::AppState;

const TYPES: &[(&str, &str)] = &[
    ("bug", "Bug"),
    ("feature", "Feature request"),
    ("feedback", "Feedback"),
];
const STATUSES: &[(&str, &str)] = &[
    ("new", "New"),
    ("planned", "Planned"),
    ("in_progress", "In progress"),
    ("done", "Done"),
    ("shipped", "Shipped"),
    ("dismissed", "Dismissed"),
    ("cancelled", "Cancelled"),
];
const SORTS: &[(&str, &str)] = &[("top", "Top voted"), ("new", "Newest")];

pub async fn board(
    State(state): State<AppState>,
    Path(slug): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    MaybeUser(user): MaybeUser,
) -> Response {
    let project = match projects::by_slug(&state.db, &slug).await {
        Ok(p) => p,
        Err(e) => return error_page(e),
    };
    // A hand-edited query should not cost the visitor the page: show everything instead.
    let filter = ListFilter {
        public: true,
        ..parse_filter(&q).unwrap_or_default()
    };
    let paging = Paging::parse(&q).unwrap_or(Paging::first(50));
    let (entries, total): (Vec<Feedback>, i64) =
        match feedback::list(&state.db, project.id, &filter, paging).await {
            Ok((list, total)) => (list.into_iter().map(Feedback::public).collect(), total),
            Err(e) => return error_page(e),
        };
    let my_votes: HashMap<Uuid, i16> = match &user {
        Some(u) => match feedback::user_votes(&state.db, project.id, u.id).await {
            Ok(v) => v.into_iter().collect(),
            Err(e) => return error_page(e),
        },
        None => HashMap::new(),
    };
    let filtered = filter.kind.is_some() || filter.status.is_some();
    let sort = if filter.newest_first { "new" } else { "top" };
    let count = total;
    let noun = if count == 1 { "entry" } else { "entries" };
    let matching = if filtered {
        " matching these filters"
    } else {
        ""
    };
    let board_href = format!("/f/{}", project.slug);

    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Feedback board" }
            h1 { (project.name) }
            p class="muted" { span id="entry-count" { (count) } " " (noun) (matching) }
            p class="who" {
                @match &user {
                    Some(u) => {
                        "Signed in as "
                        (if u.name.trim().is_empty() { &u.email } else { &u.name })
                    }
                    None => {
                        a class="button button-secondary" href=(sign_in_href(&project)) { "Sign in to vote" }
                    }
                }
            }
        }
        form class="card filters" method="get" action=(board_href) role="search" aria-label="Filter feedback" {
            label { "Type " select name="type" { (options(filter.kind.map(|k| k.as_str()), Some("All types"), TYPES)) } }
            label { "Status " select name="status" { (options(filter.status.map(|k| k.as_str()), Some("All statuses"), STATUSES)) } }
            label { "Sort " select name="sort" { (options(Some(sort), None, SORTS)) } }
            button type="submit" { "Apply" }
        }
        p class="board-msg" id="board-msg" role="status" aria-live="polite" {}
        @if entries.is_empty() {
            section class="card empty" {
                p {
                    @if filtered {
                        "No feedback matches these filters. "
                        a href=(board_href) { "Show everything" }
                    } @else {
                        "No feedback yet. Ideas, bugs and requests will show up here."
                    }
                }
            }
        } @else {
            ul class="entries" {
                @for e in &entries {
                    (entry(e, user.is_some(), my_votes.get(&e.id).copied().unwrap_or(0)))
                }
            }
        }
    };

    let title = format!("{} feedback", project.name);
    let scripts: &[&str] = if user.is_some() {
        &["/assets/board.js"]
    } else {
        &[]
    };
    html_page(StatusCode::OK, layout(&title, body, scripts))
}

/// The sign-in page (password and every configured provider), coming back to this board.
fn sign_in_href(project: &Project) -> String {
    format!("/login?next=/f/{}", project.slug)
}

fn options(current: Option<&str>, all: Option<&str>, values: &[(&str, &str)]) -> Markup {
    html! {
        @if let Some(all) = all {
            option value="" { (all) }
        }
        @for (value, label) in values {
            option value=(value) selected[current == Some(*value)] { (label) }
        }
    }
}

fn label_for<'a>(table: &[(&str, &'a str)], value: &'a str) -> &'a str {
    table
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, l)| *l)
        .unwrap_or(value)
}

/// A CSS class suffix from a known value; anything unexpected falls back to a neutral style.
fn class_for(value: &str) -> &str {
    if value.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
        value
    } else {
        "other"
    }
}

fn entry(e: &Feedback, signed_in: bool, my_vote: i16) -> Markup {
    // Only feature requests take votes; the server answers 422 for the others.
    let votable = signed_in && e.kind == shipmate_shared::feedback::FeedbackType::Feature;
    let description = e
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    html! {
        li class="card entry" data-entry=(e.id) id={ "entry-" (e.id) } {
            div class="tally" {
                @if votable { (vote_button(e.id, "up", "▲", "Upvote", my_vote > 0)) }
                span class="score" data-score title="Score" { (e.score) }
                @if votable { (vote_button(e.id, "down", "▼", "Downvote", my_vote < 0)) }
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
