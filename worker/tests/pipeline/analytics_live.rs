//! The realtime read and the CSV answers of every analytics read (part of #25), over events stored
//! by the workers' own code at chosen times.

use chrono::{DateTime, Duration, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use shipmate_analytics::events::{parse_body, EventBatch};
use shipmate_analytics::visitor::{self, Geo};
use shipmate_worker::jobs::events::Enricher;

use crate::analytics::{read_of, CHROME};
use crate::helpers::*;

/// Stores `events` as one request of the visitor at `ip`, accepted at `at`, through the enricher
/// (a queue entry `seq` of its own).
pub(crate) async fn store(
    enricher: &mut Enricher,
    project: &Value,
    seq: u32,
    ip: &str,
    at: DateTime<Utc>,
    events: Value,
) {
    let project_id = id(project).parse().unwrap();
    let batch = EventBatch::new(
        project_id,
        at,
        visitor::derive(
            b"salt",
            &Geo::open(None),
            project_id,
            ip.parse().unwrap(),
            CHROME,
        ),
        parse_body(events).unwrap(),
    );
    enricher
        .handle(vec![read_of(&format!("1700000000000-{seq}"), false, batch)])
        .await
        .unwrap();
}

pub(crate) fn page(path: &str) -> Value {
    json!({"url": format!("https://acme.example{path}")})
}

pub(crate) async fn get(
    app: &TestApp,
    token: &str,
    path: &str,
    accept: &str,
) -> (StatusCode, String, String) {
    let res = app
        .client
        .get(app.url(path))
        .bearer_auth(token)
        .header("Accept", accept)
        .send()
        .await
        .unwrap();
    let status = res.status();
    let ct = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, ct, res.text().await.unwrap())
}

#[tokio::test]
async fn realtime_counts_visitors_of_5_minutes_and_page_views_of_30_from_stored_events() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-live").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let now = Utc::now();
    let ago = |m: i64| now - Duration::minutes(m);
    // A: two views of / and a custom event, a minute ago.
    store(
        &mut enricher,
        &project,
        1,
        "10.0.0.1",
        ago(1),
        json!({"events": [page("/"), page("/"), {"name": "signup"}]}),
    )
    .await;
    // B: / and /pricing, two minutes ago.
    store(
        &mut enricher,
        &project,
        2,
        "10.0.0.2",
        ago(2),
        json!({"events": [page("/"), page("/pricing")]}),
    )
    .await;
    // C: a custom event only, three minutes ago: a visitor, no page view.
    store(
        &mut enricher,
        &project,
        3,
        "10.0.0.3",
        ago(3),
        json!({"name": "ping"}),
    )
    .await;
    // D: ten minutes ago: a page view of the last 30 minutes, not a visitor of the last 5.
    store(
        &mut enricher,
        &project,
        4,
        "10.0.0.4",
        ago(10),
        page("/docs"),
    )
    .await;
    // E: 40 minutes ago: counted nowhere.
    store(
        &mut enricher,
        &project,
        5,
        "10.0.0.5",
        ago(40),
        page("/old"),
    )
    .await;
    // Another project's visitor, now: counted nowhere here.
    let (_, other) = app.owner_with_project("an-live-other").await;
    store(&mut enricher, &other, 6, "10.0.0.6", ago(1), page("/")).await;

    let body = realtime(&app, &token, &project).await;
    assert_eq!(
        body,
        json!({"visitors": 3, "page_views": 5, "pages": [
            {"page": "/", "visitors": 2}, {"page": "/pricing", "visitors": 1}
        ]})
    );
    // Filters narrow it like every read.
    let body = app
        .ok(
            Method::GET,
            &format!(
                "/v1/analytics/realtime?project_id={}&page=/pricing",
                id(&project)
            ),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_eq!(
        body,
        json!({"visitors": 1, "page_views": 1, "pages": [{"page": "/pricing", "visitors": 1}]})
    );
}

