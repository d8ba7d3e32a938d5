//! Slack- and Discord-formatted webhooks: each event arrives as that tool's incoming-webhook
//! message, a sentence with a link, unsigned; the format is validated and can be changed.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::delivery::stack;
use crate::helpers::*;
use crate::receivers::*;

async fn chat_hook(app: &TestApp, owner: &str, pid: &str, url: &str, format: &str) -> Value {
    let (status, hook) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{pid}/webhooks"),
            Auth::Session(owner),
            Some(json!({"url": url, "events": ["feedback.created", "feedback.status_changed"], "format": format})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    assert_eq!(hook["format"], format);
    hook
}

#[tokio::test]
async fn slack_and_discord_get_a_sentence_and_a_link() {
    let (app, _worker) = stack(&["--public-url", "https://feedback.example.com/"]).await;
    let (owner, project) = app.owner_with_project("chat-a").await;
    let pid = id(&project);
    let (slack, discord) = (Receiver::start().await, Receiver::start().await);
    chat_hook(&app, &owner, pid, &slack.url, "slack").await;
    let hook = chat_hook(&app, &owner, pid, &discord.url, "discord").await;

    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "Dark <mode>", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    let link = format!("https://feedback.example.com/f/chat-a#entry-{}", id(&entry));

    let hit = &slack.wait_for(1, 20).await[0];
    let body = hit.json();
    assert_eq!(
        body["text"],
        format!(
            "New feature on Project chat-a's board: Dark &lt;mode&gt; <{link}|Dark &lt;mode&gt;>"
        )
    );
    assert_eq!(body["blocks"][0]["type"], "section");
    assert_eq!(body["blocks"][0]["text"]["text"], body["text"]);
    assert_eq!(body["blocks"][0]["text"]["type"], "mrkdwn");
    assert!(body.get("data").is_none(), "not the event: {body}");
    assert!(
        !hit.headers.contains_key("webhook-signature"),
        "a chat message is not signed"
    );

    let body = discord.wait_for(1, 20).await[0].json();
    assert_eq!(
        body,
        json!({"content": "New feature on Project chat-a's board: Dark <mode>",
               "embeds": [{"title": "Dark <mode>", "url": link}]})
    );

    // A status change reads as one, with both statuses.
    let (status, _) = app
        .call(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&entry)),
            Auth::Session(&owner),
            Some(json!({"status": "in_progress"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let body = discord.wait_for(2, 20).await[1].json();
    assert_eq!(
        body["content"],
        "Dark <mode> moved from planned to in progress on Project chat-a's board"
    );

    // Back to the signed event: the next delivery is the JSON body.
    let path = format!("/v1/projects/{pid}/webhooks/{}", id(&hook));
    let (status, changed) = app
        .call(
            Method::PATCH,
            &path,
            Auth::Session(&owner),
            Some(json!({"format": "standard"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["format"], "standard");
    let (status, _) = app
        .call(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&entry)),
            Auth::Session(&owner),
            Some(json!({"status": "shipped"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let hit = &discord.wait_for(3, 20).await[2];
    assert_eq!(hit.json()["type"], "feedback.status_changed");
    assert!(signature_valid(hit, changed["secret"].as_str().unwrap()));
}

#[tokio::test]
async fn an_unknown_format_is_refused_and_changes_nothing() {
    let (app, _worker) = stack(&[]).await;
    let (owner, project) = app.owner_with_project("chat-b").await;
    let pid = id(&project);
    let path = format!("/v1/projects/{pid}/webhooks");
    let (status, err) = app
        .call(
            Method::POST,
            &path,
            Auth::Session(&owner),
            Some(json!({"url": "https://hooks.slack.com/services/T0/B0/x", "events": ["*"], "format": "teams"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(err["errors"][0]["field"], "format");
    let (_, list) = app
        .call(Method::GET, &path, Auth::Session(&owner), None)
        .await;
    assert_eq!(list["data"], json!([]));
}
