use std::collections::HashSet;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

async fn created(app: &TestApp, path: &str, auth: Auth<'_>, body: Value) -> Value {
    let (status, v) = app.call(Method::POST, path, auth, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{path}: {v}");
    v
}

/// The ids on the project's public board.
async fn board(app: &TestApp, slug: &str) -> Vec<String> {
    let path = format!("/v1/feedback/by-project/{slug}");
    let (_, body) = app.call(Method::GET, &path, Auth::None, None).await;
    ids(&body)
}

fn ids(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_commands_follow_every_page_unless_one_is_asked_for() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "pages-cli").await;
    let k = key(&project);
    for n in 1..=55 {
        created(
            &app,
            "/v1/feedback",
            Auth::Key(k),
            json!({"title": format!("Request {n}"), "type": "feature"}),
        )
        .await;
    }

    // Past the API's page of 50: every entry, once, as one list.
    let all = cli
        .json(&["feedback", "list", "--project", "pages-cli"])
        .await;
    let every = ids(&all);
    assert_eq!(every.len(), 55);
    assert_eq!(every.iter().collect::<HashSet<_>>().len(), 55);
    assert_eq!(
        (all["page"].clone(), all["total"].clone()),
        (json!(1), json!(55))
    );
    assert_eq!(all["per_page"], 55);
    let out = cli
        .ok(&["feedback", "list", "--project", "pages-cli"])
        .await;
    assert!(
        out.contains("Request 1 ") && out.contains("Request 55"),
        "{out}"
    );
    // Smaller pages while reading all of them change nothing but the number of requests.
    let tens = cli
        .json(&[
            "feedback",
            "list",
            "--project",
            "pages-cli",
            "--per-page",
            "10",
        ])
        .await;
    assert_eq!(ids(&tens), every);

    // One page, and where it sits.
    let out = cli
        .ok(&[
            "feedback",
            "list",
            "--project",
            "pages-cli",
            "--page",
            "1",
            "--per-page",
            "20",
        ])
        .await;
    assert_eq!(out.matches("Request ").count(), 20, "{out}");
    assert!(
        out.contains("Page 1 of 3, 55 in all; --page 2 for more"),
        "{out}"
    );
    let out = cli
        .ok(&["feedback", "list", "--project", "pages-cli", "--page", "2"])
        .await;
    assert_eq!(out.matches("Request ").count(), 5, "{out}");
    assert!(out.contains("Page 2 of 2, 55 in all\n"), "{out}");
    let second = cli
        .json(&["feedback", "list", "--project", "pages-cli", "--page", "2"])
        .await;
    assert_eq!(
        (second["page"].clone(), second["per_page"].clone()),
        (json!(2), json!(50))
    );
    assert_eq!(ids(&second), every[50..]);
    let err = cli
        .run(&[
            "feedback",
            "list",
            "--project",
            "pages-cli",
            "--per-page",
            "101",
        ])
        .await
        .fails(2);
    assert!(err.contains("--per-page"), "{err}");

    // Testimonials keep their totals over the whole list; changelog entries page the same way.
    for n in 1..=3 {
        created(
            &app,
            "/v1/testimonials",
            Auth::Key(k),
            json!({"author_name": format!("Fan {n}"), "author_email": "fan@example.com", "content": "Lovely.", "rating": 5}),
        )
        .await;
    }
    let out = cli
        .ok(&[
            "testimonials",
            "list",
            "--project",
            "pages-cli",
            "--per-page",
            "2",
        ])
        .await;
    assert!(out.contains("3 testimonials: 3 pending"), "{out}");
    assert!(out.contains("Fan 1") && out.contains("Fan 3"), "{out}");
    let out = cli
        .ok(&[
            "testimonials",
            "list",
            "--project",
            "pages-cli",
            "--per-page",
            "2",
            "--page",
            "2",
        ])
        .await;
    assert!(out.contains("Page 2 of 2, 3 in all"), "{out}");
    let token = cli.token();
    for n in 1..=3 {
        created(
            &app,
            &format!("/v1/changelog/dashboard/{}", id(&project)),
            Auth::Session(&token),
            json!({"title": format!("Release {n}"), "content": "Notes.", "type": "fix"}),
        )
        .await;
    }
    let entries = cli
        .json(&[
            "changelog",
            "list",
            "--project",
            "pages-cli",
            "--per-page",
            "2",
        ])
        .await;
    assert_eq!(ids(&entries).len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_is_merged_entries_are_moderated_and_comments_listed() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "merge-cli").await;
    let k = key(&project);
    let entry = |title: &str| json!({"title": title, "type": "feature"});
    let dark = created(&app, "/v1/feedback", Auth::Key(k), entry("Dark mode")).await;
    let night = created(&app, "/v1/feedback", Auth::Key(k), entry("Night theme")).await;
    let voter = app.login("voter@example.com").await;
    let (status, vote) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(&night)),
            Auth::Session(&voter),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{vote}");

    let out = cli
        .ok(&["feedback", "merge", id(&night), "--into", id(&dark)])
        .await;
    assert_eq!(
        out.trim(),
        format!(
            "Merged {} into {}: Dark mode (score 1)",
            id(&night),
            id(&dark)
        )
    );
    let list = cli
        .json(&["feedback", "list", "--project", "merge-cli"])
        .await;
    assert_eq!(ids(&list), [id(&dark)], "the duplicate left the list");
    let err = cli
        .run(&["feedback", "merge", id(&dark), "--into", id(&dark)])
        .await
        .fails(1);
    assert!(err.starts_with("error: "), "{err}");
    let err = cli
        .run(&["feedback", "merge", id(&dark), "--into", "dark-mode"])
        .await
        .fails(2);
    assert!(err.contains("--into"), "{err}");

    // Spam leaves the public board; approving brings it back.
    let out = cli.ok(&["feedback", "moderate", id(&dark), "spam"]).await;
    assert!(out.contains("is now spam"), "{out}");
    let out = cli
        .ok(&["feedback", "list", "--project", "merge-cli"])
        .await;
    assert!(out.contains("MODERATION") && out.contains("spam"), "{out}");
    assert!(board(&app, "merge-cli").await.is_empty());
    cli.ok(&["feedback", "moderate", id(&dark), "approved"])
        .await;
    assert_eq!(board(&app, "merge-cli").await, [id(&dark)]);
    let err = cli
        .run(&["feedback", "moderate", id(&dark), "hidden"])
        .await
        .fails(2);
    assert!(err.contains("approved") && err.contains("spam"), "{err}");

    // The member's reply is official; the customer's is not.
    let path = format!("/v1/feedback/{}/comments", id(&dark));
    created(
        &app,
        &path,
        Auth::Session(&voter),
        json!({"body": "Please hurry."}),
    )
    .await;
    let token = cli.token();
    created(
        &app,
        &path,
        Auth::Session(&token),
        json!({"body": "Shipping next week."}),
    )
    .await;
    let out = cli.ok(&["feedback", "comments", id(&dark)]).await;
    let line = |text: &str| {
        out.lines()
            .find(|l| l.contains(text))
            .unwrap_or_else(|| panic!("{text} missing: {out}"))
            .to_owned()
    };
    assert!(line("Shipping next week.").contains(" yes "), "{out}");
    assert!(line("Please hurry.").contains(" - "), "{out}");
    let comments = cli.json(&["feedback", "comments", id(&dark)]).await;
    assert_eq!(comments["data"][0]["body"], "Please hurry.", "oldest first");
    assert_eq!(comments["data"][1]["official"], true);
}
