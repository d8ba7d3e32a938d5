//! What leaves the dashboard: a read-only share link, and the weekly email report.

use chrono::{Duration, Utc};
use reqwest::{Method, StatusCode};
use serde_json::json;

use shipmate_analytics::visitor::Geo;
use shipmate_analytics::{days, report};
use shipmate_worker::jobs::events::Enricher;

use crate::analytics_explore::{read, seed};
use crate::analytics_live::{page, store};
use crate::helpers::*;

#[tokio::test]
async fn a_share_link_opens_a_read_only_page_until_revoked() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-explore-share").await;
    seed(&app, &project).await;
    let path = format!("/v1/projects/{}/analytics/share", id(&project));
    let viewer = app
        .member_with_role(&token, id(&project), "viewer@example.com", "viewer")
        .await;
    app.refused(
        (Method::POST, &path),
        Auth::Session(&viewer),
        None,
        (StatusCode::FORBIDDEN, "forbidden"),
    )
    .await;
    let (status, link) = app
        .call(Method::POST, &path, Auth::Session(&token), None)
        .await;
    assert_eq!(status, StatusCode::CREATED, "{link}");
    let url = link["url"].as_str().unwrap();
    let share_path = &url[url.find("/share/").unwrap()..];
    let page = app.client.get(app.url(share_path)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains(r#"data-figure="page_views">6<"#), "{html}");
    assert!(html.contains("/pricing"));
    let listed = read(&app, &token, &path).await;
    assert_eq!(listed["data"][0]["url"], url);
    let one = format!("{path}/{}", id(&link));
    let (status, gone) = app
        .call(Method::DELETE, &one, Auth::Session(&token), None)
        .await;
    let deleted = json!({"id": id(&link), "deleted": true});
    assert_eq!((status, gone), (StatusCode::OK, deleted));
    let page = app.client.get(app.url(share_path)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
}

/// The weekly report goes once per week to the members who opted in, with last week's figures.
#[tokio::test]
async fn the_weekly_report_reaches_members_who_opted_in_once() {
    let sink = crate::receivers::SmtpSink::start(&[]).await;
    let mail = [
        "--smtp-url",
        &sink.url,
        "--mail-from",
        "Shipmate <noreply@example.com>",
    ];
    let app = spawn_app_with(&mail).await;
    let (owner, project) = app.owner_with_project("an-explore-week").await;
    let pid = id(&project).to_owned();
    let member = app
        .member_with_role(&owner, &pid, "weekly@example.com", "member")
        .await;
    let path = format!("/v1/projects/{pid}/notifications");
    let n = read(&app, &member, &path).await;
    assert_eq!(n["weekly_report"], false, "opt-in: off by default");
    let (_, n) = app
        .call(
            Method::PUT,
            &path,
            Auth::Session(&member),
            Some(json!({"weekly_report": true})),
        )
        .await;
    assert_eq!(n["weekly_report"], true);
    // Two visitors last Tuesday, one this week (not in the report).
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let tuesday =
        days::bounds(report::last_week(Utc::now()) + Duration::days(1)).0 + Duration::hours(12);
    store(&mut enricher, &project, 1, "10.0.0.1", tuesday, page("/")).await;
    store(
        &mut enricher,
        &project,
        2,
        "10.0.0.2",
        tuesday,
        page("/pricing"),
    )
    .await;
    store(
        &mut enricher,
        &project,
        3,
        "10.0.0.3",
        Utc::now(),
        page("/"),
    )
    .await;

    let mut args = mail.to_vec();
    args.extend(["--weekly-report-cron", "*/1 * * * * *"]);
    let _worker = crate::support::start_worker(&app, &args);
    let report = sink
        .wait_for("weekly@example.com", "Your week: 2 visitors", 30)
        .await;
    let text = report.decoded();
    assert!(text.contains("Page views: 2"), "{text}");
    assert!(
        text.contains(&format!("/dashboard/p/{pid}/analytics")),
        "{text}"
    );
    // The schedule ticks every second: after three more, still one report, and none to the
    // owner, who did not opt in (an absence needs a wait).
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let reports: Vec<_> = sink
        .mails()
        .into_iter()
        .filter(|m| m.decoded().contains("Your week"))
        .collect();
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].to, ["weekly@example.com"]);
}
