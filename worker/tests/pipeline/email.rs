//! Email end to end: members' notifications, changelog subscriptions, invites and resets reach
//! an SMTP sink on 127.0.0.1 through real workers, and hard bounces are suppressed.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::delivery::stack;
use crate::helpers::*;
use crate::receivers::*;

/// How long a mail may take to reach the sink: generous, because CI runs some 75 of these stacks
/// (an api and a worker each) at once on two cores, and twice a 20 s deadline ran out there.
const MAIL_SECS: u64 = 60;

/// Email over real SMTP: notifications to members, the changelog's double opt-in with one-click
/// unsubscribe, status updates to voters and submitters, suppression after a 5xx.
#[tokio::test]
async fn emails_reach_who_asked_for_them() {
    let sink = SmtpSink::start(&["bounce@example.com"]).await;
    let (app, _worker) = stack(&[
        "--smtp-url",
        &sink.url,
        "--mail-from",
        "Shipmate <noreply@example.com>",
    ])
    .await;
    let (owner, project) = app.owner_with_project("mail-a").await;
    let pid = id(&project);
    let k = key(&project);

    // Members: the owner is notified by default; a member only after opting in.
    let member = app
        .member_with_role(&owner, pid, "member@example.com", "member")
        .await;
    let path = format!("/v1/projects/{pid}/notifications");
    let (_, n) = app
        .call(Method::GET, &path, Auth::Session(&member), None)
        .await;
    assert_eq!(
        n,
        json!({"new_feedback": false, "new_testimonial": false, "weekly_report": false, "analytics_alerts": false, "email_configured": true})
    );
    let (_, n) = app
        .call(
            Method::PUT,
            &path,
            Auth::Session(&member),
            Some(json!({"new_feedback": true})),
        )
        .await;
    assert_eq!(n["new_feedback"], true);
    let (_, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(k),
            Some(json!({"title": "Export to CSV", "type": "feature", "submitter_email": "asker@example.com"})),
        )
        .await;
    let mail = sink
        .wait_for("owner-mail-a@example.com", "Export to CSV", MAIL_SECS)
        .await;
    assert!(mail.data.contains("multipart/alternative"), "{}", mail.data);
    assert!(mail.data.contains("text/plain") && mail.data.contains("text/html"));
    assert!(
        !mail.data.contains("List-Unsubscribe"),
        "members' notifications are settings, not lists"
    );
    sink.wait_for("member@example.com", "Export to CSV", MAIL_SECS)
        .await;

    // Status updates: the voter and the submitter, each with a working unsubscribe link.
    let voter = app.login("voter@example.com").await;
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/feedback/{}/upvote", id(&entry)),
            Auth::Session(&voter),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .call(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&entry)),
            Auth::Session(&owner),
            Some(json!({"status": "in_progress"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let update = sink
        .wait_for("voter@example.com", "now in progress", MAIL_SECS)
        .await;
    sink.wait_for("asker@example.com", "now in progress", MAIL_SECS)
        .await;
    assert!(update
        .data
        .contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"));

    // The changelog: subscribe, confirm by the emailed link, receive, unsubscribe in one click.
    let subscribe = "/v1/changelog/by-project/mail-a/subscribe";
    let (status, _) = app
        .call(
            Method::POST,
            subscribe,
            Auth::None,
            Some(json!({"email": "Reader@Example.com"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let confirmation = sink
        .wait_for(
            "reader@example.com",
            "/subscriptions/confirm?token=",
            MAIL_SECS,
        )
        .await;
    assert!(confirmation
        .data
        .contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"));
    let confirm = confirmation.link(&app.url("/subscriptions/confirm?token="));
    let publish = |title: &'static str| {
        let (app, owner, pid) = (&app, &owner, pid.to_owned());
        async move {
            let (status, _) = app
                .call(
                    Method::POST,
                    &format!("/v1/changelog/dashboard/{pid}"),
                    Auth::Session(owner),
                    Some(json!({"title": title, "content": "Details", "type": "feature", "published": true})),
                )
                .await;
            assert_eq!(status, StatusCode::CREATED);
        }
    };
    publish("Before confirming").await;
    let page = app.client.get(&confirm).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let (_, counts) = app
        .call(
            Method::GET,
            &format!("/v1/projects/{pid}/changelog/subscribers"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(counts, json!({"confirmed": 1, "pending": 0}));
    publish("Dark mode shipped").await;
    let entry_mail = sink
        .wait_for("reader@example.com", "Dark mode shipped", MAIL_SECS)
        .await;
    let unsubscribe = entry_mail.link(&app.url("/subscriptions/unsubscribe?token="));
    assert!(
        entry_mail
            .data
            .contains(&format!("List-Unsubscribe: <{unsubscribe}>"))
            || entry_mail.decoded().contains(&unsubscribe)
    );
    let one_click = app
        .client
        .post(&unsubscribe)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    assert_eq!(one_click.status(), StatusCode::OK);
    publish("After unsubscribing").await;

    // A hard bounce suppresses the address for subscriptions.
    let (status, body) = app
        .call(
            Method::POST,
            subscribe,
            Auth::None,
            Some(json!({"email": "bounce@example.com"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    // The instance's first account is its admin.
    let admin = owner.clone();
    let deadline = Instant::now() + Duration::from_secs(MAIL_SECS);
    loop {
        let (status, list) = app
            .call(
                Method::GET,
                "/v1/admin/suppressions",
                Auth::Session(&admin),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{list}");
        if list["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["email"] == "bounce@example.com")
        {
            break;
        }
        if Instant::now() >= deadline {
            panic!(
                "bounce@example.com was not suppressed: {list}; its deliveries: {:?}",
                deliveries_to(&app, "bounce@example.com").await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // What the log holds: nothing went to the unconfirmed or unsubscribed reader.
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let titles: Vec<String> = sqlx::query_scalar(
        "select payload->>'subject' from deliveries where recipient = 'reader@example.com' and type = 'email.changelog_entry'",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(
        titles,
        vec!["Project mail-a: Dark mode shipped".to_string()]
    );
    let all: Vec<String> = sink.mails().iter().map(|m| m.decoded()).collect();
    assert!(!all
        .iter()
        .any(|m| m.contains("Before confirming") || m.contains("After unsubscribing")));
}

/// Invites and password resets are emailed; their links do not stay in the delivery log.
#[tokio::test]
async fn invites_and_resets_are_emailed_and_forgotten() {
    let sink = SmtpSink::start(&[]).await;
    let (app, _worker) = stack(&[
        "--smtp-url",
        &sink.url,
        "--mail-from",
        "noreply@example.com",
    ])
    .await;
    let (owner, project) = app.owner_with_project("mail-b").await;
    let (status, invite) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{}/invites", id(&project)),
            Auth::Session(&owner),
            Some(json!({"email": "new@example.com", "role": "member"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let mail = sink
        .wait_for("new@example.com", "/invite/", MAIL_SECS)
        .await;
    assert_eq!(
        mail.link(&app.url("/invite/")),
        invite["url"].as_str().unwrap()
    );

    let (status, _) = app
        .call(
            Method::POST,
            "/v1/auth/password-reset",
            Auth::None,
            Some(json!({"email": "owner-mail-b@example.com"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let reset = sink
        .wait_for(
            "owner-mail-b@example.com",
            "/reset-password?token=",
            MAIL_SECS,
        )
        .await
        .link(&app.url("/reset-password?token="));
    let token = reset.rsplit('=').next().unwrap();
    let (status, _) = app
        .call(
            Method::POST,
            "/v1/auth/password-reset/confirm",
            Auth::None,
            Some(json!({"token": token, "password": "a new long password"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let bodies: Vec<Value> = sqlx::query_scalar(
            "select payload from deliveries where type in ('email.invite', 'email.password_reset')",
        )
        .fetch_all(&db)
        .await
        .unwrap();
        assert_eq!(bodies.len(), 2);
        if bodies.iter().all(|b| b["text"] == "" && b["html"] == "") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a sent link stayed in the log: {bodies:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The delivery rows of one recipient (status, attempts, last code and error), for a failure's message.
async fn deliveries_to(
    app: &TestApp,
    recipient: &str,
) -> Vec<(String, i32, Option<i32>, Option<String>)> {
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    sqlx::query_as(
        "select status, attempts, last_status_code, last_error from deliveries where recipient = $1",
    )
    .bind(recipient)
    .fetch_all(&pool)
    .await
    .unwrap()
}
