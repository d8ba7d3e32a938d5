//! Journeys (issue #39, part 4) with exact counts over visits stored at chosen times: the next and
//! previous pages of a page within visits, `(exit)` and `(entrance)`, reloads collapsed, each
//! neighbour once per visit, filters counting the visits that hold a matching event.

use chrono::{Duration, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use shipmate_analytics::visitor::Geo;
use shipmate_worker::jobs::events::Enricher;

use crate::analytics_live::store;
use crate::helpers::*;

#[tokio::test]
async fn journeys_count_the_pages_right_after_and_before_a_page_once_per_visit() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("an-journeys").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    // Yesterday from 10:00 UTC, a minute between views: every visit within one day.
    let base = (Utc::now() - Duration::days(1))
        .date_naive()
        .and_hms_opt(10, 0, 0)
        .unwrap()
        .and_utc();
    let visits: [(&str, i64, &[&str]); 5] = [
        ("10.0.0.1", 0, &["/", "/pricing", "/docs"]),
        // A reload of /pricing is no step.
        ("10.0.0.2", 0, &["/pricing", "/pricing", "/signup"]),
        ("10.0.0.3", 0, &["/", "/pricing"]),
        // The same visitor after 40 minutes without events: a visit of its own.
        ("10.0.0.3", 45, &["/pricing", "/"]),
        // /pricing to /docs twice in one visit counts once; from an ad campaign.
        (
            "10.0.0.4",
            0,
            &["/pricing?utm_source=ads", "/docs", "/pricing", "/docs"],
        ),
    ];
    let mut seq = 0;
    for (ip, start, pages) in visits {
        for (k, page) in pages.iter().enumerate() {
            seq += 1;
            let at = base + Duration::minutes(start + k as i64);
            let event = json!({"url": format!("https://acme.example{page}")});
            store(&mut enricher, &project, seq, ip, at, event).await;
        }
    }
    let pid = id(&project);
    let read = |extra: &str| {
        let path = format!("/v1/analytics/journeys?project_id={pid}&period=7d{extra}");
        let token = token.clone();
        let app = &app;
        async move {
            app.call(Method::GET, &path, Auth::Session(&token), None)
                .await
        }
    };
    let rows = |list: &Value| -> Vec<(String, i64)> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["page"].as_str().unwrap().to_owned(),
                    r["visits"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let owned = |list: &[(&str, i64)]| -> Vec<(String, i64)> {
        list.iter().map(|(p, n)| (p.to_string(), *n)).collect()
    };
    let (status, body) = read("&page=/pricing").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (body["period"].clone(), body["page"].clone()),
        (json!("7d"), json!("/pricing"))
    );
    assert_eq!(
        rows(&body["next"]),
        owned(&[("/docs", 2), ("(exit)", 1), ("/", 1), ("/signup", 1)]),
        "{body}"
    );
    assert_eq!(
        rows(&body["previous"]),
        owned(&[("(entrance)", 3), ("/", 2), ("/docs", 1)]),
        "{body}"
    );
    // A filter counts the visits holding a matching event: the campaign's visit only.
    let (_, ads) = read("&page=/pricing&utm_source=ads").await;
    assert_eq!(rows(&ads["next"]), owned(&[("/docs", 1)]), "{ads}");
    assert_eq!(
        rows(&ads["previous"]),
        owned(&[("(entrance)", 1), ("/docs", 1)]),
        "{ads}"
    );
    // A page nobody viewed: nothing either way.
    let (_, none) = read("&page=/nowhere").await;
    assert_eq!(
        (none["next"].clone(), none["previous"].clone()),
        (json!([]), json!([]))
    );
    // The page is required; an unknown segment is 404.
    let (status, body) = read("").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["errors"][0]["field"], "page", "{body}");
    let (status, _) = read(&format!("&page=/&segment={}", uuid::Uuid::new_v4())).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
