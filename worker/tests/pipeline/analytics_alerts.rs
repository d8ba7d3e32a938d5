//! Alerts (issue #39, part 5): checked on the workers' apalis-cron schedule over the last hour; an
//! alert that goes off sends the `analytics.alert` webhook event and an email to the members who
//! opted in, once until it clears; bad alerts are 422, another project's goal 404.

use chrono::Utc;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use shipmate_analytics::visitor::Geo;
use shipmate_worker::jobs::events::Enricher;

use crate::analytics_live::{page, store};
use crate::helpers::*;
use crate::receivers::{Receiver, SmtpSink};

#[tokio::test]
async fn an_alert_goes_off_once_by_webhook_and_email_to_members_who_opted_in() {
    let sink = SmtpSink::start(&[]).await;
    let mail = [
        "--smtp-url",
        &sink.url,
        "--mail-from",
        "Shipmate <noreply@example.com>",
        "--webhook-allowed-hosts",
        "127.0.0.1",
    ];
    let app = spawn_app_with(&mail).await;
    let (owner, project) = app.owner_with_project("an-alerts").await;
    let (other_owner, other) = app.owner_with_project("an-alerts-other").await;
    let pid = id(&project).to_owned();
    let member = app
        .member_with_role(&owner, &pid, "alerts@example.com", "member")
        .await;
    let (_, n) = app
        .call(
            Method::PUT,
            &format!("/v1/projects/{pid}/notifications"),
            Auth::Session(&member),
            Some(json!({"analytics_alerts": true})),
        )
        .await;
    assert_eq!(n["analytics_alerts"], true, "{n}");
    let receiver = Receiver::start().await;
    let (status, _) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{pid}/webhooks"),
            Auth::Session(&owner),
            Some(json!({"url": receiver.url, "events": ["analytics.alert"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);

    let post = |token: &str, body: Value| {
        let (app, token) = (&app, token.to_owned());
        async move {
            app.call(
                Method::POST,
                "/v1/analytics/alerts",
                Auth::Session(&token),
                Some(body),
            )
            .await
        }
    };
    for (body, field) in [
        (
            json!({"project_id": pid, "kind": "surge", "threshold": 1}),
            "kind",
        ),
        (
            json!({"project_id": pid, "kind": "goal", "threshold": 1}),
            "goal_id",
        ),
        (
            json!({"project_id": pid, "kind": "traffic_spike", "threshold": -1}),
            "threshold",
        ),
    ] {
        let (status, problem) = post(&owner, body).await;
        assert_eq!(
            (status, problem["errors"][0]["field"].clone()),
            (StatusCode::UNPROCESSABLE_ENTITY, json!(field)),
            "{problem}"
        );
    }
    let (_, their_goal) = app
        .call(
            Method::POST,
            "/v1/analytics/goals",
            Auth::Session(&other_owner),
            Some(json!({"project_id": id(&other), "name": "G", "event": "signup"})),
        )
        .await;
    let (status, _) = post(
        &owner,
        json!({"project_id": pid, "kind": "goal", "threshold": 0, "goal_id": id(&their_goal)}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let (_, goal) = app
        .call(
            Method::POST,
            "/v1/analytics/goals",
            Auth::Session(&owner),
            Some(json!({"project_id": pid, "name": "Signup", "event": "signup"})),
        )
        .await;
    let (status, spike) = post(
        &owner,
        json!({"project_id": pid, "kind": "traffic_spike", "threshold": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{spike}");
    let (_, drop) = post(
        &owner,
        json!({"project_id": pid, "kind": "traffic_drop", "threshold": 1}),
    )
    .await;
    let (_, signups) = post(
        &owner,
        json!({"project_id": pid, "kind": "goal", "threshold": 0, "goal_id": id(&goal)}),
    )
    .await;

    // Two visitors in the last hour: above 1 (a spike), not below 1 (no drop), no signup yet.
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    store(
        &mut enricher,
        &project,
        1,
        "10.0.0.1",
        Utc::now(),
        page("/"),
    )
    .await;
    store(
        &mut enricher,
        &project,
        2,
        "10.0.0.2",
        Utc::now(),
        page("/pricing"),
    )
    .await;
    let mut args = mail.to_vec();
    args.extend(["--alerts-cron", "*/1 * * * * *"]);
    let _worker = crate::support::start_worker(&app, &args);

    let hits = receiver.wait_for(1, 30).await;
    let first = hits[0].json();
    assert_eq!(first["type"], "analytics.alert", "{first}");
    assert_eq!(
        first["data"],
        json!({"alert_id": id(&spike), "kind": "traffic_spike", "threshold": 1, "value": 2})
    );
    let email = sink
        .wait_for("alerts@example.com", "Alert: 2 visitors", 30)
        .await;
    assert_eq!(
        email.to,
        ["alerts@example.com"],
        "only the member who opted in"
    );

    // A signup: the goal alert goes off too; the spike, still on, does not go off again.
    store(
        &mut enricher,
        &project,
        3,
        "10.0.0.1",
        Utc::now(),
        json!({"name": "signup", "url": "https://acme.example/"}),
    )
    .await;
    let hits = receiver.wait_for(2, 30).await;
    assert_eq!(
        hits[1].json()["data"],
        json!({"alert_id": id(&signups), "kind": "goal", "threshold": 0, "value": 1})
    );
    // Three more checks (one a second): nothing more goes off (an absence needs a wait).
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(receiver.hits().len(), 2);
    let (_, list) = app
        .call(
            Method::GET,
            &format!("/v1/analytics/alerts?project_id={pid}"),
            Auth::Session(&member),
            None,
        )
        .await;
    let state: Vec<(Value, Value, Value)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].clone(), a["firing"].clone(), a["value"].clone()))
        .collect();
    assert_eq!(
        state,
        [
            (spike["id"].clone(), json!(true), json!(2)),
            (drop["id"].clone(), json!(false), json!(2)),
            (signups["id"].clone(), json!(true), json!(1)),
        ]
    );
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/analytics/alerts/{}", id(&drop)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}
