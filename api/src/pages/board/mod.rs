//! `/f/{slug}`: the public feedback board, 50 entries a page, from every board the visitor may see
//! (`/f/{slug}/b/{board}`: one board's). Filters are a plain GET form and
//! pages plain links, so reading works without JavaScript; `/assets/board.js` adds votes and
//! comments, `/assets/board-form.js` the submission form.

mod entry;
mod form;
pub(super) mod roadmap;

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use shipmate_accounts::projects::{self, Project};
use shipmate_core::params::Paging;
use shipmate_core::AppResult;
use shipmate_feedback::changelog::{self, ShippedIn};
use shipmate_feedback::feedback::boards::{self, Audience, Board, Visible};
use shipmate_feedback::feedback::{self, comments, Feedback, FeedbackSort, ListFilter};
use sqlx::PgPool;
use uuid::Uuid;

use super::{error_page, html_page, layout};
use crate::audience;
use crate::extract::MaybeUser;
use crate::read_your_writes::ReadDb;
use crate::routes::feedback::parse_filter;
use crate::state::AppState;
use entry::{Context, Row, STATUSES, TYPES};

const PER_PAGE: i64 = 50;
const SORTS: &[(&str, &str)] = &[("top", "Top voted"), ("new", "Newest")];

/// A page of the board and what its entries show besides themselves.
struct Loaded {
    entries: Vec<Feedback>,
    total: i64,
    my_votes: HashMap<Uuid, i16>,
    comments: HashMap<Uuid, i64>,
    shipped_in: Vec<ShippedIn>,
}

async fn load(
    db: &PgPool,
    project: &Project,
    filter: &ListFilter,
    paging: Paging,
    user: Option<Uuid>,
) -> AppResult<Loaded> {
    let (entries, total) = feedback::list(db, project.id, filter, paging).await?;
    let entries: Vec<Feedback> = entries.into_iter().map(Feedback::public).collect();
    let ids: Vec<Uuid> = entries.iter().map(|e| e.id).collect();
    let my_votes = match user {
        Some(u) => feedback::user_votes(db, project.id, u).await?,
        None => Vec::new(),
    };
    let (comments, shipped_in) = tokio::try_join!(
        comments::counts(db, &ids),
        changelog::shipped_in(db, project.id, &ids),
    )?;
    Ok(Loaded {
        entries,
        total,
        my_votes: my_votes.into_iter().collect(),
        comments: comments.into_iter().collect(),
        shipped_in,
    })
}

/// `/f/{slug}` and `/f/{slug}/b/{board}`.
#[derive(serde::Deserialize)]
pub struct BoardPath {
    slug: String,
    board: Option<String>,
}

/// The boards a visitor sees: a signed-in member of the team sees them all; the page knows no
/// end-user sessions (those reach segment boards through the widgets and the API).
async fn visible_to(state: &AppState, user: Option<Uuid>, project_id: Uuid) -> AppResult<Visible> {
    let audience = match user {
        Some(u) => audience::team_or_public(state, u, project_id)
            .await
            .map_err(|e| e.0)?,
        None => Audience::Public,
    };
    boards::visible(&state.db, project_id, &audience).await
}

