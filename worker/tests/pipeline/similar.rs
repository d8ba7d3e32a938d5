//! "Is this already asked?": workers embed new feedback entries with the bundled local model, and
//! `similar` ranks a paraphrase of an entry first, with real text.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::support::*;

async fn similar(app: &TestApp, slug: &str, q: &str) -> Vec<Value> {
    let path = format!(
        "/v1/feedback/by-project/{slug}/similar?q={}",
        url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
    );
    let (status, body) = app.call(Method::GET, &path, Auth::None, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_paraphrased_request_is_suggested_first() {
    let app = spawn_app().await;
    let _worker = start_worker(&app, &[]);
    let (owner, project) = app.owner_with_project("similar-a").await;
    let titles = [
        (
            "Dark mode for the dashboard",
            "The white background is too bright at night.",
        ),
        (
            "Export reports to CSV",
            "We need to open our monthly numbers in Excel.",
        ),
        (
            "Slack notifications for new comments",
            "Ping our channel when someone replies.",
        ),
        (
            "Two-factor authentication",
            "Sign-in should ask for a code from an authenticator app.",
        ),
        (
            "Keyboard shortcuts",
            "Let power users move around without the mouse.",
        ),
    ];
    let mut ids = Vec::new();
    for (title, description) in titles {
        let (status, entry) = app
            .call(
                Method::POST,
                "/v1/feedback",
                Auth::Key(key(&project)),
                Some(json!({"title": title, "description": description, "type": "feature"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{entry}");
        ids.push(id(&entry).to_owned());
    }
    // Embedded by the worker within seconds of creation.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found = similar(&app, "similar-a", "keyboard shortcuts").await;
        if !found.is_empty() && found[0]["title"] == "Keyboard shortcuts" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "entries were not embedded: {found:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for (q, want) in [
        (
            "Please add a night theme, the bright screen hurts my eyes",
            "Dark mode for the dashboard",
        ),
        (
            "Can I download my data as a spreadsheet?",
            "Export reports to CSV",
        ),
        (
            "Require a one-time code when logging in",
            "Two-factor authentication",
        ),
    ] {
        let found = similar(&app, "similar-a", q).await;
        assert_eq!(found[0]["title"], want, "{q}: {found:?}");
        let s = found[0]["similarity"].as_f64().unwrap();
        assert!(s > 0.3 && s <= 1.0, "{s}");
        assert!(found.len() <= 5);
        assert!(found.iter().all(|f| f.get("submitter_email").is_none()));
        assert_eq!(found[0]["type"], "feature");
        assert_eq!(found[0]["status"], "planned");
    }
    // Only public entries are suggested: a merged duplicate leaves the hint too.
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/merge", ids[0]),
            Auth::Session(&owner),
            Some(json!({"into": ids[4]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let found = similar(&app, "similar-a", "Please add a night theme").await;
    assert!(
        found
            .iter()
            .all(|f| f["title"] != "Dark mode for the dashboard"),
        "{found:?}"
    );

    for (path, status) in [
        (
            "/v1/feedback/by-project/similar-a/similar?q=",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/v1/feedback/by-project/similar-a/similar",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/v1/feedback/by-project/nobody/similar?q=dark",
            StatusCode::NOT_FOUND,
        ),
    ] {
        let (got, body) = app.call(Method::GET, path, Auth::None, None).await;
        assert_eq!(got, status, "{path}: {body}");
    }
}
