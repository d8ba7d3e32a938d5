use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use shipmate_analytics::days;
use shipmate_analytics::events::{parse_body, EventBatch};
use shipmate_analytics::pg::{rollup, store};
use shipmate_analytics::visitor::{self, Geo};
use shipmate_worker::jobs::events::{Enricher, Read};

use crate::helpers::*;
use crate::support::*;

pub const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
pub const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPAD: &str = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
pub const GOOGLEBOT: &str =
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

pub async fn track(
    app: &TestApp,
    key: &str,
    ip: &str,
    ua: &str,
    body: Value,
) -> (StatusCode, Value) {
    let res = app
        .client
        .post(app.url("/v1/analytics/events"))
        .header("X-Project-Key", key)
        .header("X-Forwarded-For", ip)
        .header("User-Agent", ua)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

pub async fn read(app: &TestApp, token: &str, what: &str, project: &Value, period: &str) -> Value {
    let (status, body) = app
        .call(
            Method::GET,
            &format!(
                "/v1/analytics/{what}?project_id={}&period={period}",
                id(project)
            ),
            Auth::Session(token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{what}: {body}");
    body
}

/// Every analytics read endpoint.
const READS: [&str; 10] = shipmate_analytics::pg::reads::ENDPOINTS;

/// Every read for every period.
async fn every_read(app: &TestApp, token: &str, project: &Value) -> Vec<Value> {
    let mut all = Vec::new();
    for what in READS {
        for period in ["7d", "30d", "90d"] {
            all.push(read(app, token, what, project, period).await);
        }
    }
    all
}

/// Polls the overview until `page_views` reaches `n` (deadline 20 s).
pub async fn wait_page_views(app: &TestApp, token: &str, project: &Value, n: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let o = read(app, token, "overview", project, "30d").await;
        if o["page_views"].as_i64() == Some(n) || Instant::now() > deadline {
            return o;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn every_read_reflects_the_events_with_exact_figures() {
    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    let _worker = start_worker(&app, &[]);
    let (token, project) = app.owner_with_project("an-figures").await;
    let k = key(&project);
    let hn = "https://news.ycombinator.com/item?id=1";
    // Visitor A, from GB on desktop Chrome: two page views from HN (one with a UTM source), one custom event.
    let (status, body) = track(&app, k, "81.2.69.142", CHROME, json!({"url": "https://acme.example/pricing?utm_source=hn", "referrer": hn, "screen_width": 1440})).await;
    assert_eq!(
        (status, body),
        (StatusCode::ACCEPTED, json!({"accepted": 1}))
    );
    track(
        &app,
        k,
        "81.2.69.142",
        CHROME,
        json!({"events": [
            {"url": "https://acme.example/docs", "referrer": hn},
            {"name": "signup", "url": "https://acme.example/docs", "properties": {"plan": "pro"}}
        ]}),
    )
    .await;
    // Visitor B, from the US on an iPhone, from Google; visitor C, same IP on an iPad, internal referrer.
    track(
        &app,
        k,
        "8.8.8.8",
        IPHONE,
        json!({"url": "https://acme.example/pricing", "referrer": "https://www.google.com/"}),
    )
    .await;
    let (status, body) = track(&app, k, "8.8.8.8", IPAD, json!({"events": [{"url": "https://acme.example/", "referrer": "https://acme.example/pricing"}, {"name": "cta_click"}]})).await;
    assert_eq!(
        (status, body),
        (StatusCode::ACCEPTED, json!({"accepted": 2}))
    );
    // A crawler: dropped, not a visitor.
    track(
        &app,
        k,
        "66.249.66.1",
        GOOGLEBOT,
        json!({"url": "https://acme.example/pricing"}),
    )
    .await;

    let overview = wait_page_views(&app, &token, &project, 4).await;
    assert_eq!(
        overview,
        json!({"period": "30d", "page_views": 4, "unique_visitors": 3, "top_page": "/pricing", "top_referrer": "news.ycombinator.com",
               "visits": 3, "bounce_rate": 66.7, "visit_duration": 0})
    );
    assert_eq!(
        read(&app, &token, "pages", &project, "30d").await["data"],
        json!([
            {"page": "/pricing", "views": 2, "visitors": 2, "scroll_depth": null, "time_on_page": null},
            {"page": "/", "views": 1, "visitors": 1, "scroll_depth": null, "time_on_page": null},
            {"page": "/docs", "views": 1, "visitors": 1, "scroll_depth": null, "time_on_page": null}
        ])
    );
    assert_eq!(
        read(&app, &token, "referrers", &project, "30d").await["data"],
        json!([
            {"referrer": "news.ycombinator.com", "views": 2, "visitors": 1}, {"referrer": "google.com", "views": 1, "visitors": 1}
        ])
    );
    assert_eq!(
        read(&app, &token, "countries", &project, "30d").await["data"],
        json!([
            {"country": "US", "views": 2, "visitors": 2}, {"country": "GB", "views": 2, "visitors": 1}
        ])
    );
    let devices = read(&app, &token, "devices", &project, "7d").await;
    assert_eq!(devices["period"], "7d");
    assert_eq!(
        devices["data"],
        json!([
            {"device": "desktop", "views": 2, "visitors": 1}, {"device": "mobile", "views": 1, "visitors": 1}, {"device": "tablet", "views": 1, "visitors": 1}
        ])
    );
    assert_eq!(devices["browsers"][0]["browser"], "Safari");
    assert!(devices["operating_systems"].as_array().unwrap().len() >= 2);
    assert_eq!(
        read(&app, &token, "events", &project, "90d").await["data"],
        json!([
            {"name": "page_view", "count": 4, "visitors": 3}, {"name": "cta_click", "count": 1, "visitors": 1}, {"name": "signup", "count": 1, "visitors": 1}
        ])
    );
    let utm = read(&app, &token, "utm", &project, "30d").await;
    assert_eq!(
        utm["sources"],
        json!([{"utm_source": "hn", "views": 1, "visitors": 1}])
    );
    let series = read(&app, &token, "timeseries", &project, "30d").await;
    assert_eq!(series["interval"], "day");
    let total: i64 = series["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["views"].as_i64().unwrap())
        .sum();
    assert_eq!(total, 4);
    assert_eq!(
        read(&app, &token, "timeseries", &project, "7d").await["interval"],
        "hour"
    );

    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let bots: i64 =
        sqlx::query_scalar("select coalesce(sum(bots), 0)::int8 from analytics_dropped")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(bots, 1);
    let stored_ip: i64 = sqlx::query_scalar(
        "select count(*) from analytics_events where properties::text like '%81.2.69.142%'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(stored_ip, 0, "no IP address is stored");

    // The worker made today's partition: the events live there, not in the default one.
    let in_default: i64 = sqlx::query_scalar("select count(*) from analytics_events_default")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(in_default, 0);
    // Summaries give exactly what the raw events give. The worker keeps today's summaries 5 s
    // behind; bring them up to now, and every read for every period must be unchanged.
    let raw = every_read(&app, &token, &project).await;
    let today = chrono::Utc::now().date_naive();
    let current =
        || rollup::keep_current(&pool, chrono::Duration::minutes(5), chrono::Utc::now(), 7);
    current().await.unwrap();
    let summaries: i64 = sqlx::query_scalar("select count(*) from analytics_daily where day = $1")
        .bind(today)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(summaries > 10, "{summaries} summary rows");
    assert_eq!(every_read(&app, &token, &project).await, raw);

    // Now the summaries end mid-day. Visitor A comes back and D is new: reads add the raw events
    // since and must count A once for the day, and once per page (A saw /pricing before).
    track(
        &app,
        k,
        "81.2.69.142",
        CHROME,
        json!({"url": "https://acme.example/pricing"}),
    )
    .await;
    track(
        &app,
        k,
        "81.2.69.143",
        CHROME,
        json!({"url": "https://acme.example/pricing"}),
    )
    .await;
    let overview = wait_page_views(&app, &token, &project, 6).await;
    assert_eq!(
        (&overview["page_views"], &overview["unique_visitors"]),
        (&json!(6), &json!(4))
    );
    assert_eq!(
        read(&app, &token, "pages", &project, "7d").await["data"][0],
        json!({"page": "/pricing", "views": 4, "visitors": 3, "scroll_depth": null, "time_on_page": null})
    );
    let later = every_read(&app, &token, &project).await;
    // A pass adding only those events, and a pass over the whole day, give the same figures.
    current().await.unwrap();
    assert_eq!(every_read(&app, &token, &project).await, later);
    rollup::roll_day(&pool, today, true).await.unwrap();
    assert_eq!(every_read(&app, &token, &project).await, later);
}

pub fn batch(project: &Value, n: usize, received_at: chrono::DateTime<chrono::Utc>) -> EventBatch {
    let project_id = id(project).parse().unwrap();
    let ip = "81.2.69.142".parse().unwrap();
    EventBatch::new(
        project_id,
        received_at,
        visitor::derive(b"salt", &Geo::open(None), project_id, ip, CHROME),
        parse_body(json!({"events": vec![json!({"url": "https://a.example/"}); n]})).unwrap(),
    )
}

fn entry(id: &str) -> i64 {
    shipmate_core::queue::entry_key(id, 0).unwrap()
}

/// A queue entry as a worker reads it.
pub fn read_of(id: &str, redelivered: bool, batch: EventBatch) -> Read {
    Read {
        key: entry(id),
        redelivered,
        batch,
    }
}

#[tokio::test]
async fn a_redelivered_queue_entry_is_stored_once() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("an-replay").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let now = chrono::Utc::now();
    let count = || async {
        sqlx::query_scalar::<_, i64>("select count(*) from analytics_events")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    enricher
        .handle(vec![read_of(
            "1700000000000-0",
            false,
            batch(&project, 3, now),
        )])
        .await
        .unwrap();
    assert_eq!(count().await, 3);
    // The same entry again (its worker died before acknowledging it), now read beside a new one.
    enricher
        .handle(vec![
            read_of("1700000000000-0", true, batch(&project, 3, now)),
            read_of("1700000000001-0", false, batch(&project, 2, now)),
        ])
        .await
        .unwrap();
    assert_eq!(count().await, 5);
    // A worker took an entry over and stored it while its first worker was still busy with it:
    // the first one's insert is refused (and the entry later acknowledged as already stored).
    enricher
        .handle(vec![read_of(
            "1700000000002-0",
            true,
            batch(&project, 1, now),
        )])
        .await
        .unwrap();
    assert!(enricher
        .handle(vec![read_of(
            "1700000000002-0",
            false,
            batch(&project, 1, now)
        )])
        .await
        .is_err());
    assert_eq!(count().await, 6);
    // Once the queue can no longer deliver them, the record of all three reads is let go.
    let forgotten = store::forget_replays(&pool, entry("1700000000002-1"))
        .await
        .unwrap();
    assert_eq!(forgotten, 3);
}

#[tokio::test]
async fn an_event_stored_behind_the_summaries_is_summarised_again() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-late").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let now = chrono::Utc::now();
    // Today as of midnight (the test must not straddle it).
    let earlier = days::bounds(now.date_naive()).0 + chrono::Duration::milliseconds(1);
    let current =
        || rollup::keep_current(&pool, chrono::Duration::minutes(5), chrono::Utc::now(), 7);
    enricher
        .handle(vec![read_of(
            "1700000000000-0",
            false,
            batch(&project, 2, now),
        )])
        .await
        .unwrap();
    current().await.unwrap();
    // A request accepted before that roll, stored only now (its queue lagged behind).
    enricher
        .handle(vec![read_of(
            "1700000000001-0",
            false,
            batch(&project, 3, earlier),
        )])
        .await
        .unwrap();
    let dirty: bool = sqlx::query_scalar(
        "select dirty from analytics_rollups where project_id = $1 and day = $2",
    )
    .bind(id(&project).parse::<uuid::Uuid>().unwrap())
    .bind(now.date_naive())
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(dirty);
    current().await.unwrap();
    let overview = read(&app, &token, "overview", &project, "7d").await;
    assert_eq!(
        (&overview["page_views"], &overview["unique_visitors"]),
        (&json!(5), &json!(1))
    );
}

#[tokio::test]
async fn reads_check_the_period_and_the_owner_and_writes_are_validated() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-rules").await;
    let k = key(&project);
    for what in READS {
        let res = app
            .send(
                Method::GET,
                &format!("/v1/analytics/{what}?project_id={}&period=1y", id(&project)),
                Auth::Session(&token),
                None,
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
        let (status, body) = app
            .call(
                Method::GET,
                &format!("/v1/analytics/{what}?project_id={}", id(&project)),
                Auth::Session(&token),
                None,
            )
            .await;
        assert_eq!(
            (status, body["period"].as_str()),
            (StatusCode::OK, Some("30d")),
            "{what}"
        );
        let stranger = app.login("stranger@example.com").await;
        let res = app
            .send(
                Method::GET,
                &format!("/v1/analytics/{what}?project_id={}", id(&project)),
                Auth::Session(&stranger),
                None,
            )
            .await;
        assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
        let res = app
            .send(
                Method::GET,
                &format!("/v1/analytics/{what}?project_id={}", id(&project)),
                Auth::Key(k),
                None,
            )
            .await;
        assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    let overview = read(&app, &token, "overview", &project, "30d").await;
    assert_eq!(
        overview,
        json!({"period": "30d", "page_views": 0, "unique_visitors": 0, "top_page": null, "top_referrer": null,
               "visits": 0, "bounce_rate": 0.0, "visit_duration": 0})
    );

    let too_many: Vec<Value> = (0..101).map(|_| json!({})).collect();
    for bad in [
        json!({"screen_width": "wide"}),
        json!({"name": "x".repeat(101)}),
        json!({"events": too_many}),
        json!({"properties": {"a": {"b": 1}}}),
        json!({"url": "x".repeat(2049)}),
    ] {
        let res = app
            .send(
                Method::POST,
                "/v1/analytics/events",
                Auth::Key(k),
                Some(bad),
            )
            .await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    }
    let res = app
        .send(
            Method::POST,
            "/v1/analytics/events",
            Auth::None,
            Some(json!({})),
        )
        .await;
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn the_per_key_rate_limit_answers_429_with_retry_after() {
    let app = spawn_app_with(&["--events-rate-per-second", "5"]).await;
    let (_, project) = app.owner_with_project("an-limit").await;
    let events: Vec<Value> = (0..5)
        .map(|_| json!({"url": "https://a.example/"}))
        .collect();
    let (status, _) = app
        .call(
            Method::POST,
            "/v1/analytics/events",
            Auth::Key(key(&project)),
            Some(json!({"events": events})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let res = app
        .send(
            Method::POST,
            "/v1/analytics/events",
            Auth::Key(key(&project)),
            Some(json!({"events": events})),
        )
        .await;
    assert!(res.headers().contains_key("retry-after"));
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

/// Events queued while a worker is killed mid-batch are all stored, each exactly once.
#[tokio::test]
async fn a_killed_worker_loses_no_event_and_duplicates_none() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-kill").await;
    let k = key(&project);
    for i in 0..40 {
        let events: Vec<Value> = (0..25)
            .map(|j| json!({"url": format!("https://a.example/p{}", (i * 25 + j) % 7)}))
            .collect();
        let (status, _) = track(&app, k, "8.8.8.8", CHROME, json!({ "events": events })).await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
    let args = worker_args(&app, &["--events-stale-secs", "2"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_shipmate-worker"))
        .args(&args[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(700)).await;
    child.kill().unwrap();
    child.wait().unwrap();
    let seen = read(&app, &token, "overview", &project, "30d").await["page_views"]
        .as_i64()
        .unwrap();
    println!("killed the worker after {seen} of 1000 events were stored");
    let _worker = start_worker(&app, &["--events-stale-secs", "2"]);
    let overview = wait_page_views(&app, &token, &project, 1000).await;
    assert_eq!(overview["page_views"], 1000);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        read(&app, &token, "overview", &project, "30d").await["page_views"],
        1000,
        "no event stored twice"
    );
}
