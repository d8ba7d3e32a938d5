//! `/share/<token>`: a project's analytics, read-only, for anyone with the link (no sign-in, no
//! script). It takes the reads' query (`period`, `from`/`to`, the filters); a revoked or unknown
//! token is 404. A link locked to a segment shows that segment only.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};
use shipmate_analytics::query::Dim;
use shipmate_analytics::seam::Row;
use shipmate_analytics::{shares, ReadQuery};

use super::{error_page, html_page, layout};
use crate::problem::ApiResult;
use crate::state::AppState;

pub async fn page(
    State(state): State<AppState>,
    Path(token): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    match render(&state, &token, &q).await {
        Ok(page) => html_page(StatusCode::OK, page),
        Err(e) => error_page(e),
    }
}

async fn render(state: &AppState, token: &str, q: &HashMap<String, String>) -> ApiResult<Markup> {
    let (project_id, segment) = shares::opened_by(&state.db, token).await?;
    let name: String = sqlx::query_scalar!("select name from projects where id = $1", project_id)
        .fetch_one(&state.db)
        .await?;
    let now = chrono::Utc::now();
    // A bad parameter in a shared link shows the default view rather than an error page.
    let mut query = ReadQuery::parse(q, now).or_else(|_| ReadQuery::parse(&HashMap::new(), now))?;
    // A link locked to a segment adds its filters to whatever the visitor asks: never fewer.
    query.filters.and(&segment);
    let read = state.events.reader(project_id, &query).await?;
    let (overview, pages, referrers, countries, devices) = tokio::try_join!(
        read.overview(),
        read.breakdown(Dim::Page),
        read.breakdown(Dim::Referrer),
        read.breakdown(Dim::Country),
        read.breakdown(Dim::Device),
    )?;
    let range = format!("{} to {}", query.range.start, query.range.end);
    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Analytics" }
            h1 { (name) }
            p class="muted" { (range) " (UTC)" }
            nav class="share-periods" {
                @for p in ["7d", "30d", "90d"] {
                    a href={ "?period=" (p) } { (p) } " "
                }
            }
        }
        section class="card share-figures" {
            dl {
                dt { "Unique visitors" } dd data-figure="unique_visitors" { (overview.unique_visitors) }
                dt { "Page views" } dd data-figure="page_views" { (overview.page_views) }
                dt { "Visits" } dd data-figure="visits" { (overview.visits) }
                dt { "Bounce rate" } dd data-figure="bounce_rate" { (overview.bounce_rate) "%" }
                dt { "Visit duration" } dd data-figure="visit_duration" { (overview.visit_duration) " s" }
            }
        }
        (table("Pages", "Page", &pages))
        (table("Referrers", "Referrer", &referrers))
        (table("Countries", "Country", &countries))
        (table("Devices", "Device", &devices))
    };
    Ok(layout(&format!("{name} analytics"), body, &[]))
}

fn table(title: &str, label: &str, rows: &[Row]) -> Markup {
    html! {
        section class="card" {
            h2 { (title) }
            @if rows.is_empty() {
                p class="muted" { "Nothing in this period." }
            } @else {
                table {
                    thead { tr { th { (label) } th { "Visitors" } th { "Views" } } }
                    tbody {
                        @for r in rows.iter().take(20) {
                            tr { td { (r.key) } td { (r.visitors) } td { (r.views) } }
                        }
                    }
                }
            }
        }
    }
}
