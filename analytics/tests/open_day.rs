//! The open day's ended visits, kept by the upkeep (`clickhouse::open_day`): reads of today's
//! visits take them and cut only the visitor days still active, each visit once, with PostgreSQL
//! mode's figures; an event stored late (before a step's cutoff) makes reads cut the whole day
//! again, and the upkeep starts its steps over; a later step adds only the visits ended since.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "support/pg.rs"]
mod pg;
#[path = "support/clickhouse.rs"]
mod server;
#[path = "support/stored.rs"]
mod stored;
#[path = "support/views.rs"]
mod views;

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use shipmate_analytics::clickhouse::ClickHouse;
use shipmate_analytics::pg::Postgres;
use shipmate_analytics::seam::{EventStore, Stored};
use shipmate_analytics::ReadQuery;
use stored::store;
use uuid::Uuid;

const DB: &str = "shipmate_open_day";

/// A page view of `visitor` on `path`, `minutes` before `now`.
fn view(
    project_id: Uuid,
    now: DateTime<Utc>,
    (visitor, minutes, path): (i64, i64, &str),
) -> Stored {
    let ts = now - Duration::minutes(minutes);
    let entry = (ts.timestamp_millis() << 20) | (visitor << 8) | minutes;
    views::page_view(project_id, entry, ts, visitor, path)
}

/// The visit reads (overview, entry and exit pages) of today and of 7 days, as JSON.
async fn visit_reads(events: &dyn EventStore, project: Uuid) -> Value {
    let today = Utc::now().date_naive().to_string();
    let mut all = Vec::new();
    for pairs in [
        vec![("from", &today[..]), ("to", &today)],
        vec![("period", "7d")],
    ] {
        let q: HashMap<String, String> = (pairs.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let q = ReadQuery::parse(&q, Utc::now()).unwrap();
        let r = events.reader(project, &q).await.unwrap();
        all.push(json!([
            r.overview().await.unwrap(),
            r.entry_pages().await.unwrap(),
            r.exit_pages().await.unwrap()
        ]));
    }
    Value::Array(all)
}

#[tokio::test]
async fn todays_ended_visits_are_kept_and_read_once_with_the_rest() {
    let now = Utc::now();
    let midnight = now.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
    if now - midnight < Duration::minutes(90) {
        // The visits below would fall on yesterday: nothing of today could have ended.
        eprintln!("skipped in the first 90 minutes of a UTC day");
        return;
    }
    let server = server::ClickHouse::start();
    let db = pg::fresh_pg().await;
    let pg = Postgres::new(db.clone());
    let ch = ClickHouse::connect(&server.url(DB), None, db.clone())
        .await
        .unwrap();
    let project = pg::project(&db).await;
    let count = |sql: String| {
        let server = &server;
        async move { server::answer(server, DB, &sql).await }
    };
    let kept = |run: &str| {
        format!("SELECT count() FROM open_visits WHERE project_id = '{project}' AND run {run}")
    };
    // The upkeep's cutoff is 5 to 15 minutes ago: visits that ended 35 to 45 minutes ago or
    // earlier are kept. Visitor 1 ended a visit entering /a 70 minutes ago and entered /a again
    // 10 minutes ago (one visitor of /a across both parts); visitor 2 bounced on /b; visitor 3's
    // visit runs from before the cutoff's 30 minutes to after them.
    let views = [
        (1, 80, "/a"),
        (1, 70, "/x"),
        (1, 10, "/a"),
        (2, 75, "/b"),
        (3, 50, "/c"),
        (3, 30, "/x"),
        (3, 12, "/y"),
    ];
    let rows: Vec<Stored> = views.iter().map(|v| view(project, now, *v)).collect();
    store(&pg, &rows).await;
    store(&ch, &rows).await;
    let cut_alone = visit_reads(&ch, project).await;
    assert_eq!(cut_alone, visit_reads(&pg, project).await);
    // A row of the day before yesterday: the day's first step drops that day.
    let old = (now - Duration::days(2)).date_naive();
    server::answer(
        &server,
        DB,
        &format!("INSERT INTO open_visits (project_id, day, run) VALUES ('{project}', '{old}', 1)"),
    )
    .await;
    ch.upkeep(now).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let old = format!("SELECT count() FROM open_visits WHERE day = '{old}'");
    while count(old.clone()).await != "0" {
        assert!(
            std::time::Instant::now() < deadline,
            "the old day was not dropped"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(count(kept("> 0")).await, "2", "the two visits that ended");
    assert_eq!(visit_reads(&ch, project).await, cut_alone);

    // A late event before the cutoff (visitor 2, 50 minutes ago) changes a kept visit: reads cut
    // the whole day again, and the next round starts the steps over.
    let late = [view(project, now, (2, 50, "/b2"))];
    store(&pg, &late).await;
    store(&ch, &late).await;
    let with_late = visit_reads(&pg, project).await;
    assert_ne!(with_late, cut_alone);
    assert_eq!(visit_reads(&ch, project).await, with_late);
    ch.upkeep(now).await.unwrap();
    let firsts = "SELECT count() FROM open_cuts WHERE prev = 0".to_owned();
    assert_eq!(count(firsts).await, "2", "started over");
    assert_eq!(visit_reads(&ch, project).await, with_late);

    // Forty minutes on (still today), every visit has ended: the next step adds visitor 1's
    // second and visitor 3's, and only them, to the step before it.
    let later = now + Duration::minutes(40);
    if later.date_naive() == now.date_naive() {
        ch.upkeep(later).await.unwrap();
        let last = "(SELECT argMax(run, run) FROM open_cuts)";
        let prev = "(SELECT argMax(prev, run) FROM open_cuts)";
        assert_eq!(count(kept(&format!("= {last}"))).await, "2");
        assert_eq!(count(kept(&format!("= {prev}"))).await, "2");
    }

    // The kept rows are what reads take: one more under the newest step is counted.
    let fake = format!(
        "INSERT INTO open_visits (project_id, day, visitor, started, ended, page_views, entry, exit, run)
         SELECT toUUID('{project}'), today(), 9, {t}, {t}, 1, '/kept', '/kept', argMax(run, run)
         FROM open_cuts WHERE cutoff <= {now}",
        t = (now - Duration::minutes(60)).timestamp_micros(),
        now = now.timestamp_micros(),
    );
    server::answer(&server, DB, &fake).await;
    let read = visit_reads(&ch, project).await.to_string();
    assert!(read.contains("/kept"), "{read}");
}
