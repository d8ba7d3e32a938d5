//! `/c/{slug}` and its Atom feed: published entries only. Entry content is Markdown written by the
//! project owner; it is rendered and then sanitised, because the page is on our origin and a
//! stolen owner account must not be able to plant script for every visitor.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use maud::{html, Markup, PreEscaped};
use pulldown_cmark::{Options, Parser};
use shipmate_accounts::projects::{self, Project};
use shipmate_core::params::Paging;
use shipmate_feedback::changelog::{self, Answered, Entry};

use super::{error_page, html_page, human_date, layout, layout_with_head};
use crate::read_your_writes::ReadDb;
use crate::state::AppState;
use shipmate_core::AppResult;
use sqlx::PgPool;

const KINDS: &[(&str, &str)] = &[
    ("feature", "New"),
    ("improvement", "Improved"),
    ("fix", "Fixed"),
    ("breaking", "Breaking"),
];

pub(crate) fn sanitizer() -> ammonia::Builder<'static> {
    let mut b = ammonia::Builder::default();
    b.link_rel(Some("noopener noreferrer nofollow"));
    b
}

/// Markdown to safe HTML: ammonia drops `<script>` (with its content), event handlers, inline
/// styles and `javascript:` URLs, whatever the Markdown let through.
pub(crate) fn render_markdown(md: &str, cleaner: &ammonia::Builder<'_>) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    let mut html = String::with_capacity(md.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(md, opts));
    cleaner.clean(&html).to_string()
}

fn kind_label(kind: &str) -> &str {
    KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, l)| *l)
        .unwrap_or(kind)
}

fn kind_class(kind: &str) -> &str {
    if KINDS.iter().any(|(k, _)| *k == kind) {
        kind
    } else {
        "other"
    }
}

fn rfc3339(d: DateTime<Utc>) -> String {
    d.to_rfc3339_opts(SecondsFormat::Secs, true)
}

async fn load(db: &PgPool, slug: &str) -> AppResult<(Project, Vec<Entry>)> {
    let project = projects::by_slug(db, slug).await?;
    // The page and its feed show the latest 100; older entries stay in the API's pages.
    let (entries, _) = changelog::list(db, project.id, true, Paging::first(100)).await?;
    // `list(.., true)` already filters; this guards the page if that query ever changes.
    let entries: Vec<Entry> = entries.into_iter().filter(|e| e.published).collect();
    Ok((project, entries))
}

pub async fn page(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    Path(slug): Path<String>,
) -> Response {
    let (project, entries, answered) = match reads.run(|db| load_with_answers(db, &slug)).await {
        Ok(v) => v,
        Err(e) => return error_page(e),
    };
    let feed = format!("/c/{}/feed.xml", project.slug);
    let head = html! {
        link rel="alternate" type="application/atom+xml" title={ (project.name) " changelog" } href=(feed);
    };
    let cleaner = sanitizer();
    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Changelog" }
            h1 { (project.name) }
            p class="muted" {
                "New features, improvements and fixes. "
                a href=(feed) { "Subscribe to the Atom feed" }
            }
        }
        @if state.mail().configured {
            (subscribe_form(&project.slug, None))
        }
        @if entries.is_empty() {
            section class="card empty" { p { "No updates published yet. Check back soon." } }
        } @else {
            ol class="changelog" {
                @for e in &entries {
                    @let answers: Vec<&Answered> = answered.iter().filter(|a| a.entry_id == e.id).collect();
                    li { (release(e, &answers, &project.slug, &cleaner)) }
                }
            }
        }
    };
    let title = format!("{} changelog", project.name);
    html_page(StatusCode::OK, layout_with_head(&title, head, body, &[]))
}

/// The page also names the board's requests each entry answers.
async fn load_with_answers(
    db: &PgPool,
    slug: &str,
) -> AppResult<(Project, Vec<Entry>, Vec<Answered>)> {
    let (project, entries) = load(db, slug).await?;
    let ids: Vec<uuid::Uuid> = entries.iter().map(|e| e.id).collect();
    let answered = changelog::answered(db, project.id, &ids).await?;
    Ok((project, entries, answered))
}

fn release(e: &Entry, answers: &[&Answered], slug: &str, cleaner: &ammonia::Builder<'_>) -> Markup {
    let when = e.published_at.unwrap_or(e.created_at);
    html! {
        article class="card release" id=(e.id) {
            header class="release-head" {
                span class={ "label kind-" (kind_class(e.kind.as_str())) } { (kind_label(e.kind.as_str())) }
                " "
                time datetime=(rfc3339(when)) { (human_date(when)) }
                h2 { a href={ "#" (e.id) } { (e.title) } }
            }
            // Sanitised by ammonia in `render_markdown`, so it goes in as it is.
            div class="prose" { (PreEscaped(render_markdown(&e.content, cleaner))) }
            @if !answers.is_empty() {
                p class="answers" {
                    "Requested on the "
                    a href={ "/f/" (slug) } { "feedback board" }
                    ": "
                    @for (i, a) in answers.iter().enumerate() {
                        @if i > 0 { ", " }
                        a href={ "/f/" (slug) "#entry-" (a.feedback_id) } { (a.title) }
                    }
                }
            }
        }
    }
}

