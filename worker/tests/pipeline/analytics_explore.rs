//! Analytics exploration (#25): filters, custom ranges, comparison, visits, entry and exit pages,
//! properties, goals, funnels and share links, with exact counts over events stored by the
//! workers' own code at chosen times; then the same answers once the roller has kept the visits,
//! and once the day is closed into summaries.

use chrono::{Duration, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use shipmate_analytics::pg::rollup;
use shipmate_analytics::visitor::Geo;
use shipmate_worker::jobs::events::Enricher;

use crate::analytics_live::{get, page, store};
use crate::helpers::*;

pub async fn read(app: &TestApp, token: &str, path: &str) -> Value {
    app.ok(Method::GET, path, Auth::Session(token), None).await
}

/// Three visitors over the last hour (see the expected figures in the test).
pub async fn seed(app: &TestApp, project: &Value) -> sqlx::PgPool {
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    // Whole seconds, so durations are exact; all on one UTC day (a visitor hash lives a day), so
    // in the first hour after midnight the visits are just before it.
    let now = Utc::now() - Duration::nanoseconds(Utc::now().timestamp_subsec_nanos() as i64);
    let midnight = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    let now = if now - midnight < Duration::minutes(65) {
        midnight - Duration::seconds(1)
    } else {
        now
    };
    let ago = |m: i64| now - Duration::minutes(m);
    let signup = |plan: &str| json!({"name": "signup", "url": "https://acme.example/docs", "properties": {"plan": plan}});
    let pricing_news = json!({"url": "https://acme.example/pricing", "utm_source": "news"});
    let visits = [
        // A: a visit of / then /pricing then signup (2 page views, 120 s) ...
        (1, "10.0.0.1", ago(60), page("/")),
        (2, "10.0.0.1", ago(59), page("/pricing")),
        (3, "10.0.0.1", ago(58), signup("pro")),
        // ... and, 48 minutes later, a bounce on /docs.
        (4, "10.0.0.1", ago(10), page("/docs")),
        // B: a bounce on /pricing from a newsletter.
        (5, "10.0.0.2", ago(20), pricing_news),
        // C: / then /docs then signup (2 page views, 360 s).
        (6, "10.0.0.3", ago(30), page("/")),
        (7, "10.0.0.3", ago(25), page("/docs")),
        (8, "10.0.0.3", ago(24), signup("free")),
    ];
    for (seq, ip, at, event) in visits {
        store(&mut enricher, project, seq, ip, at, event).await;
    }
    pool
}

/// The overview's page views, visitors, visits, bounce rate and visit duration.
fn figures(o: &Value) -> Value {
    json!([
        o["page_views"],
        o["unique_visitors"],
        o["visits"],
        o["bounce_rate"],
        o["visit_duration"]
    ])
}

fn q(project: &Value, rest: &str) -> String {
    format!("project_id={}{rest}", id(project))
}

async fn check_figures(app: &TestApp, token: &str, project: &Value) {
    let o = read(
        app,
        token,
        &format!("/v1/analytics/overview?{}", q(project, "")),
    )
    .await;
    assert_eq!(figures(&o), json!([6, 3, 4, 50.0, 60]), "{o}");
    let entry = read(
        app,
        token,
        &format!("/v1/analytics/entry-pages?{}", q(project, "")),
    )
    .await;
    assert_eq!(
        entry["data"],
        json!([
            {"page": "/", "visits": 2, "visitors": 2},
            {"page": "/docs", "visits": 1, "visitors": 1},
            {"page": "/pricing", "visits": 1, "visitors": 1},
        ])
    );
    let exit = read(
        app,
        token,
        &format!("/v1/analytics/exit-pages?{}", q(project, "")),
    )
    .await;
    assert_eq!(
        exit["data"],
        json!([
            {"page": "/docs", "visits": 2, "visitors": 2},
            {"page": "/pricing", "visits": 2, "visitors": 2},
        ])
    );
}

#[tokio::test]
async fn filters_visits_goals_and_funnels_count_exactly() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-explore").await;
    let pool = seed(&app, &project).await;
    check_figures(&app, &token, &project).await;

    // One filter narrows every read to the matching events, visits to those holding one.
    let o = read(
        &app,
        &token,
        &format!("/v1/analytics/overview?{}", q(&project, "&page=/pricing")),
    )
    .await;
    assert_eq!(figures(&o), json!([2, 2, 2, 50.0, 60]), "{o}");
    let pages = read(
        &app,
        &token,
        &format!(
            "/v1/analytics/pages?{}",
            q(&project, "&utm_source=news&device=desktop")
        ),
    )
    .await;
    assert_eq!(
        pages["data"],
        json!([{"page": "/pricing", "views": 1, "visitors": 1, "scroll_depth": null, "time_on_page": null}])
    );
    let o = read(
        &app,
        &token,
        &format!("/v1/analytics/overview?{}", q(&project, "&event=signup")),
    )
    .await;
    assert_eq!(
        (&o["page_views"], &o["unique_visitors"]),
        (&json!(0), &json!(2)),
        "{o}"
    );
    let none = read(
        &app,
        &token,
        &format!("/v1/analytics/pages?{}", q(&project, "&country=DE")),
    )
    .await;
    assert_eq!(none["data"], json!([]));

    // Custom ranges and the comparison.
    let today = Utc::now().date_naive();
    let custom = format!(
        "&from={}&to={}&compare=previous",
        today - Duration::days(1),
        today
    );
    let o = read(
        &app,
        &token,
        &format!("/v1/analytics/overview?{}", q(&project, &custom)),
    )
    .await;
    assert_eq!(
        (&o["period"], &o["page_views"]),
        (&json!("custom"), &json!(6)),
        "{o}"
    );
    assert_eq!(
        o["previous"],
        json!({"page_views": 0, "unique_visitors": 0, "visits": 0, "bounce_rate": 0.0, "visit_duration": 0})
    );
    let past = format!(
        "&from={}&to={}",
        today - Duration::days(9),
        today - Duration::days(2)
    );
    let o = read(
        &app,
        &token,
        &format!("/v1/analytics/overview?{}", q(&project, &past)),
    )
    .await;
    assert_eq!(
        (&o["page_views"], &o["visits"]),
        (&json!(0), &json!(0)),
        "{o}"
    );

    // Properties of one event.
    let props = read(
        &app,
        &token,
        &format!(
            "/v1/analytics/properties?{}",
            q(&project, "&event=signup&property=plan")
        ),
    )
    .await;
    assert_eq!(
        props["data"],
        json!([{"value": "free", "count": 1, "visitors": 1}, {"value": "pro", "count": 1, "visitors": 1}])
    );

    // Goals: an event and a page.
    let pid = id(&project).to_owned();
    for body in [
        json!({"project_id": pid, "name": "Signed up", "event": "signup"}),
        json!({"project_id": pid, "name": "Read the docs", "page": "/docs"}),
    ] {
        let (status, goal) = app
            .call(
                Method::POST,
                "/v1/analytics/goals",
                Auth::Session(&token),
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{goal}");
    }
    let goals = read(
        &app,
        &token,
        &format!("/v1/analytics/goals?{}", q(&project, "&period=7d")),
    )
    .await;
    let figures: Vec<_> = goals["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["name"].clone(),
                g["visitors"].clone(),
                g["conversions"].clone(),
                g["conversion_rate"].clone(),
            )
        })
        .collect();
    assert_eq!(
        figures,
        [
            (json!("Signed up"), json!(3), json!(2), json!(66.7)),
            (json!("Read the docs"), json!(3), json!(2), json!(66.7)),
        ]
    );

    // A funnel: / then /docs then signup, in that order.
    let (status, funnel) = app
        .call(
            Method::POST,
            "/v1/analytics/funnels",
            Auth::Session(&token),
            Some(json!({
                "project_id": pid, "name": "Docs to signup",
                "steps": [{"page": "/"}, {"page": "/docs"}, {"event": "signup"}]
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{funnel}");
    let report = read(
        &app,
        &token,
        &format!("/v1/analytics/funnels/{}?period=30d", id(&funnel)),
    )
    .await;
    assert_eq!(
        report["steps"],
        json!([
            {"label": "/", "visitors": 2, "conversion_rate": 100.0},
            {"label": "/docs", "visitors": 2, "conversion_rate": 100.0},
            {"label": "signup", "visitors": 1, "conversion_rate": 50.0},
        ])
    );

    // CSV: a header row even when the list is empty.
    let (status, _, csv) = get(
        &app,
        &token,
        &format!("/v1/analytics/pages?{}", q(&project, "&country=DE")),
        "text/csv",
    )
    .await;
    assert_eq!(
        (status, csv.as_str()),
        (
            StatusCode::OK,
            "page,views,visitors,scroll_depth,time_on_page\r\n"
        )
    );

    // The roller keeps the visits (a pass up to now): A's first visit, over for 58 minutes, goes
    // into the summaries, the others stay. Then it closes the day into summaries. The same
    // answers each way.
    rollup::keep_current(&pool, Duration::zero(), Utc::now(), 10)
        .await
        .unwrap();
    let (kept, folded): (i64, i64) = sqlx::query_as(
        "select (select count(*) from analytics_visits),
                (select coalesce(sum(views), 0)::int8 from analytics_daily where dim = 'visits' and value = 'all')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(
        folded >= 1 && kept + folded == 4,
        "kept {kept}, folded {folded}"
    );
    check_figures(&app, &token, &project).await;
    rollup::roll_day(&pool, Utc::now().date_naive(), true)
        .await
        .unwrap();
    let kept: i64 = sqlx::query_scalar("select count(*) from analytics_visits")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(kept, 0);
    check_figures(&app, &token, &project).await;
}

/// Filtered reads keep a day's events in the api's memory once the roller has sealed them
/// (`analytics::explore`): an event stored behind the seal later (a queue that lagged) counts
/// all the same, before and after the day is summarised again, and so does one after the seal.
#[tokio::test]
async fn filtered_reads_count_events_stored_after_their_day_was_kept() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-kept").await;
    let pool = seed(&app, &project).await;
    let pricing = format!("/v1/analytics/overview?{}", q(&project, "&page=/pricing"));
    let figures_now = || async { figures(&read(&app, &token, &pricing).await) };
    assert_eq!(figures_now().await, json!([2, 2, 2, 50.0, 60]));
    rollup::keep_current(&pool, Duration::zero(), Utc::now(), 10)
        .await
        .unwrap();
    assert_eq!(figures_now().await, json!([2, 2, 2, 50.0, 60]));

    // A new visitor's bounce on /pricing 40 minutes ago, stored only now: behind the seal.
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let late = Utc::now() - Duration::minutes(40);
    store(
        &mut enricher,
        &project,
        9,
        "10.0.0.4",
        late,
        page("/pricing"),
    )
    .await;
    assert_eq!(figures_now().await, json!([3, 3, 3, 66.7, 0]));
    rollup::keep_current(&pool, Duration::zero(), Utc::now(), 10)
        .await
        .unwrap();
    assert_eq!(figures_now().await, json!([3, 3, 3, 66.7, 0]));

    // And one after the seal, read from the raw events.
    store(
        &mut enricher,
        &project,
        10,
        "10.0.0.5",
        Utc::now(),
        page("/pricing"),
    )
    .await;
    assert_eq!(figures_now().await, json!([4, 4, 4, 75.0, 0]));
}

/// Unfiltered reads take complete weeks from the weekly summaries and the other days from the
/// daily ones: a page view a day for 20 days counts once each, and a late event on a day of a
/// complete week counts once the roller has summarised that day (and its week) again.
#[tokio::test]
async fn weekly_and_daily_summaries_add_up_to_every_day_once() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-weekly").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let noon = |days: i64| {
        (Utc::now().date_naive() - Duration::days(days))
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc()
    };
    for days in 1..=20 {
        let ip = format!("10.0.1.{days}");
        store(
            &mut enricher,
            &project,
            days as u32,
            &ip,
            noon(days),
            page("/w"),
        )
        .await;
    }
    while rollup::keep_current(&pool, Duration::zero(), Utc::now(), 10)
        .await
        .unwrap()
        > 1
    {}
    let weeks: i64 = sqlx::query_scalar("select count(distinct week) from analytics_weekly")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(weeks >= 2, "{weeks} complete weeks summarised");
    let counts = |n: i64| {
        json!([
            [{"page": "/w", "views": n, "visitors": n, "scroll_depth": null, "time_on_page": null}],
            [{"page": "/w", "visits": n, "visitors": n}],
            n,
        ])
    };
    let now = || async {
        let pages = read(
            &app,
            &token,
            &format!("/v1/analytics/pages?{}", q(&project, "")),
        )
        .await;
        let entry = read(
            &app,
            &token,
            &format!("/v1/analytics/entry-pages?{}", q(&project, "")),
        )
        .await;
        let o = read(
            &app,
            &token,
            &format!("/v1/analytics/overview?{}", q(&project, "")),
        )
        .await;
        json!([pages["data"], entry["data"], o["visits"]])
    };
    assert_eq!(now().await, counts(20));

    // A late page view 10 days ago, behind its day's seal, in a complete week.
    store(
        &mut enricher,
        &project,
        21,
        "10.0.2.1",
        noon(10),
        page("/w"),
    )
    .await;
    rollup::keep_current(&pool, Duration::zero(), Utc::now(), 10)
        .await
        .unwrap();
    assert_eq!(now().await, counts(21));
}

#[tokio::test]
async fn bad_values_are_422_listing_every_field() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-explore-bad").await;
    let body = app
        .refused(
            (
                Method::GET,
                &format!(
                    "/v1/analytics/pages?{}",
                    q(
                        &project,
                        "&device=phone&country=USA&from=2026-02-01&to=2026-01-01&whatever=1"
                    )
                ),
            ),
            Auth::Session(&token),
            None,
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
        )
        .await;
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["to", "country", "device"]);
    app.refused(
        (
            Method::GET,
            &format!(
                "/v1/analytics/overview?{}",
                q(&project, "&from=2022-01-01&to=2025-01-01")
            ),
        ),
        Auth::Session(&token),
        None,
        (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
    )
    .await;
    let pid = id(&project).to_owned();
    for (body, bad) in [
        (
            json!({"project_id": pid, "name": "x", "event": "a", "page": "/"}),
            vec!["event", "page"],
        ),
        (
            json!({"project_id": pid, "name": "x"}),
            vec!["event", "page"],
        ),
        // A blank event names nothing; every bad field is listed at once.
        (
            json!({"project_id": "nope", "name": "", "event": " "}),
            vec!["event", "page", "project_id", "name"],
        ),
    ] {
        let res = app
            .refused(
                (Method::POST, "/v1/analytics/goals"),
                Auth::Session(&token),
                Some(body),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await;
        let fields: Vec<&str> = res["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert_eq!(fields, bad);
    }
    for n in [1, 9] {
        let steps: Vec<Value> = (0..n).map(|i| json!({"page": format!("/{i}")})).collect();
        let res = app
            .refused(
                (Method::POST, "/v1/analytics/funnels"),
                Auth::Session(&token),
                Some(json!({"project_id": pid, "name": "f", "steps": steps})),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await;
        assert_eq!(res["errors"][0]["field"], "steps");
    }
    let goals: i64 = sqlx::query_scalar("select count(*) from analytics_goals")
        .fetch_one(&sqlx::PgPool::connect(&app.db_url).await.unwrap())
        .await
        .unwrap();
    assert_eq!(goals, 0);
    let res = app
        .refused(
            (
                Method::GET,
                &format!("/v1/analytics/properties?{}", q(&project, "")),
            ),
            Auth::Session(&token),
            None,
            (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
        )
        .await;
    assert_eq!(res["errors"].as_array().unwrap().len(), 2);
}
