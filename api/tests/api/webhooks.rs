//! Webhook endpoints and email settings through the API (delivery itself is tested with real
//! workers in worker/tests/pipeline/delivery.rs).

use base64::Engine;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use shipmate_api::settings::ApiSettings;

use crate::helpers::*;

#[tokio::test]
async fn webhooks_are_created_listed_changed_and_deleted() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("wh-a").await;
    let base = format!("/v1/projects/{}/webhooks", id(&project));
    let (status, hook) = app
        .call(
            Method::POST,
            &base,
            Auth::Session(&owner),
            Some(json!({"url": "https://93.184.216.34/hooks", "events": ["feedback.created", "document.ready"], "description": "CRM"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let secret = hook["secret"].as_str().unwrap();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    assert_eq!(raw.len(), 32);
    assert_eq!(hook["enabled"], true);
    assert_eq!(
        hook["events"],
        json!(["feedback.created", "document.ready"])
    );

    let (_, list) = app
        .call(Method::GET, &base, Auth::Session(&owner), None)
        .await;
    assert_eq!(list["data"][0]["secret"], secret);

    let one = format!("{base}/{}", id(&hook));
    let (status, changed) = app
        .call(
            Method::PATCH,
            &one,
            Auth::Session(&owner),
            Some(json!({"events": ["*"], "enabled": false, "description": ""})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["events"], json!(["*"]));
    assert_eq!(changed["enabled"], false);
    assert_eq!(changed["description"], Value::Null);
    assert_eq!(changed["url"], hook["url"]);

    let (status, deleted) = app
        .call(Method::DELETE, &one, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, json!({"id": id(&hook), "deleted": true}));
    let (status, _) = app
        .call(Method::GET, &one, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, events) = app
        .call(Method::GET, "/v1/webhooks/events", Auth::None, None)
        .await;
    let names: Vec<&str> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10);
    assert!(names.contains(&"analytics.alert") && !names.contains(&"ping"));
}

#[tokio::test]
async fn inward_urls_and_unknown_events_are_refused_and_nothing_is_stored() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("wh-b").await;
    let base = format!("/v1/projects/{}/webhooks", id(&project));
    for url in [
        "ftp://93.184.216.34/x",
        "http://127.0.0.1:8080/hook",
        "http://10.0.0.8/hook",
        "http://192.168.1.20/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[fd00::1]/hook",
        // NAT64 and 6to4 reach IPv4 addresses through a gateway, 10.0.0.1 here.
        "http://[64:ff9b::a00:1]/hook",
        "https://[2002:a00:1::1]/hook",
        "http://localhost:3000/hook",
        "not a url",
    ] {
        let res = app
            .send(
                Method::POST,
                &base,
                Auth::Session(&owner),
                Some(json!({"url": url, "events": ["*"]})),
            )
            .await;
        let body = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "url_not_allowed").await;
        assert_eq!(body["errors"][0]["field"], "url", "{url}: {body}");
    }
    for events in [
        json!(["feedback.deleted"]),
        json!([]),
        json!("feedback.created"),
        json!(["ping"]),
    ] {
        let res = app
            .send(
                Method::POST,
                &base,
                Auth::Session(&owner),
                Some(json!({"url": "https://93.184.216.34/h", "events": events})),
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    }
    let (_, list) = app
        .call(Method::GET, &base, Auth::Session(&owner), None)
        .await;
    assert_eq!(list["data"], json!([]));
}

#[tokio::test]
async fn a_change_to_a_nat64_or_6to4_url_is_refused_and_the_url_kept() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("wh-nat64").await;
    let base = format!("/v1/projects/{}/webhooks", id(&project));
    let hook = app
        .ok(
            Method::POST,
            &base,
            Auth::Session(&owner),
            Some(json!({"url": "https://93.184.216.34/h", "events": ["*"]})),
        )
        .await;
    let one = format!("{base}/{}", id(&hook));
    for url in ["http://[64:ff9b::7f00:1]/h", "http://[2002:c0a8:101::1]/h"] {
        let body = app
            .refused(
                (Method::PATCH, &one),
                Auth::Session(&owner),
                Some(json!({ "url": url })),
                (StatusCode::UNPROCESSABLE_ENTITY, "url_not_allowed"),
            )
            .await;
        assert_eq!(body["errors"][0]["field"], "url", "{url}: {body}");
    }
    let (_, list) = app
        .call(Method::GET, &base, Auth::Session(&owner), None)
        .await;
    assert_eq!(list["data"][0]["url"], "https://93.184.216.34/h");
}

#[tokio::test]
async fn hosts_on_the_allow_list_may_be_internal() {
    let app = spawn_app_with(&["--webhook-allowed-hosts", "127.0.0.1,hooks.internal"]).await;
    let (owner, project) = app.owner_with_project("wh-c").await;
    let (status, hook) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{}/webhooks", id(&project)),
            Auth::Session(&owner),
            Some(json!({"url": "http://127.0.0.1:9/hook", "events": ["*"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
}

#[tokio::test]
async fn notification_settings_default_to_owners_and_say_email_is_off() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("wh-d").await;
    let pid = id(&project);
    let viewer = app
        .member_with_role(&owner, pid, "v@example.com", "viewer")
        .await;
    let path = format!("/v1/projects/{pid}/notifications");
    let (_, mine) = app
        .call(Method::GET, &path, Auth::Session(&owner), None)
        .await;
    assert_eq!(
        mine,
        json!({"new_feedback": true, "new_testimonial": true, "weekly_report": false, "analytics_alerts": false, "email_configured": false})
    );
    let (_, theirs) = app
        .call(Method::GET, &path, Auth::Session(&viewer), None)
        .await;
    assert_eq!(theirs["new_feedback"], false);
    let res = app
        .send(
            Method::PUT,
            &path,
            Auth::Session(&viewer),
            Some(json!({"new_feedback": "yes"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let (_, after) = app
        .call(
            Method::PATCH,
            &path,
            Auth::Session(&viewer),
            Some(json!({"new_testimonial": true})),
        )
        .await;
    assert_eq!(after["new_testimonial"], true);
    assert_eq!(after["new_feedback"], false);
    let (_, admin_view) = app
        .call(
            Method::GET,
            "/v1/admin/settings",
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(admin_view["email_configured"], false);
}

#[test]
fn a_malformed_smtp_url_stops_the_start_with_a_clear_message() {
    for (url, says) in [
        ("http://mail.example.com", "scheme `http`"),
        ("mail.example.com:25", "SHIPMATE_SMTP_URL"),
    ] {
        let err = ApiSettings::from_args(["shipmate-api", "--smtp-url", url])
            .expect_err("refused")
            .to_string();
        assert!(err.contains(says), "{url}: {err}");
    }
    assert!(ApiSettings::from_args([
        "shipmate-api",
        "--smtp-url",
        "smtps://u:p@mail.example.com:465"
    ])
    .is_ok());
}

/// The public changelog page offers an email subscription when email is configured; the form
/// works without JavaScript and answers with the next step.
#[tokio::test]
async fn the_changelog_page_takes_subscriptions_by_form() {
    let plain = spawn_app().await;
    plain.owner_with_project("wh-e").await;
    let page = plain
        .client
        .get(plain.url("/c/wh-e"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!page.contains("/c/wh-e/subscribe"), "no form without email");

    // Nothing listens on port 9: sending would fail, but only the worker sends.
    let app = spawn_app_with(&[
        "--smtp-url",
        "smtp://127.0.0.1:9",
        "--mail-from",
        "noreply@example.com",
    ])
    .await;
    let (owner, project) = app.owner_with_project("wh-f").await;
    let page = app
        .client
        .get(app.url("/c/wh-f"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("action=\"/c/wh-f/subscribe\""), "{page}");
    let res = app
        .client
        .post(app.url("/c/wh-f/subscribe"))
        .form(&[("email", "reader@example.com")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res
        .text()
        .await
        .unwrap()
        .contains("open the link we just emailed you"));
    let res = app
        .client
        .post(app.url("/c/wh-f/subscribe"))
        .form(&[("email", "not an address")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let (_, counts) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{}/changelog/subscribers", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(counts, json!({"confirmed": 0, "pending": 1}));
}
