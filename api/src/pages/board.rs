//! `/f/{slug}`: the public feedback board. Filters are a plain GET form so the page works without
//! JavaScript; signed-in visitors get vote buttons that `/assets/board.js` wires up.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use shipmate_shared::feedback::{self, Feedback};
use shipmate_shared::projects::{self, Project};
use uuid::Uuid;

use super::{error_page, esc, html_page, human_date, layout};
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
    let filter = parse_filter(&q).unwrap_or_default();
    let entries: Vec<Feedback> = match feedback::list(&state.db, project.id, &filter).await {
        Ok(list) => list.into_iter().map(Feedback::public).collect(),
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

    let mut body = String::with_capacity(4096 + entries.len() * 700);
    let count = entries.len();
    let noun = if count == 1 { "entry" } else { "entries" };
    let matching = if filtered {
        " matching these filters"
    } else {
        ""
    };
    let who = match &user {
        Some(u) => format!(
            "Signed in as {}",
            esc(if u.name.trim().is_empty() {
                &u.email
            } else {
                &u.name
            })
        ),
        None => format!(
            "<a class=\"button button-secondary\" href=\"{}\">Sign in to vote</a>",
            esc(&sign_in_href(&project))
        ),
    };
    body.push_str(&format!(
        "<header class=\"page-head\">\n<p class=\"eyebrow\">Feedback board</p>\n<h1>{name}</h1>\n\
         <p class=\"muted\"><span id=\"entry-count\">{count}</span> {noun}{matching}</p>\n\
         <p class=\"who\">{who}</p>\n</header>\n",
        name = esc(&project.name),
    ));

    body.push_str(&format!(
        "<form class=\"card filters\" method=\"get\" action=\"/f/{slug}\" role=\"search\" aria-label=\"Filter feedback\">\n\
         <label>Type <select name=\"type\">{types}</select></label>\n\
         <label>Status <select name=\"status\">{statuses}</select></label>\n\
         <label>Sort <select name=\"sort\">{sorts}</select></label>\n\
         <button type=\"submit\">Apply</button>\n</form>\n",
        slug = esc(&project.slug),
        types = options(filter.kind.map(|k| k.as_str()), Some("All types"), TYPES),
        statuses = options(filter.status.map(|k| k.as_str()), Some("All statuses"), STATUSES),
        sorts = options(Some(sort), None, SORTS),
    ));

    body.push_str(
        "<p class=\"board-msg\" id=\"board-msg\" role=\"status\" aria-live=\"polite\"></p>\n",
    );
    if entries.is_empty() {
        let text = if filtered {
            format!(
                "No feedback matches these filters. <a href=\"/f/{}\">Show everything</a>",
                esc(&project.slug)
            )
        } else {
            "No feedback yet. Ideas, bugs and requests will show up here.".to_owned()
        };
        body.push_str(&format!(
            "<section class=\"card empty\">\n<p>{text}</p>\n</section>\n"
        ));
    } else {
        body.push_str("<ul class=\"entries\">\n");
        for e in &entries {
            let mine = my_votes.get(&e.id).copied().unwrap_or(0);
            body.push_str(&entry_html(e, user.is_some(), mine));
        }
        body.push_str("</ul>\n");
    }

    let title = format!("{} feedback", project.name);
    let scripts: &[&str] = if user.is_some() {
        &["/assets/board.js"]
    } else {
        &[]
    };
    html_page(StatusCode::OK, layout(&title, &body, scripts))
}

/// The sign-in page (password and every configured provider), coming back to this board.
fn sign_in_href(project: &Project) -> String {
    format!("/login?next=/f/{}", project.slug)
}

fn options(current: Option<&str>, all: Option<&str>, values: &[(&str, &str)]) -> String {
    let mut out = String::new();
    if let Some(all) = all {
        out.push_str(&format!("<option value=\"\">{}</option>", esc(all)));
    }
    for (value, label) in values {
        let selected = if current == Some(*value) {
            " selected"
        } else {
            ""
        };
        out.push_str(&format!(
            "<option value=\"{}\"{selected}>{}</option>",
            esc(value),
            esc(label)
        ));
    }
    out
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

fn entry_html(e: &Feedback, signed_in: bool, my_vote: i16) -> String {
    let id = e.id.to_string();
    // Only feature requests take votes; the server answers 422 for the others.
    let votable = signed_in && e.kind == shipmate_shared::feedback::FeedbackType::Feature;
    let button = |dir: &str, glyph: &str, label: &str, active: bool| {
        if !votable {
            return String::new();
        }
        let on = if active { " is-active" } else { "" };
        format!(
            "<button type=\"button\" class=\"vote vote-{dir}{on}\" data-vote=\"{dir}\" data-id=\"{id}\" \
             aria-pressed=\"{active}\" aria-label=\"{label}\" title=\"{label}\">{glyph}</button>"
        )
    };
    let up = button("up", "&#9650;", "Upvote", my_vote > 0);
    let down = button("down", "&#9660;", "Downvote", my_vote < 0);
    let description = match e
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(d) => format!("<p class=\"desc\">{}</p>\n", esc(d)),
        None => String::new(),
    };
    format!(
        "<li class=\"card entry\" data-entry=\"{id}\" id=\"entry-{id}\">\n\
         <div class=\"tally\">{up}<span class=\"score\" data-score title=\"Score\">{score}</span>{down}</div>\n\
         <div class=\"entry-body\">\n<h2 class=\"entry-title\">{title}</h2>\n{description}\
         <p class=\"meta\"><span class=\"label type-{kind_class}\">{kind}</span> \
         <span class=\"badge status-{status_class}\">{status}</span> \
         <span class=\"counts\"><span data-upvotes>{upvotes}</span> up &middot; <span data-downvotes>{downvotes}</span> down</span> \
         <time datetime=\"{iso}\">{date}</time></p>\n</div>\n</li>\n",
        score = e.score,
        title = esc(&e.title),
        kind_class = class_for(e.kind.as_str()),
        kind = esc(label_for(TYPES, e.kind.as_str())),
        status_class = class_for(e.status.as_str()),
        status = esc(label_for(STATUSES, e.status.as_str())),
        upvotes = e.upvotes,
        downvotes = e.downvotes,
        iso = e.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        date = human_date(e.created_at),
    )
}