/// Email subscription without JavaScript: a plain form that posts to `/c/:slug/subscribe`.
fn subscribe_form(slug: &str, notice: Option<&str>) -> Markup {
    html! {
        section class="card subscribe" {
            form method="post" action={ "/c/" (slug) "/subscribe" } {
                label for="sub-email" { "Get new entries by email" }
                " "
                input type="email" id="sub-email" name="email" required autocomplete="email";
                " "
                button type="submit" class="button" { "Subscribe" }
            }
            @if let Some(n) = notice {
                p class="notice" role="status" { (n) }
            }
        }
    }
}

#[derive(serde::Deserialize)]
pub struct SubscribeForm {
    #[serde(default)]
    email: String,
}

/// The form's POST: the same double opt-in and per-client limit as the API's by-slug endpoint.
pub async fn subscribe(
    State(state): State<AppState>,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    headers: axum::http::HeaderMap,
    Path(slug): Path<String>,
    axum::Form(form): axum::Form<SubscribeForm>,
) -> Response {
    let project = match projects::by_slug(&state.db, &slug).await {
        Ok(p) => p,
        Err(e) => return error_page(e),
    };
    let client = crate::limits::bucket(state.client_ip(peer, &headers));
    let input = shipmate_types::input::Input::new(serde_json::json!({ "email": form.email }));
    let result = match (state.limits.write(client, project.id).await, input) {
        (Ok(()), Ok(input)) => {
            crate::routes::email::start_subscription(&state, &project, input).await
        }
        (Err(e), _) => Err(e),
        (_, Err(e)) => Err(e.into()),
    };
    let (status, notice) = match result {
        Ok(()) => (
            StatusCode::OK,
            "Almost done: open the link we just emailed you to confirm.".to_owned(),
        ),
        Err(e) => (e.status(), format!("Not subscribed: {e}")),
    };
    let body = html! {
        header class="page-head" {
            p class="eyebrow" { "Changelog" }
            h1 { (project.name) }
        }
        (subscribe_form(&project.slug, Some(&notice)))
        p { a href={ "/c/" (project.slug) } { "Back to the changelog" } }
    };
    html_page(
        status,
        layout(&format!("{} changelog", project.name), body, &[]),
    )
}

/// Text for the feed, escaped as maud escapes page text (`&`, `<`, `>`, `"`), which is what XML
/// content and double-quoted attributes need. The feed itself is not an `html!` template because
/// Atom's empty elements (`<link .../>`) must be self-closed, which maud does not write.
fn xml_escape(text: &str) -> String {
    html! { (text) }.into_string()
}

pub async fn feed(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    Path(slug): Path<String>,
) -> Response {
    let (project, entries) = match reads.run(|db| load(db, &slug)).await {
        Ok(v) => v,
        Err(e) => return error_page(e),
    };
    let page_url = format!("{}/c/{}", state.public_url, project.slug);
    let updated = entries
        .iter()
        .map(|e| e.updated_at)
        .max()
        .unwrap_or_else(Utc::now);
    let name = xml_escape(&project.name);
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <id>{page}</id>\n<title>{name} changelog</title>\n<updated>{updated}</updated>\n\
         <link rel=\"self\" type=\"application/atom+xml\" href=\"{page}/feed.xml\"/>\n\
         <link rel=\"alternate\" type=\"text/html\" href=\"{page}\"/>\n<author><name>{name}</name></author>\n",
        page = xml_escape(&page_url),
        updated = rfc3339(updated),
    );
    let cleaner = sanitizer();
    for e in &entries {
        let html = render_markdown(&e.content, &cleaner);
        xml.push_str(&format!(
            "<entry>\n<id>urn:uuid:{id}</id>\n<title>{title}</title>\n<updated>{updated}</updated>\n\
             <published>{published}</published>\n<link rel=\"alternate\" type=\"text/html\" href=\"{page}#{id}\"/>\n\
             <category term=\"{kind}\"/>\n<content type=\"html\">{content}</content>\n</entry>\n",
            id = e.id,
            title = xml_escape(&e.title),
            updated = rfc3339(e.updated_at),
            published = rfc3339(e.published_at.unwrap_or(e.created_at)),
            page = xml_escape(&page_url),
            kind = xml_escape(e.kind.as_str()),
            content = xml_escape(&html),
        ));
    }
    xml.push_str("</feed>\n");
    (
        [
            (header::CONTENT_TYPE, "application/atom+xml; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=60"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        xml,
    )
        .into_response()
}
