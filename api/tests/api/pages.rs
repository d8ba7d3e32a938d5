//! The server-rendered public pages: feedback board, testimonial form, changelog and its feed.

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

pub(crate) struct Page {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Page {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }
}

pub(crate) async fn get_page(app: &TestApp, path: &str, session: Option<&str>) -> Page {
    let mut req = app.client.get(app.url(path));
    if let Some(token) = session {
        req = req.header("cookie", format!("shipmate_session={token}"));
    }
    let res = req.send().await.expect("request");
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.text().await.expect("body");
    Page {
        status,
        headers,
        body,
    }
}

pub(crate) async fn submit(app: &TestApp, project: &Value, body: Value) -> Value {
    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(project)),
            Some(body),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    entry
}

async fn upvote(app: &TestApp, token: &str, entry: &Value) {
    let (status, body) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(entry)),
            Auth::Session(token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

pub(crate) async fn changelog_entry(
    app: &TestApp,
    owner: &str,
    project: &Value,
    body: Value,
) -> Value {
    let path = format!("/v1/changelog/dashboard/{}", id(project));
    let (status, entry) = app
        .call(Method::POST, &path, Auth::Session(owner), Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    entry
}

pub(crate) fn assert_html(page: &Page) {
    assert!(
        page.header("content-type").starts_with("text/html"),
        "{}",
        page.header("content-type")
    );
}

#[tokio::test]
async fn board_page_lists_entries_with_counts_and_escapes_html_in_titles() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pg-board").await;
    let feature = submit(&app, &project, json!({"title": "Dark mode", "type": "feature", "description": "Please & thanks", "submitter_email": "secret-person@example.com"})).await;
    submit(
        &app,
        &project,
        json!({"title": "<script>alert(1)</script>", "type": "bug"}),
    )
    .await;
    upvote(&app, &owner, &feature).await;
    let voter = app.login("voter@example.com").await;
    upvote(&app, &voter, &feature).await;

    let page = get_page(&app, "/f/pg-board", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_html(&page);
    let b = &page.body;
    assert!(
        b.contains("Project pg-board"),
        "the project's name is in the header"
    );
    assert!(b.contains("<span id=\"entry-count\">2</span> entries"));
    assert!(b.contains("Dark mode"));
    assert!(b.contains("Please &amp; thanks"));
    assert!(b.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!b.contains("<script>alert(1)</script>"));
    assert!(
        b.contains("<span data-upvotes>2</span>"),
        "vote counts are shown"
    );
    assert!(b.contains("<span class=\"score\" data-score title=\"Score\">2</span>"));
    assert!(
        !b.contains("secret-person@example.com"),
        "submitters' addresses stay private"
    );
    assert!(b.contains("Sign in to vote"));
    assert!(
        !b.contains("data-vote="),
        "anonymous visitors get no vote buttons"
    );
    let top = b.find("Dark mode").expect("feature listed");
    let bug = b.find("&lt;script&gt;").expect("bug listed");
    assert!(top < bug, "sorted by score by default");

    let (_, other) = app.owner_with_project("pg-empty").await;
    let page = get_page(
        &app,
        &format!("/f/{}", other["slug"].as_str().expect("slug")),
        None,
    )
    .await;
    assert!(page.body.contains("No feedback yet"));
}

#[tokio::test]
async fn signed_in_visitors_get_vote_buttons_on_feature_requests_with_their_own_vote_marked() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("pg-votes").await;
    let feature = submit(
        &app,
        &project,
        json!({"title": "Export to CSV", "type": "feature"}),
    )
    .await;
    let bug = submit(
        &app,
        &project,
        json!({"title": "Broken link", "type": "bug"}),
    )
    .await;
    let voter = app.login("cookie-voter@example.com").await;
    upvote(&app, &voter, &feature).await;

    let page = get_page(&app, "/f/pg-votes", Some(voter.as_str())).await;
    assert_eq!(page.status, StatusCode::OK);
    let b = &page.body;
    assert!(b.contains("Signed in as"));
    assert!(b.contains("<script src=\"/assets/board.js\" defer></script>"));
    assert!(b.contains(&format!(
        "data-vote=\"up\" data-id=\"{}\" aria-pressed=\"true\"",
        id(&feature)
    )));
    assert!(b.contains(&format!(
        "data-vote=\"down\" data-id=\"{}\" aria-pressed=\"false\"",
        id(&feature)
    )));
    assert!(
        !b.contains(&format!("data-id=\"{}\"", id(&bug))),
        "bugs take no votes"
    );

    let page = get_page(&app, "/f/pg-votes", Some("st_not_a_real_token")).await;
    assert_eq!(
        page.status,
        StatusCode::OK,
        "a stale cookie is just an anonymous visit"
    );
    assert!(page.body.contains("Sign in to vote"));
}

#[tokio::test]
async fn board_404_for_unknown_slug_is_html_with_status_404() {
    let app = spawn_app().await;
    for path in [
        "/f/no-such-project",
        "/t/no-such-project",
        "/c/no-such-project",
        "/c/no-such-project/feed.xml",
    ] {
        let page = get_page(&app, path, None).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert_html(&page);
        assert!(page.body.contains("Page not found"), "{path}");
        assert!(page.body.starts_with("<!doctype html>"));
    }
}

#[tokio::test]
async fn board_filter_by_type_works() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("pg-filter").await;
    submit(
        &app,
        &project,
        json!({"title": "Crash on save", "type": "bug"}),
    )
    .await;
    submit(
        &app,
        &project,
        json!({"title": "Dark mode", "type": "feature"}),
    )
    .await;
    submit(
        &app,
        &project,
        json!({"title": "Love it", "type": "feedback"}),
    )
    .await;

    let page = get_page(&app, "/f/pg-filter?type=bug", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Crash on save"));
    assert!(!page.body.contains("Dark mode") && !page.body.contains("Love it"));
    assert!(
        page.body.contains("<option value=\"bug\" selected>"),
        "the form keeps the filter"
    );
    assert!(page.body.contains("1</span> entry matching these filters"));

    let page = get_page(&app, "/f/pg-filter?status=planned&sort=new", None).await;
    assert!(page.body.contains("Dark mode"));
    assert!(!page.body.contains("Crash on save") && !page.body.contains("Love it"));
    assert!(page.body.contains("<option value=\"new\" selected>"));

    let page = get_page(&app, "/f/pg-filter?type=bug&status=shipped", None).await;
    assert!(page.body.contains("No feedback matches these filters"));

    let page = get_page(&app, "/f/pg-filter?type=nonsense", None).await;
    assert_eq!(
        page.status,
        StatusCode::OK,
        "a bad filter shows the whole board"
    );
    for title in ["Crash on save", "Dark mode", "Love it"] {
        assert!(page.body.contains(title), "{title}");
    }
}

#[tokio::test]
async fn testimonial_page_has_the_form_fields_and_honeypot() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pg-tform").await;
    let page = get_page(&app, "/t/pg-tform", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_html(&page);
    let b = &page.body;
    for field in [
        "author_name",
        "author_email",
        "author_title",
        "content",
        "tweet_url",
    ] {
        assert!(b.contains(&format!("name=\"{field}\"")), "{field}");
        assert!(
            b.contains(&format!("id=\"err-{field}\"")),
            "error slot for {field}"
        );
    }
    assert_eq!(b.matches("name=\"rating\"").count(), 5, "five star radios");
    for n in 1..=5 {
        assert!(b.contains(&format!(
            "<input type=\"radio\" id=\"rating-{n}\" name=\"rating\" value=\"{n}\""
        )));
        assert!(b.contains(&format!("<label for=\"rating-{n}\"")));
    }
    assert!(b.contains("<div class=\"hp\" aria-hidden=\"true\">"));
    assert!(b.contains("name=\"website\" type=\"text\" tabindex=\"-1\" autocomplete=\"off\""));
    assert!(b.contains("data-slug=\"pg-tform\""));
    assert!(b.contains(" novalidate>"));
    assert!(b.contains("id=\"thanks\" class=\"card thanks hidden\""));
    assert!(b.contains("<script src=\"/assets/testimonial.js\" defer></script>"));

    // Without JavaScript the browser posts the form here: explained, and nothing stored.
    let res = app
        .client
        .post(app.url("/t/pg-tform"))
        .form(&[("author_name", "A"), ("website", "")])
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(res.text().await.expect("body").contains("needs JavaScript"));
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/testimonials/all?project_id={}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["stats"]["total"], 0);
}

