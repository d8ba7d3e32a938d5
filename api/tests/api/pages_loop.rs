//! The feedback loop on the public pages: the board's submission form, comments, "shipped in"
//! links, pages of 50, the roadmap, and the changelog's links back to the board.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::pages::{assert_html, changelog_entry, get_page, submit};

async fn set_status(app: &TestApp, owner: &str, entry: &Value, status: &str) {
    let (code, body) = app
        .call(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(entry)),
            Auth::Session(owner),
            Some(json!({ "status": status })),
        )
        .await;
    assert_eq!(code, StatusCode::OK, "{body}");
}

/// Where `needle` is in `haystack`, failing the test when it is absent.
fn at(haystack: &str, needle: &str) -> usize {
    haystack
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} is on the page"))
}

#[tokio::test]
async fn board_has_the_submission_form_with_an_off_screen_honeypot_and_escapes_titles() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("pl-form").await;
    submit(
        &app,
        &project,
        json!({"title": "<b>\"Quoted\" & bold</b>", "type": "feature"}),
    )
    .await;

    let page = get_page(&app, "/f/pl-form", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_html(&page);
    let b = &page.body;
    assert!(b.contains("&lt;b&gt;&quot;Quoted&quot; &amp; bold&lt;/b&gt;"));
    assert!(!b.contains("<b>\"Quoted\""), "titles are escaped");
    assert!(
        b.contains("<form id=\"feedback-form\" class=\"form\" data-slug=\"pl-form\" novalidate>")
    );
    for field in ["title", "type", "description", "submitter_email"] {
        assert!(b.contains(&format!("name=\"{field}\"")), "{field}");
        assert!(
            b.contains(&format!("id=\"fb-err-{field}\"")),
            "error slot for {field}"
        );
    }
    assert!(b.contains("<div class=\"hp\" aria-hidden=\"true\">"));
    assert!(b.contains(
        "<input id=\"website\" name=\"website\" type=\"text\" tabindex=\"-1\" autocomplete=\"off\">"
    ));
    assert!(
        b.contains("<section id=\"submit\" class=\"card submit hidden\""),
        "hidden until the script can send it"
    );
    assert!(b.contains("<div id=\"similar\" class=\"similar hidden\""));
    assert!(b.contains("<script src=\"/assets/board.js\" defer></script>"));
    assert!(b.contains("<script src=\"/assets/board-form.js\" defer></script>"));
    assert!(b.contains("href=\"/f/pl-form/roadmap\""));

    // A signed-in visitor's updates go to their account: no address asked.
    let visitor = app.login("form-visitor@example.com").await;
    let page = get_page(&app, "/f/pl-form", Some(visitor.as_str())).await;
    assert!(page.body.contains("name=\"title\""));
    assert!(!page.body.contains("name=\"submitter_email\""));
    assert!(page.body.contains("name=\"website\""));
}

#[tokio::test]
async fn board_entries_show_comment_counts_and_the_changelog_entries_that_shipped_them() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pl-ship").await;
    let feature = submit(
        &app,
        &project,
        json!({"title": "Dark mode", "type": "feature"}),
    )
    .await;
    let quiet = submit(
        &app,
        &project,
        json!({"title": "Quiet entry", "type": "bug"}),
    )
    .await;
    let fan = app.login("commenter@example.com").await;
    for body in ["Yes please", "Me too"] {
        let (status, c) = app
            .call(
                Method::POST,
                &format!("/v1/feedback/{}/comments", id(&feature)),
                Auth::Session(&fan),
                Some(json!({ "body": body })),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{c}");
    }
    let release = changelog_entry(&app, &owner, &project, json!({"title": "Night <owls> rejoice", "content": "Dark mode is here.", "type": "feature", "published": true, "feedback_ids": [id(&feature)]})).await;
    changelog_entry(&app, &owner, &project, json!({"title": "Unpublished draft", "content": "Soon.", "type": "fix", "published": false, "feedback_ids": [id(&quiet)]})).await;

    let page = get_page(&app, "/f/pl-ship", None).await;
    let b = &page.body;
    let dark = at(b, &format!("id=\"entry-{}\"", id(&feature)));
    let other = at(b, &format!("id=\"entry-{}\"", id(&quiet)));
    let (dark_html, quiet_html) = if dark < other {
        (&b[dark..other], &b[other..])
    } else {
        (&b[dark..], &b[other..dark])
    };
    assert!(dark_html.contains("Comments (<span data-comment-count>2</span>)"));
    assert!(quiet_html.contains("Comments (<span data-comment-count>0</span>)"));
    assert!(dark_html.contains(&format!(
        "Shipped in <a href=\"/c/pl-ship#{}\">Night &lt;owls&gt; rejoice</a>",
        id(&release)
    )));
    assert!(
        !quiet_html.contains("Shipped in"),
        "a draft ships nothing yet"
    );
    assert!(dark_html.contains("Sign in to comment"));
    assert!(
        !b.contains("data-comment-form"),
        "no comment form signed out"
    );

    let page = get_page(&app, "/f/pl-ship", Some(fan.as_str())).await;
    assert!(page
        .body
        .contains(&format!("data-comment-form=\"{}\"", id(&feature))));

    // The changelog names the requests each entry answers, linking to them on the board.
    let page = get_page(&app, "/c/pl-ship", None).await;
    assert!(page.body.contains(&format!(
        "<a href=\"/f/pl-ship#entry-{}\">Dark mode</a>",
        id(&feature)
    )));
    assert!(!page.body.contains("Quiet entry"));
}

