//! GitHub sync end to end: entries link to issues; GitHub's `issues` events, signed as GitHub signs
//! them, move the linked entries with the usual webhook and email; a wrong signature changes nothing.

use hmac::{Hmac, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::delivery::stack;
use crate::helpers::*;
use crate::receivers::*;

/// `sha256=` and the hex HMAC-SHA256 of the body, as GitHub's `X-Hub-Signature-256`.
fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256={hex}")
}

/// An `issues` event in the shape of GitHub's documentation (the fields GitHub always sends).
fn issues_event(action: &str, state_reason: Option<&str>, number: u64) -> Value {
    json!({
        "action": action,
        "issue": {
            "url": format!("https://api.github.com/repos/Acme/web-app/issues/{number}"),
            "html_url": format!("https://github.com/Acme/web-app/issues/{number}"),
            "id": 1_000_000 + number, "node_id": "I_kwDOAbc", "number": number,
            "title": "Dark mode", "user": {"login": "octocat", "id": 1, "type": "User"},
            "labels": [], "state": if action == "closed" { "closed" } else { "open" },
            "state_reason": state_reason, "locked": false, "assignees": [], "comments": 0,
            "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-27T10:00:00Z",
            "closed_at": if action == "closed" { json!("2026-11-27T10:00:00Z") } else { Value::Null },
            "author_association": "OWNER", "body": "Make it dark."
        },
        "repository": {"id": 42, "name": "web-app", "full_name": "Acme/web-app", "private": false,
            "owner": {"login": "Acme", "id": 7, "type": "Organization"},
            "html_url": "https://github.com/Acme/web-app"},
        "sender": {"login": "octocat", "id": 1, "type": "User"}
    })
}

async fn deliver(
    app: &TestApp,
    url: &str,
    event: &str,
    body: &Value,
    signature: &str,
) -> (StatusCode, Value) {
    let body = serde_json::to_vec(body).unwrap();
    let res = app
        .client
        .post(url)
        .header("content-type", "application/json")
        .header("x-github-event", event)
        .header("x-github-delivery", uuid::Uuid::new_v4().to_string())
        .header("x-hub-signature-256", signature)
        .header("user-agent", "GitHub-Hookshot/abc123")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn entry(app: &TestApp, owner: &str, pid: &str, id: &str) -> Value {
    let (_, list) = app
        .call(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&per_page=100"),
            Auth::Session(owner),
            None,
        )
        .await;
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} not in {list}"))
}