#[tokio::test]
async fn changelog_page_shows_published_entries_only_never_a_draft() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pg-clog").await;
    let published = changelog_entry(&app, &owner, &project, json!({"title": "Shipped search", "content": "Find anything.", "type": "feature", "published": true})).await;
    changelog_entry(&app, &owner, &project, json!({"title": "Secret pricing", "content": "Not yet.", "type": "breaking", "published": false})).await;

    let page = get_page(&app, "/c/pg-clog", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_html(&page);
    assert!(page.body.contains("Shipped search"));
    assert!(page.body.contains("<p>Find anything.</p>"));
    assert!(!page.body.contains("Secret pricing") && !page.body.contains("Not yet."));
    assert!(page
        .body
        .contains("<link rel=\"alternate\" type=\"application/atom+xml\""));
    assert!(page.body.contains("href=\"/c/pg-clog/feed.xml\""));
    let when = chrono::DateTime::parse_from_rfc3339(
        published["published_at"].as_str().expect("published_at"),
    )
    .expect("RFC 3339");
    let human = when
        .with_timezone(&chrono::Utc)
        .format("%-d %b %Y")
        .to_string();
    assert!(page.body.contains(&human), "dates read like {human}");

    let feed = get_page(&app, "/c/pg-clog/feed.xml", None).await;
    assert_eq!(feed.status, StatusCode::OK);
    assert!(feed.body.contains("Shipped search"));
    assert!(!feed.body.contains("Secret pricing") && !feed.body.contains("Not yet."));
    assert_eq!(feed.body.matches("<entry>").count(), 1);
}

