use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

async fn submit(app: &TestApp, key: &str, path: &str, body: Value) -> Value {
    let (status, created) = app
        .call(Method::POST, path, Auth::Key(key), Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_is_listed_filtered_moved_and_deleted() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "fb-cli").await;
    let k = key(&project);
    let bug = submit(
        &app,
        k,
        "/v1/feedback",
        json!({
            "title": "Crash on save", "description": "Every time.", "type": "bug",
            "submitter_email": "ann@example.com"
        }),
    )
    .await;
    let feature = submit(
        &app,
        k,
        "/v1/feedback",
        json!({"title": "Dark mode please", "type": "feature"}),
    )
    .await;

    let out = cli.ok(&["feedback", "list", "--project", "fb-cli"]).await;
    for expected in [
        "Crash on save",
        "Dark mode please",
        "ann@example.com",
        "planned",
        id(&bug),
    ] {
        assert!(out.contains(expected), "{expected} missing: {out}");
    }
    let out = cli
        .ok(&[
            "feedback",
            "list",
            "--project",
            "fb-cli",
            "--type",
            "feature",
        ])
        .await;
    assert!(
        out.contains("Dark mode please") && !out.contains("Crash on save"),
        "{out}"
    );
    // The project may come from the environment, and by id as well as by slug.
    let run = cli
        .run_with(
            &["feedback", "list", "--status", "new"],
            &[("SHIPMATE_PROJECT", id(&project))],
        )
        .await;
    let out = run.ok();
    assert!(
        out.contains("Crash on save") && !out.contains("Dark mode please"),
        "{out}"
    );

    let out = cli
        .ok(&["feedback", "set-status", id(&bug), "in_progress"])
        .await;
    assert!(out.contains("is now in_progress"), "{out}");
    let list = cli
        .json(&["feedback", "list", "--project", "fb-cli", "--type", "bug"])
        .await;
    assert_eq!(list["data"][0]["status"], "in_progress");

    // `shipped` belongs to feature requests: the problem's detail is what the user reads.
    let err = cli
        .run(&["feedback", "set-status", id(&bug), "shipped"])
        .await
        .fails(1);
    assert!(err.starts_with("error: status must be one of"), "{err}");
    assert!(err.contains("done") && err.contains("dismissed"), "{err}");

    let out = cli.ok(&["feedback", "delete", id(&feature)]).await;
    assert!(
        out.contains(&format!("Deleted feedback {}", id(&feature))),
        "{out}"
    );
    let out = cli.ok(&["feedback", "list", "--project", "fb-cli"]).await;
    assert!(!out.contains("Dark mode please"), "{out}");
    let err = cli
        .run(&["feedback", "delete", id(&feature)])
        .await
        .fails(1);
    assert!(err.starts_with("error: "), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn testimonials_are_listed_with_totals_approved_and_rejected() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "tm-cli").await;
    let k = key(&project);
    let loved = submit(
        &app,
        k,
        "/v1/testimonials",
        json!({
            "author_name": "Lin", "author_email": "lin@example.com", "author_title": "CTO",
            "content": "Shipmate saved us weeks.", "rating": 5
        }),
    )
    .await;
    let meh = submit(
        &app,
        k,
        "/v1/testimonials",
        json!({
            "author_name": "Sam", "author_email": "sam@example.com",
            "content": "It is fine.", "rating": 3
        }),
    )
    .await;

    let out = cli
        .ok(&["testimonials", "list", "--project", "tm-cli"])
        .await;
    assert!(
        out.contains("2 testimonials: 2 pending, 0 approved, 0 rejected; average rating n/a"),
        "{out}"
    );
    assert!(
        out.contains("Lin, CTO") && out.contains("Shipmate saved us weeks.") && out.contains("5/5"),
        "{out}"
    );

    let out = cli
        .ok(&["testimonials", "approve", id(&loved), "--project", "tm-cli"])
        .await;
    assert!(out.contains("approved"), "{out}");
    let out = cli
        .ok(&[
            "testimonials",
            "reject",
            id(&meh),
            "--project",
            id(&project),
        ])
        .await;
    assert!(out.contains("rejected"), "{out}");

    let out = cli
        .ok(&["testimonials", "list", "--project", "tm-cli"])
        .await;
    assert!(
        out.contains("2 testimonials: 0 pending, 1 approved, 1 rejected; average rating 5.0"),
        "{out}"
    );
    let all = cli
        .json(&["testimonials", "list", "--project", "tm-cli"])
        .await;
    assert_eq!(all["stats"]["total"], 2);
    assert_eq!(all["data"].as_array().unwrap().len(), 2);

    let (_, public) = app
        .call(Method::GET, "/v1/testimonials", Auth::Key(k), None)
        .await;
    let public = public["data"].as_array().unwrap();
    assert_eq!(public.len(), 1);
    assert_eq!(public[0]["id"], loved["id"]);
}
