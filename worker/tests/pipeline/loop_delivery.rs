//! The feedback loop's outbound side end to end: comments and merges reach webhooks, a merge
//! emails the duplicate's voters and submitter, and publishing a changelog entry tells the voters
//! (who followed the merge) that their request shipped.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::delivery::stack;
use crate::helpers::*;
use crate::receivers::*;

#[tokio::test]
async fn comments_merges_and_shipping_reach_webhooks_and_voters() {
    let sink = SmtpSink::start(&[]).await;
    let (app, _worker) = stack(&[
        "--smtp-url",
        &sink.url,
        "--mail-from",
        "Shipmate <noreply@example.com>",
    ])
    .await;
    let (owner, project) = app.owner_with_project("loop-mail").await;
    let pid = id(&project);
    let receiver = Receiver::start().await;
    let events = json!([
        "comment.created",
        "feedback.merged",
        "feedback.status_changed"
    ]);
    let hook = app
        .ok(
            Method::POST,
            &format!("/v1/projects/{pid}/webhooks"),
            Auth::Session(&owner),
            Some(json!({"url": receiver.url, "events": events})),
        )
        .await;
    let secret = hook["secret"].as_str().unwrap().to_owned();
    let k = Auth::Key(key(&project));
    let target = app
        .ok(
            Method::POST,
            "/v1/feedback",
            k,
            Some(json!({"title": "Dark mode", "type": "feature"})),
        )
        .await;
    let source = app.ok(Method::POST,
        "/v1/feedback",
        k, Some(json!({"title": "Night theme", "type": "feature", "submitter_email": "asker@example.com"})))
    .await;
    let voter = app.login("voter@example.com").await;
    app.ok(
        Method::POST,
        &format!("/v1/feedback/{}/upvote", id(&source)),
        Auth::Session(&voter),
        Some(json!({})),
    )
    .await;

    let comment = app
        .ok(
            Method::POST,
            &format!("/v1/feedback/{}/comments", id(&target)),
            Auth::Session(&voter),
            Some(json!({"body": "Yes, for the night shift"})),
        )
        .await;
    let merged = app
        .ok(
            Method::POST,
            &format!("/v1/feedback/{}/merge", id(&source)),
            Auth::Session(&owner),
            Some(json!({"into": id(&target)})),
        )
        .await;
    assert_eq!(merged["upvotes"], 1);

    let hits = receiver.wait_for(2, 20).await;
    assert!(hits.iter().all(|h| signature_valid(h, &secret)));
    let by_type = |t: &str| {
        hits.iter()
            .map(Hit::json)
            .find(|b| b["type"] == t)
            .unwrap_or_else(|| panic!("no {t}"))
    };
    let c = by_type("comment.created");
    assert_eq!(
        (c["data"]["id"].clone(), c["data"]["body"].clone()),
        (comment["id"].clone(), json!("Yes, for the night shift"))
    );
    // `data` is the merged entry as its owner reads it (the submitter's address included), with
    // where it went.
    let m = by_type("feedback.merged")["data"].clone();
    let fields = ["id", "project_id", "title", "type", "status", "created_at"];
    for f in fields {
        assert_eq!(m[f], source[f], "data.{f}: {m}");
    }
    assert_eq!(
        (&m["merged_into"], &m["submitter_email"], &m["upvotes"]),
        (&target["id"], &json!("asker@example.com"), &json!(1)),
        "{m}"
    );
    assert!(
        m.get("source").is_none() && m.get("target").is_none(),
        "{m}"
    );
    // The duplicate's submitter and voter hear where their request went.
    for to in ["asker@example.com", "voter@example.com"] {
        let mail = sink.wait_for(to, "merged into Dark mode", 20).await;
        assert!(mail.decoded().contains("Night theme"), "{}", mail.decoded());
    }

    // Publishing an entry that answers the target ships it; its voters (the merged one's too) hear.
    let cl = app.ok(Method::POST, &format!("/v1/changelog/dashboard/{pid}"), Auth::Session(&owner), Some(json!({"title": "May", "content": "Dark mode is here", "type": "feature", "feedback_ids": [id(&target)], "published": true}))).await;
    assert_eq!(cl["feedback_ids"], json!([id(&target)]));
    let mail = sink.wait_for("voter@example.com", "now shipped", 20).await;
    assert!(mail.decoded().contains("Dark mode"));
    let hits = receiver.wait_for(3, 20).await;
    let shipped = hits
        .iter()
        .map(Hit::json)
        .find(|b| b["type"] == "feedback.status_changed")
        .unwrap();
    assert_eq!(
        (
            shipped["data"]["status"].as_str(),
            shipped["data"]["previous_status"].as_str()
        ),
        (Some("shipped"), Some("planned"))
    );
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(&target)),
            Auth::Session(&voter),
            None,
        )
        .await;
    assert_eq!(
        status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a shipped request takes no votes"
    );
}
