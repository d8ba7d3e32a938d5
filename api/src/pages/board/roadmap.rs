//! `/f/{slug}/roadmap`: approved feature requests in three columns (planned, in progress, shipped
//! in the last 90 days), each in the board's `top` order. Plain HTML, no script.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use shipmate_accounts::projects::{self, Project};
use shipmate_feedback::changelog::{self, ShippedIn};
use shipmate_feedback::feedback::roadmap::{self, Roadmap};
use shipmate_feedback::feedback::Feedback;
use uuid::Uuid;

use super::entry::shipped_in;
use crate::extract::MaybeUser;
use crate::pages::{error_page, html_page, layout};
use crate::read_your_writes::ReadDb;
use crate::state::AppState;
use shipmate_core::AppResult;
use sqlx::PgPool;

async fn load(
    db: &PgPool,
    project: &Project,
    boards: Option<&[Uuid]>,
) -> AppResult<(Roadmap, Vec<ShippedIn>)> {
    let road = roadmap::roadmap(db, project.id, None, boards).await?;
    let shipped: Vec<Uuid> = road.shipped.iter().map(|e| e.id).collect();
    let links = changelog::shipped_in(db, project.id, &shipped).await?;
    Ok((road, links))
}

/// The roadmap of the boards the visitor sees (every board for a signed-in member of the team).
pub async fn page(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    MaybeUser(user): MaybeUser,
    Path(slug): Path<String>,
) -> Response {
    let project = match projects::by_slug(&state.db, &slug).await {
        Ok(p) => p,
        Err(e) => return error_page(e),
    };
    let boards = match super::visible_to(&state, user.map(|u| u.id), project.id).await {
        Ok(v) => v.filter(),
        Err(e) => return error_page(e),
    };
    let (road, links) = match reads.run(|db| load(db, &project, boards.as_deref())).await {
        Ok(v) => v,
        Err(e) => return error_page(e),
    };
    let board = format!("/f/{}", project.slug);
    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Roadmap" }
            h1 { (project.name) }
            p class="muted" {
                "What the team plans, is building, and shipped lately. "
                a href=(board) { "All feedback" }
            }
        }
        div class="roadmap" {
            (column("planned", "Planned", "Nothing planned right now.", &road.planned, &project.slug, &links))
            (column("in_progress", "In progress", "Nothing in progress right now.", &road.in_progress, &project.slug, &links))
            (column("shipped", "Shipped", "Nothing shipped in the last 90 days.", &road.shipped, &project.slug, &links))
        }
    };
    let title = format!("{} roadmap", project.name);
    html_page(StatusCode::OK, layout(&title, body, &[]))
}

fn column(
    key: &str,
    name: &str,
    empty: &str,
    entries: &[Feedback],
    slug: &str,
    links: &[ShippedIn],
) -> Markup {
    let head = format!("col-{key}");
    html! {
        section class={ "road-col status-col-" (key) } data-column=(key) aria-labelledby=(head) {
            h2 id=(head) { (name) " " span class="road-count" { (entries.len()) } }
            @if entries.is_empty() {
                p class="muted road-empty" { (empty) }
            } @else {
                ul class="road-items" {
                    @for e in entries {
                        @let votes = if e.score == 1 { "vote" } else { "votes" };
                        li class="card road-item" data-entry=(e.id) {
                            h3 { (e.title) }
                            p class="muted" { (e.score) " " (votes) }
                            (shipped_in(slug, &links.iter().filter(|s| s.feedback_id == e.id).collect::<Vec<_>>()))
                        }
                    }
                }
            }
        }
    }
}