#[tokio::test]
async fn realtime_lists_at_most_10_pages_most_visited_first() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-live-top").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let now = Utc::now();
    // Visitor i views /p0 .. /p{i}: /p0 has 12 visitors, /p11 one.
    for i in 0..12u32 {
        let events: Vec<Value> = (0..=i).map(|p| page(&format!("/p{p}"))).collect();
        store(
            &mut enricher,
            &project,
            i,
            &format!("10.0.1.{i}"),
            now,
            json!({"events": events}),
        )
        .await;
    }
    let body = realtime(&app, &token, &project).await;
    assert_eq!(
        (&body["visitors"], &body["page_views"]),
        (&json!(12), &json!(78))
    );
    let pages: Vec<(String, i64)> = body["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["page"].as_str().unwrap().to_owned(),
                p["visitors"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(String, i64)> = (0..10).map(|p| (format!("/p{p}"), 12 - p)).collect();
    assert_eq!(pages, expected);
}

#[tokio::test]
async fn realtime_checks_the_project_and_the_caller_like_the_other_reads() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-live-rules").await;
    for path in [
        "/v1/analytics/realtime".to_owned(),
        "/v1/analytics/realtime?project_id=nope".to_owned(),
    ] {
        let res = app
            .send(Method::GET, &path, Auth::Session(&token), None)
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    }
    let path = format!("/v1/analytics/realtime?project_id={}", id(&project));
    let stranger = app.login("stranger@example.com").await;
    let res = app
        .send(Method::GET, &path, Auth::Session(&stranger), None)
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(Method::GET, &path, Auth::Key(key(&project)), None)
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let (status, body) = app
        .call(Method::GET, &path, Auth::Session(&token), None)
        .await;
    assert_eq!(
        (status, body),
        (
            StatusCode::OK,
            json!({"visitors": 0, "page_views": 0, "pages": []})
        )
    );
}

#[tokio::test]
async fn every_read_answers_csv_when_asked_and_json_otherwise() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-csv").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let now = Utc::now() - Duration::seconds(30);
    let hn = "https://news.ycombinator.com/item?id=1";
    store(
        &mut enricher,
        &project,
        1,
        "10.0.0.1",
        now,
        json!({"events": [
            {"url": "https://acme.example/a,b?utm_source=hn", "referrer": hn},
            {"url": "https://acme.example/a,b", "referrer": hn},
            {"name": "say \"hi\"", "url": "https://acme.example/"},
            // A name a spreadsheet would run: written with a leading `'`.
            {"name": "=1+2", "url": "https://acme.example/"},
            {"name": "=1+2", "url": "https://acme.example/"}
        ]}),
    )
    .await;
    store(&mut enricher, &project, 2, "10.0.0.2", now, page("/")).await;

    let pid = id(&project);
    let expected = [
        ("overview", "period,page_views,unique_visitors,top_page,top_referrer,visits,bounce_rate,visit_duration\r\n30d,3,2,\"/a,b\",news.ycombinator.com,2,50.0,0\r\n"),
        // Without engagement events the medians are empty cells.
        ("pages", "page,views,visitors,scroll_depth,time_on_page\r\n\"/a,b\",2,1,,\r\n/,1,1,,\r\n"),
        ("referrers", "referrer,views,visitors\r\nnews.ycombinator.com,2,1\r\n"),
        // No geolocation database in tests: no countries, just the header row.
        ("countries", "country,views,visitors\r\n"),
        ("devices", "device,views,visitors\r\ndesktop,3,2\r\n"),
        ("events", "name,count,visitors\r\npage_view,3,2\r\n'=1+2,2,1\r\n\"say \"\"hi\"\"\",1,1\r\n"),
        ("utm", "utm_source,views,visitors\r\nhn,1,1\r\n"),
        ("realtime", "page,visitors\r\n/,1\r\n\"/a,b\",1\r\n"),
    ];
    for (what, csv) in expected {
        let path = format!("/v1/analytics/{what}?project_id={pid}");
        let (status, ct, body) = get(&app, &token, &path, "text/csv").await;
        assert_eq!(
            (status, ct.as_str()),
            (StatusCode::OK, "text/csv; charset=utf-8"),
            "{what}: {body}"
        );
        assert_eq!(body, csv, "{what}");
        // JSON stays the default, and when preferred.
        for accept in ["application/json", "*/*", "application/json, text/csv"] {
            let (status, ct, body) = get(&app, &token, &path, accept).await;
            assert_eq!(
                (status, ct.as_str()),
                (StatusCode::OK, "application/json"),
                "{what} {accept}"
            );
            serde_json::from_str::<Value>(&body).unwrap();
        }
    }
    // The time series: a row per day of the 30, the header first.
    let path = format!("/v1/analytics/timeseries?project_id={pid}");
    let (_, ct, body) = get(&app, &token, &path, "text/csv").await;
    assert_eq!(ct, "text/csv; charset=utf-8");
    let lines: Vec<&str> = body.split_terminator("\r\n").collect();
    assert_eq!((lines[0], lines.len()), ("date,views,visitors", 31));
    assert!(lines[30].ends_with(",3,2"), "{}", lines[30]);
    // Errors stay problem+json.
    let res = app
        .client
        .get(app.url(&format!("/v1/analytics/pages?project_id={pid}&period=1y")))
        .bearer_auth(&token)
        .header("Accept", "text/csv")
        .send()
        .await
        .unwrap();
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
}

/// The realtime read as the project's owner; it must answer 200.
async fn realtime(app: &TestApp, token: &str, project: &Value) -> Value {
    let (status, body) = app
        .call(
            Method::GET,
            &format!("/v1/analytics/realtime?project_id={}", id(project)),
            Auth::Session(token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}
