use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;
use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_show_the_overview_and_top_pages() {
    let (app, cli) = signed_in().await;
    let _worker = start_worker(&app);
    let project = create_project(&cli, "st-cli").await;

    let out = cli.ok(&["stats", "--project", "st-cli"]).await;
    assert!(
        out.contains("Last 30 days (30d)") && out.contains("Page views"),
        "{out}"
    );
    assert!(out.contains("No page views in this period."), "{out}");

    let res = app
        .client
        .post(app.url("/v1/analytics/events"))
        .header("X-Project-Key", key(&project))
        .header("User-Agent", CHROME)
        .json(&json!({"events": [
            {"url": "https://acme.example/pricing?utm_source=hn", "referrer": "https://news.ycombinator.com/item?id=1"},
            {"url": "https://acme.example/pricing"},
            {"url": "https://acme.example/docs"}
        ]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::ACCEPTED);

    // Events are stored by the worker: wait until the overview counts them.
    let token = cli.token();
    let path = format!(
        "/v1/analytics/overview?project_id={}&period=7d",
        id(&project)
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, o) = app
            .call(Method::GET, &path, Auth::Session(&token), None)
            .await;
        if o["page_views"] == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "events not counted in time: {o}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let out = cli
        .ok(&["stats", "--project", "st-cli", "--period", "7d"])
        .await;
    assert!(out.contains("Last 7 days (7d)"), "{out}");
    for expected in [
        "Page views",
        "3",
        "Unique visitors",
        "Top page",
        "/pricing",
        "news.ycombinator.com",
        "PAGE",
        "VIEWS",
        "VISITORS",
        "/docs",
    ] {
        assert!(out.contains(expected), "{expected} missing: {out}");
    }
    let pricing_row = out
        .lines()
        .find(|l| l.trim_start().starts_with("/pricing"))
        .unwrap();
    assert_eq!(
        pricing_row.split_whitespace().collect::<Vec<_>>(),
        ["/pricing", "2", "1"],
        "{out}"
    );

    let both = cli
        .json(&["stats", "--project", id(&project), "--period", "7d"])
        .await;
    assert_eq!(both["overview"]["page_views"], 3);
    assert_eq!(both["overview"]["top_page"], "/pricing");
    assert_eq!(
        both["pages"]["data"][0],
        json!({"page": "/pricing", "views": 2, "visitors": 1, "scroll_depth": null, "time_on_page": null})
    );

    // One read of the period as the server's CSV: the pages unless another is named.
    let csv = cli
        .ok(&["stats", "--project", "st-cli", "--period", "7d", "--csv"])
        .await;
    assert_eq!(
        csv,
        "page,views,visitors,scroll_depth,time_on_page\r\n/pricing,2,1,,\r\n/docs,1,1,,\r\n"
    );
    let csv = cli
        .ok(&["stats", "--project", "st-cli", "--csv", "overview"])
        .await;
    assert_eq!(
        csv,
        "period,page_views,unique_visitors,top_page,top_referrer,visits,bounce_rate,visit_duration\r\n30d,3,1,/pricing,news.ycombinator.com,1,0.0,0\r\n"
    );

    // Any read with the API's filters and ranges: a table, JSON or CSV.
    let out = cli
        .ok(&[
            "analytics",
            "show",
            "pages",
            "--project",
            "st-cli",
            "--referrer",
            "news.ycombinator.com",
        ])
        .await;
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .filter(|r: &Vec<&str>| r.first() == Some(&"/pricing"))
        .collect();
    // Columns by name: the medians are empty, no engagement events.
    assert_eq!(rows, [["/pricing", "-", "-", "1", "1"]], "{out}");
    let today = chrono::Utc::now().date_naive().to_string();
    let o = cli
        .json(&[
            "analytics",
            "show",
            "--project",
            "st-cli",
            "--from",
            &today,
            "--to",
            &today,
            "--page",
            "/docs",
            "--compare",
        ])
        .await;
    assert_eq!(
        (&o["period"], &o["page_views"], &o["previous"]["page_views"]),
        (&json!("custom"), &json!(1), &json!(0)),
        "{o}"
    );
    let csv = cli
        .ok(&[
            "analytics",
            "show",
            "entry-pages",
            "--project",
            "st-cli",
            "--csv",
        ])
        .await;
    assert_eq!(csv, "page,visits,visitors\r\n/pricing,1,1\r\n");
    let err = cli
        .run(&[
            "analytics",
            "show",
            "pages",
            "--project",
            "st-cli",
            "--country",
            "USA",
            "--device",
            "phone",
        ])
        .await
        .fails(1);
    assert!(err.contains("country") && err.contains("device"), "{err}");

    // Now: the same events, all of the last minutes.
    let out = cli
        .ok(&["analytics", "realtime", "--project", "st-cli"])
        .await;
    for expected in [
        "Visitors (last 5 minutes)",
        "Page views (last 30 minutes)",
        "PAGE",
        "/pricing",
        "/docs",
    ] {
        assert!(out.contains(expected), "{expected} missing: {out}");
    }
    let now = cli
        .json(&["analytics", "realtime", "--project", "st-cli"])
        .await;
    assert_eq!(
        now,
        json!({"visitors": 1, "page_views": 3, "pages": [
            {"page": "/docs", "visitors": 1}, {"page": "/pricing", "visitors": 1}
        ]})
    );
    let csv = cli
        .ok(&["analytics", "realtime", "--project", "st-cli", "--csv"])
        .await;
    assert_eq!(csv, "page,visitors\r\n/docs,1\r\n/pricing,1\r\n");

    // Journeys of a page: two tables, or the answer as JSON; the page is required.
    let out = cli
        .ok(&[
            "analytics",
            "journeys",
            "--project",
            "st-cli",
            "--page",
            "/docs",
        ])
        .await;
    assert!(
        out.contains("NEXT PAGE") && out.contains("PREVIOUS PAGE"),
        "{out}"
    );
    let j = cli
        .json(&[
            "analytics",
            "journeys",
            "--project",
            "st-cli",
            "--page",
            "/docs",
        ])
        .await;
    assert_eq!(j["page"], "/docs", "{j}");
    assert!(j["next"].is_array() && j["previous"].is_array(), "{j}");
    let err = cli
        .run(&["analytics", "journeys", "--project", "st-cli"])
        .await
        .fails(1);
    assert!(err.contains("--page"), "{err}");

    // Sources by a goal: each row adds the goal's conversions and rate.
    let (status, goal) = app
        .call(
            Method::POST,
            "/v1/analytics/goals",
            Auth::Session(&token),
            Some(json!({"project_id": id(&project), "name": "Docs", "page": "/docs"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{goal}");
    let gid = goal["id"].as_str().unwrap();
    let rows = cli
        .json(&[
            "analytics",
            "show",
            "referrers",
            "--project",
            "st-cli",
            "--goal",
            gid,
        ])
        .await;
    assert_eq!(
        rows["data"][0],
        json!({"referrer": "news.ycombinator.com", "views": 1, "visitors": 1,
               "conversions": 1, "conversion_rate": 100.0}),
        "{rows}"
    );
    let out = cli
        .ok(&[
            "analytics",
            "show",
            "utm",
            "--project",
            "st-cli",
            "--goal",
            gid,
        ])
        .await;
    assert!(out.contains("CONVERSIONS") && out.contains("hn"), "{out}");
    let err = cli
        .run(&[
            "analytics",
            "show",
            "pages",
            "--project",
            "st-cli",
            "--goal",
            gid,
        ])
        .await
        .fails(1);
    assert!(err.contains("--goal goes with referrers or utm"), "{err}");

    // A saved segment: created from flags, listed, read with --segment as its filters, deleted.
    let made = cli
        .json(&[
            "analytics",
            "segments",
            "create",
            "--project",
            "st-cli",
            "--name",
            "From HN",
            "--referrer",
            "news.ycombinator.com",
        ])
        .await;
    assert_eq!(
        made["filters"],
        json!({"referrer": "news.ycombinator.com"}),
        "{made}"
    );
    let sid = made["id"].as_str().unwrap();
    let out = cli
        .ok(&["analytics", "segments", "list", "--project", "st-cli"])
        .await;
    assert!(
        out.contains("From HN") && out.contains("referrer=news.ycombinator.com"),
        "{out}"
    );
    let by_segment = [
        "analytics",
        "show",
        "pages",
        "--project",
        "st-cli",
        "--segment",
        sid,
    ];
    let by_filter = [
        "analytics",
        "show",
        "pages",
        "--project",
        "st-cli",
        "--referrer",
        "news.ycombinator.com",
    ];
    assert_eq!(cli.json(&by_segment).await, cli.json(&by_filter).await);
    let err = cli
        .run(&[
            "analytics",
            "segments",
            "create",
            "--project",
            "st-cli",
            "--name",
            "Empty",
        ])
        .await
        .fails(1);
    assert!(err.contains("at least one filter"), "{err}");
    // An alert: set, listed (not checked yet: no worker schedule in this test), deleted.
    let alert = cli
        .json(&[
            "analytics",
            "alerts",
            "create",
            "--project",
            "st-cli",
            "--kind",
            "traffic_spike",
            "--threshold",
            "500",
        ])
        .await;
    assert_eq!(
        (alert["kind"].clone(), alert["firing"].clone()),
        (json!("traffic_spike"), json!(false))
    );
    let out = cli
        .ok(&["analytics", "alerts", "list", "--project", "st-cli"])
        .await;
    assert!(
        out.contains("traffic_spike") && out.contains("500"),
        "{out}"
    );
    let err = cli
        .run(&[
            "analytics",
            "alerts",
            "create",
            "--project",
            "st-cli",
            "--kind",
            "goal",
            "--threshold",
            "1",
        ])
        .await
        .fails(1);
    assert!(err.contains("goal_id"), "{err}");
    let out = cli
        .ok(&[
            "analytics",
            "alerts",
            "delete",
            alert["id"].as_str().unwrap(),
        ])
        .await;
    assert!(out.contains("Deleted alert"), "{out}");
    let out = cli.ok(&["analytics", "segments", "delete", sid]).await;
    assert!(out.contains("Deleted segment"), "{out}");
    cli.run(&by_segment).await.fails(1);

    // A Plausible CSV imported and waited for; a file that is no export refused; then deleted.
    let dir = std::env::temp_dir().join(format!("st-cli-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("imported_visitors_20240101_20240102.csv");
    std::fs::write(
        &csv,
        "\"date\",\"visitors\",\"pageviews\",\"bounces\",\"visits\",\"visit_duration\"\n\"2024-01-01\",3,5,1,4,100\n\"2024-01-02\",2,2,2,2,0\n",
    )
    .unwrap();
    let out = cli
        .ok(&[
            "analytics",
            "imports",
            "upload",
            csv.to_str().unwrap(),
            "--project",
            "st-cli",
            "--wait",
        ])
        .await;
    assert!(
        out.contains("imported_visitors_20240101_20240102.csv: done"),
        "{out}"
    );
    let notes = dir.join("notes.csv");
    std::fs::write(&notes, "a,b\n1,2\n").unwrap();
    let err = cli
        .run(&[
            "analytics",
            "imports",
            "upload",
            notes.to_str().unwrap(),
            "--project",
            "st-cli",
        ])
        .await
        .fails(1);
    assert!(err.contains("Plausible"), "{err}");
    let list = cli
        .json(&["analytics", "imports", "list", "--project", "st-cli"])
        .await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(
        (
            &list["data"][0]["from"],
            &list["data"][0]["to"],
            &list["data"][0]["rows"]
        ),
        (&json!("2024-01-01"), &json!("2024-01-02"), &json!(2)),
        "{list}"
    );
    let out = cli
        .ok(&["analytics", "imports", "list", "--project", "st-cli"])
        .await;
    assert!(out.contains("2024-01-01 to 2024-01-02"), "{out}");
    let iid = list["data"][0]["id"].as_str().unwrap();
    let out = cli.ok(&["analytics", "imports", "delete", iid]).await;
    assert!(out.contains("Deleted import"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
