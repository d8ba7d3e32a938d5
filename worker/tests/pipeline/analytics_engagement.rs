//! Engagement (issue #39, part 1): `engagement` events as `sm.plus.js` sends them, through the api
//! and a worker, give the `pages` read its medians of scroll depth and engaged time, and count
//! neither as page views nor toward `page_view`'s visitors.

use serde_json::{json, Value};

use crate::analytics::{read, track, wait_page_views, CHROME, IPHONE};
use crate::helpers::*;
use crate::support::*;

fn page_view(path: &str) -> Value {
    json!({"url": format!("https://acme.example{path}")})
}

fn engagement(path: &str, depth: Value, ms: i64) -> Value {
    json!({"name": "engagement", "url": format!("https://acme.example{path}"),
           "properties": {"scroll_depth": depth, "engaged_ms": ms}})
}

#[tokio::test]
async fn pages_carry_the_median_scroll_depth_and_time_of_their_engagement_events() {
    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    let _worker = start_worker(&app, &[]);
    let (token, project) = app.owner_with_project("an-engaged").await;
    let k = key(&project);
    let visits = [
        ("81.2.69.142", CHROME, 30, 4_000),
        ("8.8.8.8", IPHONE, 80, 12_400),
        ("8.8.4.4", CHROME, 100, 61_000),
    ];
    for (ip, ua, depth, ms) in visits {
        let body =
            json!({"events": [page_view("/pricing"), engagement("/pricing", json!(depth), ms)]});
        track(&app, k, ip, ua, body).await;
    }
    // A depth that is no percentage is left out of the depth's median, its time still counts;
    // /docs was viewed with no engagement event.
    track(
        &app,
        k,
        "81.2.69.142",
        CHROME,
        json!({"events": [page_view("/docs"), engagement("/pricing", json!("far"), 70_000)]}),
    )
    .await;
    // Each request is stored whole: with the fourth page view, every engagement event is in.
    let overview = wait_page_views(&app, &token, &project, 4).await;
    assert_eq!(
        overview["page_views"], 4,
        "engagement is no page view: {overview}"
    );
    let pages = read(&app, &token, "pages", &project, "7d").await;
    // Depths 30, 80 and 100: the median is 80. Times 4, 12.4, 61 and 70 s: the lower median
    // (rank 2 of 4) is 12.4 s, whole seconds 12.
    let rows = pages["data"].as_array().unwrap();
    let row = |p: &str| rows.iter().find(|r| r["page"] == p).cloned().unwrap();
    let pricing = row("/pricing");
    assert_eq!(
        (
            pricing["views"].clone(),
            pricing["scroll_depth"].clone(),
            pricing["time_on_page"].clone()
        ),
        (json!(3), json!(80), json!(12)),
        "{pages}"
    );
    let docs = row("/docs");
    assert_eq!(
        (docs["scroll_depth"].clone(), docs["time_on_page"].clone()),
        (Value::Null, Value::Null),
        "{pages}"
    );
    // Not visitors of page_view either.
    let events = read(&app, &token, "events", &project, "7d").await;
    let views = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "page_view")
        .cloned()
        .unwrap();
    assert_eq!(
        (views["count"].clone(), views["visitors"].clone()),
        (json!(4), json!(3)),
        "{events}"
    );
}
