//! The feedback loop: board submissions with moderation, pagination, comments, merges, the
//! roadmap, closed voting, and changelog entries that ship what they answer.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

async fn post_entry(app: &TestApp, project: &Value, title: &str, kind: &str) -> Value {
    app.ok(
        Method::POST,
        "/v1/feedback",
        Auth::Key(key(project)),
        Some(json!({"title": title, "type": kind})),
    )
    .await
}

fn titles(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn board_submissions_follow_the_projects_moderation() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("loop-submit").await;
    let pid = id(&project);
    // Moderation off: a submission is public at once, and never shows its address.
    let (status, open) = app.call(Method::POST, "/v1/feedback/by-project/loop-submit", Auth::None,
        Some(json!({"title": "Export to CSV", "type": "feature", "submitter_email": "fan@example.com"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{open}");
    assert_eq!(open["moderation"], "approved");
    assert!(open.get("submitter_email").is_none());

    let on = app
        .ok(
            Method::PATCH,
            &format!("/v1/projects/{pid}"),
            Auth::Session(&owner),
            Some(json!({"feedback_moderation": true})),
        )
        .await;
    assert_eq!(on["feedback_moderation"], true);
    let held = app
        .ok(
            Method::POST,
            "/v1/feedback/by-project/loop-submit",
            Auth::None,
            Some(json!({"title": "Buy cheap pills", "type": "feedback"})),
        )
        .await;
    assert_eq!(held["moderation"], "pending");
    let board = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-submit",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(
        titles(&board),
        ["Export to CSV"],
        "pending entries are for members only"
    );
    let all = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["total"], 2);
    // The review queue: one moderation state, paged by the server; the board ignores the filter.
    let queue = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&moderation=pending"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(
        (queue["total"].as_i64(), titles(&queue)),
        (Some(1), vec!["Buy cheap pills".to_owned()])
    );
    let board = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-submit?moderation=pending",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(titles(&board), ["Export to CSV"]);
    app.refused(
        (
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&moderation=maybe"),
        ),
        Auth::Session(&owner),
        None,
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    assert!(all["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["submitter_email"] == "fan@example.com"));

    // A member marks it spam: it stays off the board; comments on it are refused as not found.
    let spam = app
        .ok(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&held)),
            Auth::Session(&owner),
            Some(json!({"moderation": "spam"})),
        )
        .await;
    assert_eq!(spam["moderation"], "spam");
    let commenter = app.login("commenter@example.com").await;
    app.refused(
        (
            Method::POST,
            &format!("/v1/feedback/{}/comments", id(&held)),
        ),
        Auth::Session(&commenter),
        Some(json!({"body": "+1"})),
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;

    // The honeypot answers 201 and stores nothing; bad input stores nothing either.
    let (status, _) = app.call(Method::POST, "/v1/feedback/by-project/loop-submit", Auth::None,
        Some(json!({"title": "Visit my site", "type": "feedback", "website": "http://spam.example"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    let bad = app
        .refused(
            (Method::POST, "/v1/feedback/by-project/loop-submit"),
            Auth::None,
            Some(json!({"title": "", "type": "wish"})),
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
        )
        .await;
    assert_eq!(bad["errors"].as_array().unwrap().len(), 2, "{bad}");
    app.refused(
        (Method::POST, "/v1/feedback/by-project/no-such-board"),
        Auth::None,
        Some(json!({"title": "x", "type": "bug"})),
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
    let all = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["total"], 2, "nothing more was stored");
}

#[tokio::test]
async fn lists_are_paginated_in_a_total_order() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("loop-pages").await;
    for i in 0..7 {
        post_entry(&app, &project, &format!("Entry {i}"), "bug").await;
    }
    let first = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-pages?sort=new&per_page=3",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(
        (
            first["page"].as_i64(),
            first["per_page"].as_i64(),
            first["total"].as_i64()
        ),
        (Some(1), Some(3), Some(7))
    );
    assert_eq!(titles(&first), ["Entry 6", "Entry 5", "Entry 4"]);
    let third = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-pages?sort=new&per_page=3&page=3",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(titles(&third), ["Entry 0"]);
    // Equal scores: `top` falls back to newest, then id, so pages never overlap.
    let mut seen = Vec::new();
    for page in 1..=3 {
        let p = app
            .ok(
                Method::GET,
                &format!("/v1/feedback/by-project/loop-pages?per_page=3&page={page}"),
                Auth::None,
                None,
            )
            .await;
        seen.extend(titles(&p));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 7);
    app.refused(
        (
            Method::GET,
            "/v1/feedback/by-project/loop-pages?per_page=101",
        ),
        Auth::None,
        None,
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    let pid = id(&project);
    let owner_page = app
        .ok(
            Method::GET,
            &format!("/v1/changelog/dashboard/{pid}?per_page=5"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(
        (
            owner_page["total"].as_i64(),
            owner_page["per_page"].as_i64()
        ),
        (Some(0), Some(5))
    );
    let testimonials = app
        .ok(
            Method::GET,
            "/v1/testimonials",
            Auth::Key(key(&project)),
            None,
        )
        .await;
    assert_eq!(
        (
            testimonials["total"].as_i64(),
            testimonials["per_page"].as_i64()
        ),
        (Some(0), Some(50))
    );
}

#[tokio::test]
async fn comments_are_public_and_members_answer_officially() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("loop-comments").await;
    let entry = post_entry(&app, &project, "Slack integration", "feature").await;
    let path = format!("/v1/feedback/{}/comments", id(&entry));
    let user = app.login("user@example.com").await;
    let theirs = app
        .ok(
            Method::POST,
            &path,
            Auth::Session(&user),
            Some(json!({"body": "  We need this too  "})),
        )
        .await;
    assert_eq!(
        (theirs["body"].as_str(), theirs["official"].as_bool()),
        (Some("We need this too"), Some(false))
    );
    assert!(theirs["author"]["name"].is_string());
    let team = app
        .ok(
            Method::POST,
            &path,
            Auth::Session(&owner),
            Some(json!({"body": "On our list for May."})),
        )
        .await;
    assert_eq!(team["official"], true);
    let list = app.ok(Method::GET, &path, Auth::None, None).await;
    let bodies: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["body"].as_str().unwrap())
        .collect();
    assert_eq!(
        bodies,
        ["We need this too", "On our list for May."],
        "oldest first"
    );

    app.refused(
        (Method::POST, &path),
        Auth::None,
        Some(json!({"body": "anon"})),
        (StatusCode::UNAUTHORIZED, "unauthorized"),
    )
    .await;
    app.refused(
        (Method::POST, &path),
        Auth::Session(&user),
        Some(json!({"body": ""})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    // Only its author or a member deletes a comment.
    let stranger = app.login("stranger@example.com").await;
    let del = format!("/v1/feedback/comments/{}", id(&theirs));
    app.refused(
        (Method::DELETE, &del),
        Auth::Session(&stranger),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    app.ok(Method::DELETE, &del, Auth::Session(&owner), None)
        .await;
    let list = app.ok(Method::GET, &path, Auth::None, None).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn merging_moves_votes_once_per_user_and_hides_the_duplicate() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("loop-merge").await;
    let target = post_entry(&app, &project, "Dark mode", "feature").await;
    let source = post_entry(&app, &project, "Night theme please", "feature").await;
    let (a, b) = (
        app.login("a@example.com").await,
        app.login("b@example.com").await,
    );
    app.ok(
        Method::POST,
        &format!("/v1/feedback/{}/upvote", id(&source)),
        Auth::Session(&a),
        None,
    )
    .await;
    app.ok(
        Method::POST,
        &format!("/v1/feedback/{}/upvote", id(&source)),
        Auth::Session(&b),
        None,
    )
    .await;
    app.ok(
        Method::POST,
        &format!("/v1/feedback/{}/downvote", id(&target)),
        Auth::Session(&b),
        None,
    )
    .await;

    let merge = format!("/v1/feedback/{}/merge", id(&source));
    app.refused(
        (Method::POST, &merge),
        Auth::Session(&owner),
        Some(json!({"into": id(&source)})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    let (_, other) = app.owner_with_project("loop-merge-b").await;
    let foreign = post_entry(&app, &other, "Elsewhere", "feature").await;
    app.refused(
        (Method::POST, &merge),
        Auth::Session(&owner),
        Some(json!({"into": id(&foreign)})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    app.refused(
        (Method::POST, &merge),
        Auth::Session(&a),
        Some(json!({"into": id(&target)})),
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;

    let merged = app
        .ok(
            Method::POST,
            &merge,
            Auth::Session(&owner),
            Some(json!({"into": id(&target)})),
        )
        .await;
    assert_eq!(merged["id"], target["id"]);
    // a's upvote moved; b voted on both and keeps the target's downvote.
    assert_eq!(
        (merged["upvotes"].as_i64(), merged["downvotes"].as_i64()),
        (Some(1), Some(1))
    );
    let board = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-merge",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(titles(&board), ["Dark mode"]);
    let all = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["total"], 1, "a merged entry leaves every listing");
    app.refused(
        (
            Method::POST,
            &format!("/v1/feedback/{}/comments", id(&source)),
        ),
        Auth::Session(&a),
        Some(json!({"body": "hi"})),
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
    app.refused(
        (Method::POST, &merge),
        Auth::Session(&owner),
        Some(json!({"into": id(&target)})),
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
}

#[tokio::test]
async fn the_roadmap_and_closed_votes_follow_statuses() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("loop-roadmap").await;
    let planned = post_entry(&app, &project, "SSO", "feature").await;
    let doing = post_entry(&app, &project, "API v2", "feature").await;
    let done = post_entry(&app, &project, "Webhooks", "feature").await;
    post_entry(&app, &project, "Crash", "bug").await;
    app.ok(
        Method::PATCH,
        &format!("/v1/feedback/{}", id(&doing)),
        Auth::Session(&owner),
        Some(json!({"status": "in_progress"})),
    )
    .await;
    app.ok(
        Method::PATCH,
        &format!("/v1/feedback/{}", id(&done)),
        Auth::Session(&owner),
        Some(json!({"status": "shipped"})),
    )
    .await;
    let roadmap = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-roadmap/roadmap",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(titles(&json!({"data": roadmap["planned"]})), ["SSO"]);
    assert_eq!(titles(&json!({"data": roadmap["in_progress"]})), ["API v2"]);
    assert_eq!(titles(&json!({"data": roadmap["shipped"]})), ["Webhooks"]);
    assert!(roadmap["planned"][0].get("submitter_email").is_none());
    app.refused(
        (Method::GET, "/v1/feedback/by-project/nope/roadmap"),
        Auth::None,
        None,
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;

    let voter = app.login("voter@example.com").await;
    app.ok(
        Method::POST,
        &format!("/v1/feedback/{}/upvote", id(&planned)),
        Auth::Session(&voter),
        None,
    )
    .await;
    for path in [
        format!("/v1/feedback/{}/upvote", id(&done)),
        format!("/v1/feedback/{}/downvote", id(&done)),
    ] {
        app.refused(
            (Method::POST, &path),
            Auth::Session(&voter),
            None,
            (StatusCode::UNPROCESSABLE_ENTITY, "voting_closed"),
        )
        .await;
    }
    app.refused(
        (Method::DELETE, &format!("/v1/feedback/{}/vote", id(&done))),
        Auth::Session(&voter),
        None,
        (StatusCode::UNPROCESSABLE_ENTITY, "voting_closed"),
    )
    .await;
}

#[tokio::test]
async fn publishing_a_changelog_entry_ships_the_requests_it_answers() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("loop-ship").await;
    let pid = id(&project);
    let feature = post_entry(&app, &project, "Zapier", "feature").await;
    let bug = post_entry(&app, &project, "Login loop", "bug").await;
    let cancelled = post_entry(&app, &project, "Fax support", "feature").await;
    app.ok(
        Method::PATCH,
        &format!("/v1/feedback/{}", id(&cancelled)),
        Auth::Session(&owner),
        Some(json!({"status": "cancelled"})),
    )
    .await;
    let (_, other) = app.owner_with_project("loop-ship-b").await;
    let foreign = post_entry(&app, &other, "Not yours", "feature").await;
    let path = format!("/v1/changelog/dashboard/{pid}");
    let bad = app.refused((Method::POST, &path), Auth::Session(&owner),
        Some(json!({"title": "x", "content": "y", "type": "feature", "feedback_ids": [id(&foreign)]})),
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed")).await;
    assert_eq!(bad["errors"][0]["field"], "feedback_ids");
    let drafts = app
        .ok(Method::GET, &path, Auth::Session(&owner), None)
        .await;
    assert_eq!(drafts["total"], 0, "a refused entry is not stored");

    let ids = [id(&feature), id(&bug), id(&cancelled)];
    let draft = app.ok(Method::POST, &path, Auth::Session(&owner),
        Some(json!({"title": "May release", "content": "Zapier and a fix", "type": "feature", "feedback_ids": ids}))).await;
    assert_eq!(draft["feedback_ids"].as_array().unwrap().len(), 3);
    let board = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-ship?sort=new",
            Auth::None,
            None,
        )
        .await;
    assert!(
        board["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["status"] != "shipped"),
        "a draft ships nothing"
    );

    app.ok(
        Method::PATCH,
        &format!("{path}/{}", id(&draft)),
        Auth::Session(&owner),
        Some(json!({"published": true})),
    )
    .await;
    let board = app
        .ok(
            Method::GET,
            "/v1/feedback/by-project/loop-ship?sort=new",
            Auth::None,
            None,
        )
        .await;
    let status_of = |title: &str| {
        board["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["title"] == title)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status_of("Zapier"), "shipped");
    assert_eq!(status_of("Login loop"), "done");
    assert_eq!(status_of("Fax support"), "cancelled", "final statuses stay");
}
