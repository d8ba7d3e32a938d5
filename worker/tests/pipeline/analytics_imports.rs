//! Imports of Plausible's export (issue #39, part 6): a ZIP laid out as Plausible's exporter
//! writes it (`imported_<table>_<first>_<last>.csv`, stored, ClickHouse's quoted CSVWithNames)
//! is applied by a worker; its days add to every unfiltered read before the project's first own
//! event; a file that is no export is 422 and creates nothing; a bad row fails the import whole;
//! overlapping imports are refused; deleting one removes what it brought.

use std::io::Write;
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::analytics::{read, track, CHROME};
use crate::helpers::*;
use crate::support::*;

/// The export's files: name (without the dates) and CSV text, days as `{d10}`, `{d9}`, `{today}`.
const FILES: [(&str, &str); 10] = [
    ("visitors", "\"date\",\"visitors\",\"pageviews\",\"bounces\",\"visits\",\"visit_duration\"
\"{d10}\",10,30,4,12,1200
\"{d9}\",5,8,2,6,300
\"{today}\",100,100,0,100,0
"),
    ("sources", "\"date\",\"source\",\"referrer\",\"utm_source\",\"utm_medium\",\"utm_campaign\",\"utm_content\",\"utm_term\",\"pageviews\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\"
\"{d10}\",\"Hacker News\",\"news.ycombinator.com\",\"hn\",\"social\",\"launch\",\"\",\"\",20,8,9,900,3
\"{d9}\",\"Google\",\"google.com\",\"\",\"\",\"\",\"\",\"\",5,3,3,100,1
\"{today}\",\"X\",\"x.com\",\"\",\"\",\"\",\"\",\"\",50,40,40,0,0
"),
    ("pages", "\"date\",\"hostname\",\"page\",\"visits\",\"visitors\",\"pageviews\",\"total_scroll_depth\",\"total_scroll_depth_visits\",\"total_time_on_page\",\"total_time_on_page_visits\"
\"{d10}\",\"acme.example\",\"/\",12,8,20,0,0,0,0
\"{d10}\",\"acme.example\",\"/pricing\",3,2,10,0,0,0,0
\"{d9}\",\"acme.example\",\"/\",6,5,8,0,0,0,0
"),
    ("entry_pages", "\"date\",\"entry_page\",\"visitors\",\"entrances\",\"visit_duration\",\"bounces\",\"pageviews\"
\"{d10}\",\"/\",8,10,1000,3,25
\"{d10}\",\"/pricing\",2,2,200,1,5
\"{d9}\",\"/\",5,6,300,2,8
"),
    ("exit_pages", "\"date\",\"exit_page\",\"visitors\",\"visit_duration\",\"exits\",\"bounces\",\"pageviews\"
\"{d10}\",\"/pricing\",6,900,7,2,20
\"{d10}\",\"/\",4,300,5,2,10
\"{d9}\",\"/\",5,300,6,2,8
"),
    ("custom_events", "\"date\",\"name\",\"link_url\",\"path\",\"visitors\",\"events\"
\"{d10}\",\"Signup\",\"\",\"\",2,3
\"{d10}\",\"engagement\",\"\",\"\",8,20
\"{d9}\",\"Outbound Link: Click\",\"https://x.com\",\"\",1,1
"),
    ("locations", "\"date\",\"country\",\"region\",\"city\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"
\"{d10}\",\"DE\",\"DE-BE\",2950159,6,7,600,2,18
\"{d10}\",\"US\",\"\",0,4,5,600,2,12
\"{d9}\",\"DE\",\"\",0,5,6,300,2,8
"),
    ("devices", "\"date\",\"device\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"
\"{d10}\",\"Desktop\",6,7,700,2,18
\"{d10}\",\"Laptop\",1,1,100,0,2
\"{d10}\",\"Mobile\",3,4,400,2,10
\"{d9}\",\"Desktop\",5,6,300,2,8
"),
    ("browsers", "\"date\",\"browser\",\"browser_version\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"
\"{d10}\",\"Chrome\",\"120\",7,8,800,2,20
\"{d10}\",\"Firefox\",\"119\",3,4,400,2,10
\"{d9}\",\"Chrome\",\"121\",5,6,300,2,8
"),
    ("operating_systems", "\"date\",\"operating_system\",\"operating_system_version\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"
\"{d10}\",\"Mac\",\"14\",10,12,1200,4,30
\"{d9}\",\"Windows\",\"11\",5,6,300,2,8
"),
];

/// The export as Plausible's "Export data" writes it: every table, stored (not compressed).
fn export(files: &[(String, String)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, text) in files {
        zip.start_file(name.clone(), stored).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn day(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// The files with their days filled in and Plausible's names.
fn files(edit: impl Fn(&str, String) -> String) -> Vec<(String, String)> {
    let today = Utc::now().date_naive();
    let (d10, d9) = (today - chrono::Days::new(10), today - chrono::Days::new(9));
    let suffix = format!("{}_{}", d10.format("%Y%m%d"), today.format("%Y%m%d"));
    FILES
        .iter()
        .map(|(table, text)| {
            let text = text
                .replace("{d10}", &day(d10))
                .replace("{d9}", &day(d9))
                .replace("{today}", &day(today));
            (format!("imported_{table}_{suffix}.csv"), edit(table, text))
        })
        .collect()
}

async fn upload(
    app: &TestApp,
    token: &str,
    project: &Value,
    name: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned()),
    );
    let res = app
        .client
        .post(app.url(&format!("/v1/analytics/imports?project_id={}", id(project))))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Polls the import until it is no longer pending (20 s at most).
async fn settled(app: &TestApp, token: &str, project: &Value, import: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let list = read(app, token, "imports", project, "7d").await;
        let found = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == import)
            .cloned()
            .unwrap_or_else(|| panic!("no import {import} in {list}"));
        if found["status"] != "pending" {
            return found;
        }
        assert!(Instant::now() < deadline, "still pending: {found}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A read's rows as (value, count, visitors).
fn rows(body: &Value, list: &str, key: &str, count: &str) -> Vec<(String, i64, i64)> {
    body[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {body}"))
        .iter()
        .map(|r| {
            (
                r[key].as_str().unwrap().to_owned(),
                r[count].as_i64().unwrap(),
                r["visitors"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn row(list: &[(String, i64, i64)], key: &str) -> Option<(i64, i64)> {
    list.iter().find(|r| r.0 == key).map(|r| (r.1, r.2))
}

#[tokio::test]
async fn a_plausible_export_adds_its_days_before_the_first_own_event_and_leaves_whole() {
    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    let _worker = start_worker(&app, &[]);
    let (token, project) = app.owner_with_project("an-import").await;

    // Not an export: 422 naming the file, nothing created.
    for (name, bytes) in [
        ("notes.csv", b"a,b\n1,2\n".to_vec()),
        ("photos.zip", export(&[("cat.txt".into(), "meow".into())])),
        (
            "imported_pages_20250101_20250102.csv",
            b"\"date\",\"visitors\"\n".to_vec(),
        ),
    ] {
        let (status, body) = upload(&app, &token, &project, name, bytes).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{name}: {body}");
        assert_eq!(
            (&body["code"], &body["errors"][0]["field"]),
            (&json!("unsupported_import"), &json!("file")),
            "{name}: {body}"
        );
    }
    assert_eq!(
        read(&app, &token, "imports", &project, "7d").await["data"],
        json!([])
    );

    // A bad row in one file fails the whole import: nothing of the good files is kept.
    let broken = files(|table, text| match table {
        "pages" => text + "\"yesterday\",\"a\",\"/\",1,1,1,0,0,0,0\n",
        _ => text,
    });
    let (status, made) = upload(&app, &token, &project, "broken.zip", export(&broken)).await;
    assert_eq!(
        (status, &made["status"]),
        (StatusCode::CREATED, &json!("pending")),
        "{made}"
    );
    let failed = settled(&app, &token, &project, made["id"].as_str().unwrap()).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("imported_pages line 5"),
        "{failed}"
    );
    assert_eq!(failed["rows"], 0);
    let overview = read(&app, &token, "overview", &project, "30d").await;
    assert_eq!(overview["page_views"], 0, "{overview}");

    // The export, applied: no own events yet, so every imported day counts.
    let good = export(&files(|_, text| text));
    let (status, made) = upload(
        &app,
        &token,
        &project,
        "acme_example_20251127.zip",
        good.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let done = settled(&app, &token, &project, made["id"].as_str().unwrap()).await;
    let today = Utc::now().date_naive();
    assert_eq!(
        (
            &done["status"],
            &done["from"],
            &done["to"],
            &done["progress"]
        ),
        (
            &json!("done"),
            &json!(day(today - chrono::Days::new(10))),
            &json!(day(today)),
            &json!(100)
        ),
        "{done}"
    );
    assert!(done["rows"].as_i64().unwrap() > 20, "{done}");
    let overview = read(&app, &token, "overview", &project, "30d").await;
    assert_eq!(
        (
            &overview["page_views"],
            &overview["unique_visitors"],
            &overview["visits"],
            &overview["bounce_rate"],
            &overview["visit_duration"],
            &overview["top_page"],
            &overview["top_referrer"]
        ),
        (
            &json!(138),
            &json!(115),
            &json!(118),
            &json!(5.1),
            &json!(13),
            &json!("/"),
            &json!("x.com")
        ),
        "{overview}"
    );

    // The same days again: refused, the first import stays.
    let (_, again) = upload(&app, &token, &project, "again.zip", good).await;
    let again = settled(&app, &token, &project, again["id"].as_str().unwrap()).await;
    assert_eq!(again["status"], "failed");
    assert!(
        again["error"].as_str().unwrap().contains("overlap"),
        "{again}"
    );

    // An own event today: the imported days before it count, today's imported figures do not.
    track(
        &app,
        key(&project),
        "81.2.69.142",
        CHROME,
        json!({"url": "https://acme.example/"}),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let o = read(&app, &token, "overview", &project, "30d").await;
        if o["page_views"] == 39 {
            assert_eq!(o["unique_visitors"], 16, "{o}");
            break;
        }
        assert!(Instant::now() < deadline, "own day not preferred: {o}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let pages = rows(
        &read(&app, &token, "pages", &project, "30d").await,
        "data",
        "page",
        "views",
    );
    assert_eq!(row(&pages, "/"), Some((29, 14)), "{pages:?}");
    assert_eq!(row(&pages, "/pricing"), Some((10, 2)), "{pages:?}");
    let refs = rows(
        &read(&app, &token, "referrers", &project, "30d").await,
        "data",
        "referrer",
        "views",
    );
    assert_eq!(
        refs,
        vec![
            ("news.ycombinator.com".into(), 20, 8),
            ("google.com".into(), 5, 3)
        ]
    );
    let countries = rows(
        &read(&app, &token, "countries", &project, "30d").await,
        "data",
        "country",
        "views",
    );
    assert_eq!(row(&countries, "US"), Some((12, 4)), "{countries:?}");
    assert!(row(&countries, "DE").unwrap().0 >= 26, "{countries:?}");
    let devices = read(&app, &token, "devices", &project, "30d").await;
    let by_device = rows(&devices, "data", "device", "views");
    assert_eq!(
        row(&by_device, "desktop"),
        Some((29, 13)),
        "Laptop counts as desktop: {by_device:?}"
    );
    assert_eq!(row(&by_device, "mobile"), Some((10, 3)), "{by_device:?}");
    assert_eq!(
        row(&rows(&devices, "browsers", "browser", "views"), "Firefox"),
        Some((10, 3))
    );
    assert_eq!(
        row(&rows(&devices, "operating_systems", "os", "views"), "Mac"),
        Some((30, 10))
    );
    let utm = read(&app, &token, "utm", &project, "30d").await;
    assert_eq!(
        rows(&utm, "sources", "utm_source", "views"),
        vec![("hn".into(), 20, 8)]
    );
    assert_eq!(
        rows(&utm, "campaigns", "utm_campaign", "views"),
        vec![("launch".into(), 20, 8)]
    );
    let events = rows(
        &read(&app, &token, "events", &project, "30d").await,
        "data",
        "name",
        "count",
    );
    assert_eq!(row(&events, "page_view"), Some((39, 16)), "{events:?}");
    assert_eq!(row(&events, "Signup"), Some((3, 2)), "{events:?}");
    assert_eq!(
        row(&events, "engagement"),
        None,
        "Plausible's own bookkeeping is left out"
    );
    let entries = rows(
        &read(&app, &token, "entry-pages", &project, "30d").await,
        "data",
        "page",
        "visits",
    );
    assert_eq!(row(&entries, "/pricing"), Some((2, 2)), "{entries:?}");
    let exits = rows(
        &read(&app, &token, "exit-pages", &project, "30d").await,
        "data",
        "page",
        "visits",
    );
    assert_eq!(row(&exits, "/pricing"), Some((7, 6)), "{exits:?}");
    let series = read(&app, &token, "timeseries", &project, "30d").await;
    let point = series["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["date"]
                .as_str()
                .unwrap()
                .starts_with(&day(today - chrono::Days::new(10)))
        })
        .cloned()
        .unwrap();
    assert_eq!(
        (&point["views"], &point["visitors"]),
        (&json!(30), &json!(10)),
        "{point}"
    );

    // A filtered read is the own events' alone.
    let (_, filtered) = app
        .call(
            Method::GET,
            &format!(
                "/v1/analytics/overview?project_id={}&period=30d&page=/",
                id(&project)
            ),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_eq!(filtered["page_views"], 1, "{filtered}");

    // Deleting the import removes what it brought.
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("/v1/analytics/imports/{}", done["id"].as_str().unwrap()),
            Auth::Session(&token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let overview = read(&app, &token, "overview", &project, "30d").await;
    assert_eq!(overview["page_views"], 1, "{overview}");
}
