//! The differential test's helpers: PostgreSQL mode's summary roundings set aside, and a
//! Plausible export imported for the reads that add imported days.

use chrono::Utc;
use serde_json::{json, Value};
use shipmate_analytics::imports;
use uuid::Uuid;

/// PostgreSQL mode's unfiltered reads take closed days from summaries, which round two figures
/// (docs/analytics.md): a closed day's visit durations are kept in histogram steps (the median
/// is its step's start), and a visitor whose visits entering (leaving) on one page were summarised
/// by different passes counts twice among its visitors. ClickHouse counts both exactly from the
/// events: checked here to be within that rounding, then taken as PostgreSQL's for the comparison.
pub fn summaries_aside(want: &mut Value, got: &Value, case: &[(&str, &str)]) {
    let step = |d: i64| match d {
        ..60 => 1,
        60..600 => 10,
        600..3600 => 60,
        _ => 600,
    };
    let mut overviews = vec![("/overview".to_owned(), "/overview".to_owned())];
    if !want["overview"]["previous"].is_null() {
        overviews.push(("/overview/previous".into(), "/overview/previous".into()));
    }
    for (at, _) in overviews {
        let (pg, ch) = (
            want.pointer(&format!("{at}/visit_duration"))
                .and_then(Value::as_i64)
                .unwrap(),
            got.pointer(&format!("{at}/visit_duration"))
                .and_then(Value::as_i64)
                .unwrap(),
        );
        assert!(
            (pg..pg + step(pg)).contains(&ch) || pg == ch,
            "median {ch} outside PostgreSQL's step from {pg} ({case:?})"
        );
        *want.pointer_mut(&format!("{at}/visit_duration")).unwrap() = json!(ch);
    }
    for read in ["entry_pages", "exit_pages"] {
        let (pg, ch) = (
            want[read]["data"].as_array().unwrap(),
            got[read]["data"].as_array().unwrap(),
        );
        let count = |rows: &[Value], page: &Value, field: &str| {
            rows.iter()
                .find(|r| &r["page"] == page)
                .map(|r| r[field].as_i64().unwrap())
        };
        for row in ch {
            let page = &row["page"];
            assert_eq!(
                count(pg, page, "visits"),
                row["visits"].as_i64(),
                "{read} {page} ({case:?})"
            );
            assert!(
                count(pg, page, "visitors").unwrap() >= row["visitors"].as_i64().unwrap(),
                "{read} {page} ({case:?})"
            );
        }
        assert_eq!(pg.len(), ch.len(), "{read} ({case:?})");
        want[read] = got[read].clone();
    }
}

/// A done import of days 10 to 6 ago: totals, pages, sources, countries and devices.
pub async fn import(db: &sqlx::PgPool, project: Uuid) {
    use std::io::Write;
    let day = |n: u64| (Utc::now().date_naive() - chrono::Days::new(n)).to_string();
    let files = [
        ("imported_visitors.csv", format!("date,visitors,pageviews,bounces,visits,visit_duration\n{},4,10,1,5,300\n{},6,20,2,7,100\n", day(10), day(6))),
        ("imported_pages.csv", format!("date,hostname,page,visits,visitors,pageviews\n{},a,/pricing,3,3,8\n{},a,/imported,2,2,12\n", day(10), day(6))),
        ("imported_sources.csv", format!("date,source,referrer,utm_source,utm_medium,utm_campaign,pageviews,visitors,visits,visit_duration,bounces\n{},N,news.example,newsletter,email,,9,3,3,60,1\n", day(10))),
        ("imported_locations.csv", format!("date,country,region,city,visitors,visits,visit_duration,bounces,pageviews\n{},DE,,0,4,5,300,1,10\n", day(10))),
        ("imported_devices.csv", format!("date,device,visitors,visits,visit_duration,bounces,pageviews\n{},Laptop,4,5,300,1,10\n", day(10))),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in &files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    let bytes = zip.finish().unwrap().into_inner();
    imports::store::create(db, project, "export.zip", &bytes)
        .await
        .unwrap();
    let claimed = imports::apply::claim(db).await.unwrap().unwrap();
    assert!(imports::apply::apply(db, claimed).await.unwrap());
}