#[tokio::test]
async fn closing_an_issue_moves_its_linked_entries_with_webhook_and_email() {
    let sink = SmtpSink::start(&[]).await;
    let (app, _worker) = stack(&[
        "--smtp-url",
        &sink.url,
        "--mail-from",
        "Shipmate <noreply@example.com>",
    ])
    .await;
    let (owner, project) = app.owner_with_project("gh-a").await;
    let (pid, k) = (id(&project).to_owned(), key(&project));
    let receiver = Receiver::start().await;
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{pid}/webhooks"),
            Auth::Session(&owner),
            Some(json!({"url": receiver.url, "events": ["feedback.status_changed"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let create = |title: &'static str, kind: &'static str| {
        let app = &app;
        async move {
            let (status, e) = app
                .call(
                    Method::POST,
                    "/v1/feedback",
                    Auth::Key(k),
                    Some(json!({"title": title, "type": kind})),
                )
                .await;
            assert_eq!(status, StatusCode::CREATED, "{e}");
            id(&e).to_owned()
        }
    };
    let (feature, bug, other) = (
        create("Dark mode", "feature").await,
        create("Dark mode flickers", "bug").await,
        create("Unlinked", "feature").await,
    );
    let voter = app.login("voter@example.com").await;
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{feature}/upvote"),
            Auth::Session(&voter),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    // Links: GitHub issue URLs only, stored in one spelling; anything else is refused whole.
    for bad in [
        json!(["https://github.com/acme/web-app/pull/7"]),
        json!("https://github.com/a/b/issues/1"),
        json!([42]),
    ] {
        let (status, err) = app
            .call(
                Method::PATCH,
                &format!("/v1/feedback/{feature}"),
                Auth::Session(&owner),
                Some(json!({"links": bad})),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
        assert_eq!(err["code"], "validation_failed");
        assert_eq!(err["errors"][0]["field"], "links", "{err}");
    }
    assert_eq!(
        entry(&app, &owner, &pid, &feature).await["links"],
        json!([])
    );
    for e in [&feature, &bug] {
        let (status, linked) = app
            .call(
                Method::PATCH,
                &format!("/v1/feedback/{e}"),
                Auth::Session(&owner),
                Some(json!({"links": ["https://github.com/Acme/Web-App/issues/12", "https://github.com/acme/web-app/issues/12"]})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{linked}");
        assert_eq!(
            linked["links"],
            json!(["https://github.com/acme/web-app/issues/12"])
        );
    }
    // The team's links stay out of the public board.
    let (_, public) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/gh-a",
            Auth::None,
            None,
        )
        .await;
    assert!(
        public["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e.get("links").is_none()),
        "{public}"
    );

    // Connecting: admins only; the answer is what GitHub's settings ask for.
    let member = app
        .member_with_role(&owner, &pid, "dev@example.com", "member")
        .await;
    let integration = format!("/v1/projects/{pid}/integrations/github");
    let (status, _) = app
        .call(Method::POST, &integration, Auth::Session(&member), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, hook) = app
        .call(Method::POST, &integration, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{hook}");
    let url = hook["url"].as_str().unwrap();
    assert!(
        url.ends_with(&format!("/v1/integrations/github/{pid}")),
        "{url}"
    );
    let secret = hook["secret"].as_str().unwrap();
    let (_, shown) = app
        .call(Method::GET, &integration, Auth::Session(&owner), None)
        .await;
    assert_eq!(shown["connected"], true);
    assert!(shown.get("secret").is_none());

    // GitHub's ping, then a closing signed with another secret: 401, nothing moves.
    let ping = json!({"zen": "Design for failure.", "hook_id": 1, "hook": {"type": "Repository", "events": ["issues"]}});
    let (status, body) = deliver(
        &app,
        url,
        "ping",
        &ping,
        &sign(secret, &serde_json::to_vec(&ping).unwrap()),
    )
    .await;
    assert_eq!((status, body), (StatusCode::OK, json!({"moved": []})));
    let closed = issues_event("closed", Some("completed"), 12);
    let raw = serde_json::to_vec(&closed).unwrap();
    for wrong in [
        sign("not the secret", &raw),
        String::new(),
        "sha256=zz".into(),
    ] {
        let (status, err) = deliver(&app, url, "issues", &closed, &wrong).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{err}");
    }
    assert_eq!(
        entry(&app, &owner, &pid, &feature).await["status"],
        "planned"
    );

    // Signed right: both linked entries move within their type's set; the unlinked one stays.
    let (status, body) = deliver(&app, url, "issues", &closed, &sign(secret, &raw)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut moved: Vec<String> = body["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    moved.sort();
    let mut want = vec![feature.clone(), bug.clone()];
    want.sort();
    assert_eq!(moved, want);
    assert_eq!(
        entry(&app, &owner, &pid, &feature).await["status"],
        "shipped"
    );
    assert_eq!(entry(&app, &owner, &pid, &bug).await["status"], "done");
    assert_eq!(entry(&app, &owner, &pid, &other).await["status"], "planned");
    let hits = receiver.wait_for(2, 20).await;
    assert!(hits
        .iter()
        .all(|h| h.json()["type"] == "feedback.status_changed"));
    assert!(hits
        .iter()
        .any(|h| h.json()["data"]["id"] == feature.as_str()
            && h.json()["data"]["previous_status"] == "planned"));
    sink.wait_for("voter@example.com", "now shipped", 20).await;

    // The same delivery again (GitHub redelivers) moves nothing more.
    let (_, body) = deliver(&app, url, "issues", &closed, &sign(secret, &raw)).await;
    assert_eq!(body["moved"], json!([]));

    // Reopened: in progress; closed as not planned: cancelled / dismissed.
    for (event, feature_status, bug_status) in [
        (
            issues_event("reopened", Some("reopened"), 12),
            "in_progress",
            "in_progress",
        ),
        (
            issues_event("closed", Some("not_planned"), 12),
            "cancelled",
            "dismissed",
        ),
    ] {
        let raw = serde_json::to_vec(&event).unwrap();
        let (status, _) = deliver(&app, url, "issues", &event, &sign(secret, &raw)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            entry(&app, &owner, &pid, &feature).await["status"],
            feature_status
        );
        assert_eq!(entry(&app, &owner, &pid, &bug).await["status"], bug_status);
    }

    // Another project's endpoint does not take this project's secret; a disconnected one takes none.
    let (_, other_project) = app.owner_with_project("gh-b").await;
    let elsewhere = url.replace(&pid, id(&other_project));
    let reopened = issues_event("reopened", None, 12);
    let raw = serde_json::to_vec(&reopened).unwrap();
    let (status, _) = deliver(&app, &elsewhere, "issues", &reopened, &sign(secret, &raw)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app
        .call(Method::DELETE, &integration, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = deliver(&app, url, "issues", &reopened, &sign(secret, &raw)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        entry(&app, &owner, &pid, &feature).await["status"],
        "cancelled"
    );
}