#[tokio::test]
async fn changelog_page_never_names_a_hidden_request() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pl-hidden").await;
    let (status, _) = app
        .call(
            Method::PATCH,
            &format!("/v1/projects/{}", id(&project)),
            Auth::Session(&owner),
            Some(json!({"feedback_moderation": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, held) = app
        .call(
            Method::POST,
            "/v1/feedback/by-project/pl-hidden",
            Auth::None,
            Some(json!({"title": "Pending secret", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
    changelog_entry(&app, &owner, &project, json!({"title": "Release", "content": "Done.", "type": "feature", "published": true, "feedback_ids": [id(&held)]})).await;

    let page = get_page(&app, "/c/pl-hidden", None).await;
    assert!(page.body.contains("Release"));
    assert!(!page.body.contains("Pending secret"));
    assert!(!page.body.contains("Requested on the"));
}

#[tokio::test]
async fn board_shows_50_entries_a_page_with_links_that_keep_the_filters() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("pl-pages").await;
    // 51 bugs, each a minute older than the previous, so `new` order is known.
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    sqlx::query(
        "insert into feedback (id, project_id, title, type, status, created_at)
         select gen_random_uuid(), $1, 'Bug number ' || n, 'bug', 'new', now() - n * interval '1 minute'
         from generate_series(1, 51) n",
    )
    .bind(uuid::Uuid::parse_str(id(&project)).unwrap())
    .execute(&db)
    .await
    .unwrap();

    let page = get_page(&app, "/f/pl-pages?type=bug&sort=new", None).await;
    let b = &page.body;
    assert!(b.contains("<span id=\"entry-count\">51</span> entries matching these filters"));
    assert_eq!(b.matches("class=\"card entry\"").count(), 50);
    assert!(b.contains("Bug number 50<") && !b.contains("Bug number 51<"));
    assert!(b.contains("Page 1 of 2"));
    assert!(b.contains("<a rel=\"next\" href=\"/f/pl-pages?type=bug&amp;sort=new&amp;page=2\">"));
    assert!(!b.contains("rel=\"prev\""));

    let page = get_page(&app, "/f/pl-pages?type=bug&sort=new&page=2", None).await;
    let b = &page.body;
    assert_eq!(b.matches("class=\"card entry\"").count(), 1);
    assert!(b.contains("Bug number 51<"));
    assert!(
        b.contains("<span id=\"entry-count\">51</span>"),
        "the count is the total"
    );
    assert!(b.contains("<a rel=\"prev\" href=\"/f/pl-pages?type=bug&amp;sort=new\">"));
    assert!(!b.contains("rel=\"next\""));

    let page = get_page(&app, "/f/pl-pages?page=9", None).await;
    assert!(page.body.contains("There is nothing on this page."));
    assert!(page
        .body
        .contains("<a href=\"/f/pl-pages\">Go to the first page</a>"));

    let page = get_page(&app, "/f/pl-pages?page=zero", None).await;
    assert_eq!(
        page.status,
        StatusCode::OK,
        "a bad page number shows the first"
    );
    assert_eq!(page.body.matches("class=\"card entry\"").count(), 50);
}

#[tokio::test]
async fn roadmap_page_puts_feature_requests_in_their_columns() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("pl-road").await;
    let planned = submit(
        &app,
        &project,
        json!({"title": "Planned <thing>", "type": "feature"}),
    )
    .await;
    let building = submit(
        &app,
        &project,
        json!({"title": "Being built", "type": "feature"}),
    )
    .await;
    let shipped = submit(
        &app,
        &project,
        json!({"title": "Already out", "type": "feature"}),
    )
    .await;
    let cancelled = submit(
        &app,
        &project,
        json!({"title": "Never mind", "type": "feature"}),
    )
    .await;
    submit(
        &app,
        &project,
        json!({"title": "A bug in progress", "type": "bug"}),
    )
    .await;
    set_status(&app, &owner, &building, "in_progress").await;
    set_status(&app, &owner, &shipped, "shipped").await;
    set_status(&app, &owner, &cancelled, "cancelled").await;

    let page = get_page(&app, "/f/pl-road/roadmap", None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert_html(&page);
    let b = &page.body;
    let cols = [
        at(b, "data-column=\"planned\""),
        at(b, "data-column=\"in_progress\""),
        at(b, "data-column=\"shipped\""),
    ];
    assert!(cols[0] < cols[1] && cols[1] < cols[2]);
    let column = |i: usize| {
        if i < 2 {
            &b[cols[i]..cols[i + 1]]
        } else {
            &b[cols[2]..]
        }
    };
    assert!(column(0).contains("Planned &lt;thing&gt;") && !column(0).contains("Being built"));
    assert!(column(1).contains("Being built") && !column(1).contains("Already out"));
    assert!(column(2).contains("Already out"));
    assert!(column(0).contains(&format!("data-entry=\"{}\"", id(&planned))));
    for absent in ["Never mind", "A bug in progress", "Planned <thing>"] {
        assert!(!b.contains(absent), "{absent}");
    }
    assert!(b.contains("href=\"/f/pl-road\""), "links back to the board");

    app.owner_with_project("pl-road-empty").await;
    let page = get_page(&app, "/f/pl-road-empty/roadmap", None).await;
    assert_eq!(page.status, StatusCode::OK);
    for text in [
        "Nothing planned right now.",
        "Nothing in progress right now.",
        "Nothing shipped in the last 90 days.",
    ] {
        assert!(page.body.contains(text), "{text}");
    }
    assert!(!page.body.contains("road-item"));

    let page = get_page(&app, "/f/no-such-project/roadmap", None).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.body.contains("Page not found"));
}
