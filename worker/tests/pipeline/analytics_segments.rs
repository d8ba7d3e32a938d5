//! Saved segments (issue #39, part 3): every read with `segment=` answers what the same filters
//! answer, combined with any given; unknown and other projects' segments are 404; bad filters are
//! 422 by name; a share link locked to a segment shows that segment only, and stops with it.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::analytics::{track, wait_page_views, CHROME, IPHONE};
use crate::helpers::*;
use crate::support::*;

async fn get(app: &TestApp, token: &str, path: &str) -> (StatusCode, Value) {
    app.call(Method::GET, path, Auth::Session(token), None)
        .await
}

#[tokio::test]
async fn a_segment_reads_as_its_filters_and_a_share_link_locked_to_it_shows_it_only() {
    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    let _worker = start_worker(&app, &[]);
    let (token, project) = app.owner_with_project("an-segments").await;
    let (other_token, other) = app.owner_with_project("an-segments-other").await;
    let (k, pid) = (key(&project), id(&project).to_owned());
    // Desktop Chrome from GB: /pricing and /docs; an iPhone from the US: /pricing.
    let page = |p: &str| json!({"url": format!("https://acme.example{p}")});
    track(
        &app,
        k,
        "81.2.69.142",
        CHROME,
        json!({"events": [page("/pricing"), page("/docs")]}),
    )
    .await;
    track(&app, k, "8.8.8.8", IPHONE, page("/pricing")).await;
    wait_page_views(&app, &token, &project, 3).await;

    // Bad filters: each named; nothing stored.
    let (status, body) = app
        .call(Method::POST, "/v1/analytics/segments", Auth::Session(&token),
            Some(json!({"project_id": pid, "name": "x", "filters": {"colour": "red", "device": "phone", "page": 3}})))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        ["filters.colour", "filters.device", "filters.page"],
        "{body}"
    );
    let (status, body) = app
        .call(
            Method::POST,
            "/v1/analytics/segments",
            Auth::Session(&token),
            Some(json!({"project_id": pid, "name": "none", "filters": {}})),
        )
        .await;
    assert_eq!(
        (status, body["errors"][0]["field"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("filters"))
    );
    let (_, list) = get(
        &app,
        &token,
        &format!("/v1/analytics/segments?project_id={pid}"),
    )
    .await;
    assert_eq!(list["data"], json!([]));

    let (status, segment) = app
        .call(
            Method::POST,
            "/v1/analytics/segments",
            Auth::Session(&token),
            Some(json!({"project_id": pid, "name": "Desktop", "filters": {"device": "Desktop"}})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{segment}");
    assert_eq!(
        (segment["name"].clone(), segment["filters"].clone()),
        (json!("Desktop"), json!({"device": "desktop"}))
    );
    let sid = id(&segment).to_owned();
    let (_, list) = get(
        &app,
        &token,
        &format!("/v1/analytics/segments?project_id={pid}"),
    )
    .await;
    assert_eq!(list["data"][0]["id"], segment["id"]);

    // Every read: the segment answers as its filters, and with another filter as both.
    for read in shipmate_analytics::pg::reads::ENDPOINTS
        .iter()
        .chain(&["realtime", "goals"])
    {
        for (with_segment, as_filters) in [
            (format!("segment={sid}"), "device=desktop".to_owned()),
            (
                format!("segment={sid}&page=/docs"),
                "device=desktop&page=/docs".to_owned(),
            ),
        ] {
            let base = format!("/v1/analytics/{read}?project_id={pid}&period=7d");
            let (s1, a) = get(&app, &token, &format!("{base}&{with_segment}")).await;
            let (s2, b) = get(&app, &token, &format!("{base}&{as_filters}")).await;
            assert_eq!((s1, &a), (s2, &b), "{read} with {with_segment}");
        }
    }
    let (_, pages) = get(
        &app,
        &token,
        &format!("/v1/analytics/pages?project_id={pid}&period=7d&segment={sid}"),
    )
    .await;
    assert_eq!(pages["data"].as_array().unwrap().len(), 2, "{pages}");
    // A filter against the segment's own: nothing matches both.
    let (_, none) = get(
        &app,
        &token,
        &format!("/v1/analytics/overview?project_id={pid}&period=7d&segment={sid}&device=mobile"),
    )
    .await;
    assert_eq!(none["page_views"], 0, "{none}");
    let (status, props) = get(
        &app,
        &token,
        &format!(
            "/v1/analytics/properties?project_id={pid}&event=page_view&property=x&segment={sid}"
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{props}");

    // Unknown, malformed, or another project's segment: 404 not_found.
    let (_, theirs) = app
        .call(
            Method::POST,
            "/v1/analytics/segments",
            Auth::Session(&other_token),
            Some(json!({"project_id": id(&other), "name": "Theirs", "filters": {"country": "US"}})),
        )
        .await;
    for bad in [
        uuid::Uuid::new_v4().to_string(),
        "nope".to_owned(),
        id(&theirs).to_owned(),
    ] {
        let (status, body) = get(
            &app,
            &token,
            &format!("/v1/analytics/overview?project_id={pid}&segment={bad}"),
        )
        .await;
        assert_eq!(
            (status, body["code"].clone()),
            (StatusCode::NOT_FOUND, json!("not_found")),
            "{bad}: {body}"
        );
    }
    let share = format!("/v1/projects/{pid}/analytics/share");
    let (status, body) = app
        .call(
            Method::POST,
            &share,
            Auth::Session(&token),
            Some(json!({"segment_id": id(&theirs)})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");

    // A link locked to the segment: its page shows the desktop visitor only, whatever it is asked.
    let (status, link) = app
        .call(
            Method::POST,
            &share,
            Auth::Session(&token),
            Some(json!({"segment_id": sid})),
        )
        .await;
    assert_eq!(
        (status, link["segment_id"].clone()),
        (StatusCode::CREATED, json!(sid)),
        "{link}"
    );
    let (status, open) = app
        .call(Method::POST, &share, Auth::Session(&token), None)
        .await;
    assert_eq!(
        (status, open["segment_id"].clone()),
        (StatusCode::CREATED, Value::Null),
        "{open}"
    );
    let figure = |html: &str| {
        let at = html.find("data-figure=\"page_views\"").unwrap();
        html[at..]
            .split('>')
            .nth(1)
            .unwrap()
            .split('<')
            .next()
            .unwrap()
            .trim()
            .to_owned()
    };
    // The links name the public URL; the pages are read from this app.
    let html = |url: &str| {
        let (client, url) = (
            app.client.clone(),
            app.url(&url[url.find("/share/").unwrap()..]),
        );
        async move { client.get(url).send().await.unwrap() }
    };
    let locked = link["url"].as_str().unwrap();
    let all = open["url"].as_str().unwrap();
    assert_eq!(
        figure(
            &html(&format!("{locked}?period=7d"))
                .await
                .text()
                .await
                .unwrap()
        ),
        "2"
    );
    assert_eq!(
        figure(
            &html(&format!("{locked}?period=7d&device=mobile"))
                .await
                .text()
                .await
                .unwrap()
        ),
        "0"
    );
    assert_eq!(
        figure(
            &html(&format!("{all}?period=7d"))
                .await
                .text()
                .await
                .unwrap()
        ),
        "3"
    );

    // Deleted: its reads are 404 and the link locked to it is revoked; the other stays.
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/analytics/segments/{sid}"),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = get(
        &app,
        &token,
        &format!("/v1/analytics/pages?project_id={pid}&segment={sid}"),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(html(locked).await.status(), StatusCode::NOT_FOUND);
    assert_eq!(html(all).await.status(), StatusCode::OK);
}