#[tokio::test]
async fn markdown_with_scripts_and_javascript_links_is_rendered_inert_on_the_page_and_in_the_feed()
{
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pg-xss").await;
    let content = "## Highlights\n\n- **Faster** search\n- ~~old~~ gone\n\n<script>alert(1)</script>\n\n\
        [x](javascript:alert(1)) and <img src=\"x\" onerror=\"alert(2)\"> and [docs](https://example.com/docs)\n";
    changelog_entry(&app, &owner, &project, json!({"title": "Big release", "content": content, "type": "improvement", "published": true})).await;

    let page = get_page(&app, "/c/pg-xss", None).await;
    assert_eq!(page.status, StatusCode::OK);
    let b = &page.body;
    assert!(b.contains("<h2>Highlights</h2>"));
    assert!(b.contains("<strong>Faster</strong>"));
    assert!(b.contains("<del>old</del>"));
    assert!(b.contains("href=\"https://example.com/docs\""));
    assert!(b.contains("rel=\"noopener noreferrer nofollow\""));
    for bad in ["alert(1)", "alert(2)", "javascript:", "onerror", "<script>"] {
        assert!(!b.contains(bad), "page contains {bad}");
    }

    let feed = get_page(&app, "/c/pg-xss/feed.xml", None).await;
    assert!(
        feed.body.contains("&lt;strong&gt;Faster&lt;/strong&gt;"),
        "HTML content is XML-escaped"
    );
    for bad in [
        "alert(1)",
        "alert(2)",
        "javascript:",
        "onerror",
        "<script",
        "&lt;script",
    ] {
        assert!(!feed.body.contains(bad), "feed contains {bad}");
    }
}