pub async fn board(
    State(state): State<AppState>,
    Path(BoardPath { slug, board }): Path<BoardPath>,
    Query(q): Query<HashMap<String, String>>,
    MaybeUser(user): MaybeUser,
    ReadDb(reads): ReadDb,
) -> Response {
    let project = match projects::by_slug(&state.db, &slug).await {
        Ok(p) => p,
        Err(e) => return error_page(e),
    };
    let user_id = user.as_ref().map(|u| u.id);
    let visible = match visible_to(&state, user_id, project.id).await {
        Ok(v) => v,
        Err(e) => return error_page(e),
    };
    let current = match board.as_deref().map(|b| visible.by_slug(b)).transpose() {
        Ok(b) => b.cloned(),
        Err(e) => return error_page(e),
    };
    // A hand-edited query should not cost the visitor the page: show everything instead.
    let mut filter = ListFilter {
        public: true,
        boards: match &current {
            Some(b) => Some(vec![b.id]),
            None => visible.filter(),
        },
        ..parse_filter(&q).unwrap_or_default()
    };
    // The customer value behind entries is the team's: the board orders by votes or age only.
    if filter.sort.by_value() {
        filter.sort = FeedbackSort::Top;
    }
    let paging = Paging {
        page: Paging::parse(&q).map(|p| p.page).unwrap_or(1),
        per_page: PER_PAGE,
    };
    let loaded = match reads
        .run(|db| load(db, &project, &filter, paging, user_id))
        .await
    {
        Ok(l) => l,
        Err(e) => return error_page(e),
    };
    let filtered = filter.kind.is_some() || filter.status.is_some();
    let sort = if filter.sort == FeedbackSort::New {
        "new"
    } else {
        "top"
    };
    let noun = if loaded.total == 1 {
        "entry"
    } else {
        "entries"
    };
    let matching = if filtered {
        " matching these filters"
    } else {
        ""
    };
    let board_href = match &current {
        Some(b) => format!("/f/{}/b/{}", project.slug, b.slug),
        None => format!("/f/{}", project.slug),
    };
    let sign_in_href = format!("/login?next={board_href}");
    let ctx = Context {
        slug: &project.slug,
        signed_in: user.is_some(),
        sign_in_href: &sign_in_href,
    };

    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Feedback board" }
            h1 {
                (project.name)
                @if let Some(b) = &current { " · " (b.name) }
            }
            p class="muted" {
                span id="entry-count" { (loaded.total) } " " (noun) (matching)
                " · " a href={ "/f/" (project.slug) "/roadmap" } { "Roadmap" }
            }
            p class="who" {
                @match &user {
                    Some(u) => {
                        "Signed in as "
                        (if u.name.trim().is_empty() { &u.email } else { &u.name })
                    }
                    None => {
                        a class="button button-secondary" href=(sign_in_href) { "Sign in to vote" }
                    }
                }
            }
        }
        (switcher(&project.slug, &visible.boards, current.as_ref()))
        (form::submit_form(&project, current.as_ref().map(|b| b.slug.as_str()), user.is_some()))
        form class="card filters" method="get" action=(board_href) role="search" aria-label="Filter feedback" {
            label { "Type " select name="type" { (options(filter.kind.map(|k| k.as_str()), Some("All types"), TYPES)) } }
            label { "Status " select name="status" { (options(filter.status.map(|k| k.as_str()), Some("All statuses"), STATUSES)) } }
            label { "Sort " select name="sort" { (options(Some(sort), None, SORTS)) } }
            button type="submit" { "Apply" }
        }
        p class="board-msg" id="board-msg" role="status" aria-live="polite" {}
        @if loaded.entries.is_empty() {
            section class="card empty" {
                p {
                    @if paging.page > 1 && loaded.total > 0 {
                        "There is nothing on this page. "
                        a href=(page_href(&board_href, &filter, 1)) { "Go to the first page" }
                    } @else if filtered {
                        "No feedback matches these filters. "
                        a href=(board_href) { "Show everything" }
                    } @else {
                        "No feedback yet. Ideas, bugs and requests will show up here."
                    }
                }
            }
        }
        ul class="entries" id="entries" {
            @for e in &loaded.entries {
                (entry::entry(&ctx, &Row {
                    entry: e,
                    my_vote: loaded.my_votes.get(&e.id).copied().unwrap_or(0),
                    comments: loaded.comments.get(&e.id).copied().unwrap_or(0),
                    shipped_in: loaded.shipped_in.iter().filter(|s| s.feedback_id == e.id).collect(),
                }))
            }
        }
        (pager(&board_href, &filter, paging, loaded.total))
    };

    let title = format!("{} feedback", project.name);
    html_page(
        StatusCode::OK,
        layout(&title, body, &["/assets/board.js", "/assets/board-form.js"]),
    )
}

/// Links to each board the visitor sees (none when there is only one).
fn switcher(slug: &str, boards: &[Board], current: Option<&Board>) -> Markup {
    html! {
        @if boards.len() > 1 {
            nav class="boards" aria-label="Boards" {
                a href={ "/f/" (slug) } aria-current=[current.is_none().then_some("page")] { "All boards" }
                @for b in boards {
                    a href={ "/f/" (slug) "/b/" (b.slug) }
                        aria-current=[current.is_some_and(|c| c.id == b.id).then_some("page")] { (b.name) }
                }
            }
        }
    }
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

/// The board's address for `page`, keeping the visitor's filters and sort.
fn page_href(base: &str, filter: &ListFilter, page: i64) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    if let Some(kind) = filter.kind {
        q.append_pair("type", kind.as_str());
    }
    if let Some(status) = filter.status {
        q.append_pair("status", status.as_str());
    }
    if filter.sort == FeedbackSort::New {
        q.append_pair("sort", "new");
    }
    if page > 1 {
        q.append_pair("page", &page.to_string());
    }
    let q = q.finish();
    if q.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{q}")
    }
}

fn pager(base: &str, filter: &ListFilter, paging: Paging, total: i64) -> Markup {
    let pages = (total + paging.per_page - 1) / paging.per_page;
    html! {
        @if pages > 1 {
            nav class="pager" aria-label="Pages" {
                @if paging.page > 1 {
                    a rel="prev" href=(page_href(base, filter, (paging.page - 1).min(pages))) { "← Previous" }
                }
                span class="muted" { "Page " (paging.page) " of " (pages) }
                @if paging.page < pages {
                    a rel="next" href=(page_href(base, filter, paging.page + 1)) { "Next →" }
                }
            }
        }
    }
}