#[tokio::test]
async fn feed_has_the_atom_namespace_and_content_type() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pg-feed").await;
    let empty = get_page(&app, "/c/pg-feed/feed.xml", None).await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(
        empty.body.contains("<updated>") && !empty.body.contains("<entry>"),
        "an empty feed is still a feed"
    );

    let entry = changelog_entry(&app, &owner, &project, json!({"title": "Fixed <login> & more", "content": "Details", "type": "fix", "published": true})).await;
    let feed = get_page(&app, "/c/pg-feed/feed.xml", None).await;
    assert_eq!(feed.status, StatusCode::OK);
    assert!(
        feed.header("content-type")
            .starts_with("application/atom+xml"),
        "{}",
        feed.header("content-type")
    );
    let b = &feed.body;
    assert!(b.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>"));
    assert!(b.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
    let page_url = format!("{}/c/pg-feed", app.base);
    assert!(b.contains(&format!("<id>{page_url}</id>")));
    assert!(b.contains(&format!(
        "<link rel=\"self\" type=\"application/atom+xml\" href=\"{page_url}/feed.xml\"/>"
    )));
    assert!(b.contains("<author><name>Project pg-feed</name></author>"));
    assert!(b.contains(&format!("<id>urn:uuid:{}</id>", id(&entry))));
    assert!(b.contains(&format!("href=\"{page_url}#{}\"", id(&entry))));
    assert!(b.contains("<title>Fixed &lt;login&gt; &amp; more</title>"));
    assert!(b.contains("<category term=\"fix\"/>"));
    assert!(b.contains("<content type=\"html\">&lt;p&gt;Details&lt;/p&gt;"));
    assert!(b.contains("<published>") && b.trim_end().ends_with("</feed>"));
}

#[tokio::test]
async fn every_html_page_carries_the_csp_header_without_unsafe_inline_and_frame_ancestors() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pg-csp").await;
    submit(
        &app,
        &project,
        json!({"title": "Dark mode", "type": "feature"}),
    )
    .await;
    changelog_entry(
        &app,
        &owner,
        &project,
        json!({"title": "Hello", "content": "*hi*", "type": "feature", "published": true}),
    )
    .await;
    for path in [
        "/f/pg-csp",
        "/f/pg-csp/roadmap",
        "/t/pg-csp",
        "/c/pg-csp",
        "/f/unknown-slug",
        "/c/unknown-slug",
    ] {
        let page = get_page(&app, path, None).await;
        assert_html(&page);
        let csp = page.header("content-security-policy");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(
            csp.contains("script-src 'self'") && csp.contains("default-src 'self'"),
            "{path}: {csp}"
        );
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{path}: {csp}"
        );
        assert_eq!(page.header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(
            page.header("referrer-policy"),
            "strict-origin-when-cross-origin",
            "{path}"
        );
        // Nothing the policy would block: no inline scripts or style attributes.
        assert!(
            !page.body.contains("<script>") && !page.body.contains(" style="),
            "{path}"
        );
    }
    let page = get_page(&app, "/f/pg-csp", Some(owner.as_str())).await;
    assert!(page
        .header("content-security-policy")
        .contains("frame-ancestors 'none'"));
}

#[tokio::test]
async fn page_assets_are_served_with_their_content_types_and_caching() {
    let app = spawn_app().await;
    for (path, ct) in [
        ("/assets/app.css", "text/css"),
        ("/assets/board.js", "text/javascript"),
        ("/assets/board-form.js", "text/javascript"),
        ("/assets/testimonial.js", "text/javascript"),
    ] {
        let page = get_page(&app, path, None).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert!(page.header("content-type").starts_with(ct), "{path}");
        assert_eq!(
            page.header("cache-control"),
            "public, max-age=3600",
            "{path}"
        );
        assert!(!page.body.is_empty());
    }
}
