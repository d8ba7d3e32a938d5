//! The ClickHouse event store against PostgreSQL's: the same events stored in both, every read
//! answered by ClickHouse is compared with PostgreSQL mode's answer for the same query ("same
//! figures in both modes"), with and without filters. Real servers: the test's own
//! clickhouse-server (`support/clickhouse.rs`) and a fresh PostgreSQL database.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "support/aside.rs"]
mod aside;
#[path = "support/mix.rs"]
mod mix;
#[path = "support/pg.rs"]
mod pg;
#[path = "support/replicas.rs"]
mod replicas;
#[path = "support/clickhouse.rs"]
mod server;
#[path = "support/stored.rs"]
mod stored;
use aside::{import, summaries_aside};
use pg::{fresh_pg, project};
use stored::{store, try_store};

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{Duration, Utc};
use mix::{checkout, events, page, query};
use replicas::replicated;
use serde_json::{json, Value};
use shipmate_analytics::clickhouse::ClickHouse;
use shipmate_analytics::imports::reads::WithImports;
use shipmate_analytics::pg::Postgres;
use shipmate_analytics::query::{Dim, Filters};
use shipmate_analytics::seam::{Batch, EventStore};
use shipmate_analytics::ReadQuery;
use shipmate_types::analytics::{Funnel, NewFunnel, Step};
use uuid::Uuid;

/// Every read ClickHouse answers, as JSON, for one query.
async fn reads(events: &dyn EventStore, project: Uuid, q: &ReadQuery) -> Value {
    let r = events.reader(project, q).await.unwrap();
    let funnel = |steps: Vec<Step>| Funnel {
        id: Uuid::nil(),
        project_id: project,
        name: "f".into(),
        steps,
        created_at: Utc::now(),
    };
    let funnels = [
        funnel(checkout()),
        funnel(vec![page("/docs"), page("/"), page("/nowhere")]),
    ];
    // Goal breakdowns of sources: an event goal with revenue, a page goal without.
    let mut converted = Vec::new();
    let utm = [Dim::UtmSource, Dim::UtmMedium, Dim::UtmCampaign];
    for (dims, (goal, value), currency) in [
        (&[Dim::Referrer][..], (Dim::Event, "signup"), Some("EUR")),
        (&utm[..], (Dim::Event, "signup"), Some("USD")),
        (&[Dim::UtmCampaign][..], (Dim::Page, "/pricing"), None),
    ] {
        let per_dim = r
            .conversions(dims, &q.filters.with(goal, value), currency)
            .await
            .unwrap();
        for mut rows in per_dim {
            rows.sort_by(|a, b| a.key.cmp(&b.key));
            converted.push(json!(rows));
        }
    }
    let mut reached = Vec::new();
    for f in &funnels {
        reached.push(json!(events.funnel(f, q).await.unwrap()));
    }
    json!({
        "overview": r.overview().await.unwrap(),
        "entry_pages": r.entry_pages().await.unwrap(),
        "exit_pages": r.exit_pages().await.unwrap(),
        "funnels": reached,
        "pages": r.pages().await.unwrap(),
        "referrers": r.referrers().await.unwrap(),
        "countries": r.countries().await.unwrap(),
        "devices": r.devices().await.unwrap(),
        "utm": r.utm().await.unwrap(),
        "events": r.events().await.unwrap(),
        "timeseries": r.timeseries().await.unwrap(),
        "visitors": r.visitors().await.unwrap(),
        "plans": r.properties("signup", "plan").await.unwrap(),
        "counts": r.properties("signup", "n").await.unwrap(),
        "trials": r.properties("signup", "trial").await.unwrap(),
        "revenue": [r.revenue("EUR").await.unwrap(), r.revenue("USD").await.unwrap()],
        "conversions": converted,
        "journeys": [
            r.journeys("/pricing").await.unwrap(),
            r.journeys("/").await.unwrap(),
            r.journeys("/nowhere").await.unwrap(),
        ],
    })
}

/// Every read of both stores for each case, compared (PostgreSQL's summary roundings aside).
async fn same_answers(
    pg: &dyn EventStore,
    ch: &dyn EventStore,
    project: Uuid,
    cases: &[Vec<(&str, &str)>],
) {
    for case in cases {
        let q = query(case, Utc::now());
        let (mut want, got) = (reads(pg, project, &q).await, reads(ch, project, &q).await);
        if case
            .iter()
            .all(|(k, _)| ["period", "from", "to", "compare"].contains(k))
        {
            summaries_aside(&mut want, &got, case);
        }
        for (read, expected) in want.as_object().unwrap() {
            assert_eq!(&got[read], expected, "{read} with {case:?}");
        }
        // Every case matches some events: a comparison of empty answers would prove nothing.
        assert!(want["visitors"].as_i64().unwrap() > 0, "{case:?}: {want}");
        assert!(
            !want["events"]["data"].as_array().unwrap().is_empty(),
            "{case:?}: {want}"
        );
        // Some sources converted, with revenue, at least without filters.
        if case
            .iter()
            .all(|(k, _)| ["period", "from", "to", "compare"].contains(k))
        {
            let rows = want["conversions"][0].as_array().unwrap();
            assert!(
                rows.iter()
                    .any(|c| c["revenue"]["counted"].as_i64() > Some(0)),
                "{case:?}: {rows:?}"
            );
        }
        // Funnels walk several steps, at least without filters.
        if case.is_empty() {
            let steps = &want["funnels"][0]["steps"];
            assert!(steps[2]["visitors"].as_i64() > Some(0), "{steps}");
        }
        // Journeys around a page of the mix: some visits go on from it, some end there.
        assert!(
            want["journeys"][0]["next"].as_array().unwrap().len() > 1,
            "{case:?}: {}",
            want["journeys"]
        );
        // Engagement medians where engagement events match (an `event` filter names another).
        assert!(
            case.iter().any(|(k, _)| *k == "event")
                || want["pages"]["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|p| p["scroll_depth"].is_i64() && p["time_on_page"].is_i64()),
            "{case:?}: no page with engagement medians: {want}"
        );
    }
}

#[tokio::test]
async fn clickhouse_answers_every_read_as_postgresql_does() {
    let server = server::ClickHouse::start();
    let db = fresh_pg().await;
    let pg = Postgres::new(db.clone());
    let ch = ClickHouse::connect(&server.url("shipmate_diff"), None, db.clone())
        .await
        .unwrap();
    let project = project(&db).await;
    let now = Utc::now();
    pg.upkeep(now).await.unwrap();
    let rows = events(project, now);
    store(&pg, &rows).await;
    store(&ch, &rows).await;
    pg.upkeep(Utc::now()).await.unwrap();
    let yesterday = (now - Duration::days(1)).date_naive().to_string();
    let cases: Vec<Vec<(&str, &str)>> = vec![
        vec![],
        vec![("period", "30d")],
        vec![("page", "/pricing")],
        vec![("event", "signup"), ("period", "30d")],
        vec![("country", "DE"), ("device", "mobile")],
        vec![("event", "signup"), ("browser", "Firefox")],
        vec![("from", &yesterday), ("to", &yesterday)],
        vec![("period", "7d"), ("compare", "previous")],
        vec![
            ("utm_source", "newsletter"),
            ("referrer", "news.example"),
            ("os", "Linux"),
        ],
    ];
    same_answers(&pg, &ch, project, &cases).await;
    let mut cut = Vec::new();
    for case in &cases {
        cut.push(reads(&ch, project, &query(case, Utc::now())).await);
    }
    // As the workers leave it: the closed days summarised, today's from the events. Every read
    // adds the two parts (summary rows, or the copy sorted by filter, and today's events) and is
    // exactly what it was from the events alone.
    assert!(ch.upkeep(Utc::now()).await.unwrap() >= 1, "the closed days");
    for (case, cut) in cases.iter().zip(&cut) {
        let parts = reads(&ch, project, &query(case, Utc::now())).await;
        assert_eq!(&parts, cut, "closed days summarised with {case:?}");
    }
    same_answers(&pg, &ch, project, &cases).await;
    // Again with every day summarised (today closed early for the test). Then a day whose events
    // changed after its summary is summarised again, whole, and nothing else.
    // The first funnel `reads` reads, saved: the upkeep counts its closed days not counted yet
    // (today's; the reads above stored the days then closed) before any read (the reads below
    // then take them, and must still equal PostgreSQL's).
    let saved = NewFunnel {
        project_id: project,
        name: "saved".into(),
        steps: checkout(),
    };
    shipmate_analytics::funnels::create(&db, saved)
        .await
        .unwrap();
    let tomorrow = Utc::now() + Duration::days(1);
    assert!(ch.upkeep(tomorrow).await.unwrap() >= 1, "today");
    assert_eq!(ch.upkeep(tomorrow).await.unwrap(), 0, "nothing changed");
    let start = (tomorrow - Duration::days(89)).date_naive();
    let closed =
        format!("SELECT count() FROM shipmate_diff.paired_days FINAL WHERE day >= '{start}'");
    let closed = number(&server, &closed).await;
    // The saved funnel is the one with the most days (the reads above stored both funnels' counts
    // of the days then closed).
    for of in ["uniqExact(day)", "count()"] {
        let sql = format!(
            "SELECT {of} FROM shipmate_diff.funnel_daily GROUP BY funnel
             ORDER BY uniqExact(day) DESC, count() DESC LIMIT 1"
        );
        assert_eq!(
            number(&server, &sql).await,
            closed,
            "{of}: the saved funnel's days, once"
        );
    }
    for (case, cut) in cases.iter().zip(cut) {
        let stored = reads(&ch, project, &query(case, Utc::now())).await;
        assert_eq!(stored, cut, "summarised with {case:?}");
    }
    pair_rows_are_read(&server, &ch, project).await;
    // Funnels read without filters stored their summarised days' counts, and the reads from here
    // on take them from there.
    let funnel_days = "SELECT count() FROM shipmate_diff.funnel_daily";
    assert!(
        number(&server, funnel_days).await > 0,
        "no funnel counts stored"
    );
    same_answers(&pg, &ch, project, &cases).await;
    let mut late = events(project, now);
    late.truncate(3);
    for (i, e) in late.iter_mut().enumerate() {
        e.entry = (Utc::now().timestamp_millis() << 20) | 900 | i as i64;
        e.ts = now - Duration::minutes(1) + Duration::seconds(i as i64);
    }
    store(&pg, &late).await;
    store(&ch, &late).await;
    pg.upkeep(Utc::now()).await.unwrap();
    assert_eq!(
        ch.upkeep(tomorrow).await.unwrap(),
        1,
        "the late events' day"
    );
    same_answers(&pg, &ch, project, &cases).await;
    // The late events' day was summarised again: its funnel counts were computed again under the
    // new run, not taken from the old one's.
    let late_day = late[0].ts.date_naive();
    let runs =
        format!("SELECT uniqExact(run) FROM shipmate_diff.funnel_daily WHERE day = '{late_day}'");
    assert_eq!(number(&server, &runs).await, 2, "{late_day}");
    let filters = [
        Filters::default(),
        query(&[("device", "tablet")], now).filters,
    ];
    for f in &filters {
        let at = Utc::now();
        let (want, got) = (
            pg.realtime(project, at, f).await.unwrap(),
            ch.realtime(project, at, f).await.unwrap(),
        );
        assert_eq!(json!(got), json!(want), "realtime with {f:?}");
    }

    // Imported days (a Plausible export of days before the first own event) add alike to both.
    let before = reads(&pg, project, &query(&[], Utc::now())).await;
    import(&db, project).await;
    let (pg, ch) = (
        WithImports::new(Arc::new(pg), db.clone()),
        WithImports::new(Arc::new(ch), db.clone()),
    );
    same_answers(&pg, &ch, project, &cases).await;
    let after = reads(&pg, project, &query(&[], Utc::now())).await;
    assert_eq!(
        after["overview"]["page_views"].as_i64().unwrap(),
        before["overview"]["page_views"].as_i64().unwrap() + 30,
        "{after}"
    );
}

#[tokio::test]
async fn a_stored_entry_is_found_and_not_stored_twice() {
    let mut server = server::ClickHouse::start();
    let db = fresh_pg().await;
    let ch = ClickHouse::connect(&server.url("shipmate_replay"), None, db.clone())
        .await
        .unwrap();
    // Connecting again finds the tables made (the steps run once).
    let ch_again = ClickHouse::connect(&server.url("shipmate_replay"), None, db.clone())
        .await
        .unwrap();
    let project = project(&db).await;
    let rows = events(project, Utc::now());
    let (first, rest) = rows.split_at(10);
    store(&ch, first).await;
    // Stored means on disk: a server killed and started again still has them.
    server.restart();
    let entries: Vec<i64> = rows.iter().map(|r| r.entry).collect();
    let found = ch_again.already_stored(&entries).await.unwrap();
    assert_eq!(found.len(), 10);
    assert!(first.iter().all(|r| found.contains(&r.entry)));
    assert!(!found.contains(&rest[0].entry));
    // A redelivered read holding a stored entry is refused whole: another worker stored it.
    let labels = HashMap::new();
    let refused = ch
        .insert(Batch {
            rows: &rows[5..20],
            labels: &labels,
            bots: &[],
            entries: &entries[5..20],
            redelivered: true,
        })
        .await;
    assert!(refused.is_err());
    let q = query(&[], Utc::now());
    let r = ch.reader(project, &q).await.unwrap();
    let total: i64 = r.events().await.unwrap().data.iter().map(|e| e.count).sum();
    assert_eq!(total, 10);
}

#[tokio::test]
async fn the_copy_from_postgresql_resumes_adds_nothing_twice_and_counts() {
    use shipmate_analytics::clickhouse::copy::copy;
    let server = server::ClickHouse::start();
    let db = fresh_pg().await;
    let pg = Postgres::new(db.clone());
    let ch = ClickHouse::connect(&server.url("shipmate_copy"), None, db.clone())
        .await
        .unwrap();
    let project = project(&db).await;
    let now = Utc::now();
    pg.upkeep(now).await.unwrap();
    store(&pg, &events(project, now)).await;
    let before = now - Duration::hours(1);
    let mut last = (0, 0);
    let first = copy(&ch, &db, before, Some(3), |done, all| last = (done, all))
        .await
        .unwrap();
    assert_eq!(first.hours, 3);
    assert!(last.0 < last.1, "{last:?}");
    let rest = copy(&ch, &db, before, None, |done, all| last = (done, all))
        .await
        .unwrap();
    assert_eq!(rest.skipped, 3);
    assert!(rest.hours > 3, "{rest:?}");
    assert_eq!(last.0, last.1);
    assert_eq!(rest.in_postgres, rest.in_clickhouse);
    assert_eq!(rest.in_postgres, first.events + rest.events);
    let again = copy(&ch, &db, before, None, |_, _| {}).await.unwrap();
    assert_eq!((again.hours, again.events), (0, 0));
    assert_eq!(again.skipped, first.hours + rest.hours);
    assert_eq!(again.in_clickhouse, rest.in_clickhouse);
    // The copied days read as PostgreSQL reads them.
    let day = (before - Duration::days(1)).date_naive().to_string();
    let q = query(&[("from", &day), ("to", &day)], Utc::now());
    let (a, b) = (
        pg.reader(project, &q).await.unwrap(),
        ch.reader(project, &q).await.unwrap(),
    );
    assert_eq!(
        json!(b.events().await.unwrap()),
        json!(a.events().await.unwrap())
    );
    assert_eq!(
        json!(b.pages().await.unwrap()),
        json!(a.pages().await.unwrap())
    );
    assert_eq!(
        json!(b.devices().await.unwrap()),
        json!(a.devices().await.unwrap())
    );
}

#[tokio::test]
async fn a_cluster_of_two_shards_answers_as_one_server_with_a_replica_down() {
    let mut cluster = server::Cluster::start("two", 2, 2);
    let db = fresh_pg().await;
    let pg = Postgres::new(db.clone());
    let url = cluster.nodes[0].url("shipmate_cluster");
    let ch = ClickHouse::connect(&url, Some("two"), db.clone())
        .await
        .unwrap();
    // Made once: a second start (another api) finds the replicated versions.
    ClickHouse::connect(
        &cluster.nodes[2].url("shipmate_cluster"),
        Some("two"),
        db.clone(),
    )
    .await
    .unwrap();
    let project = project(&db).await;
    let now = Utc::now();
    pg.upkeep(now).await.unwrap();
    let rows = events(project, now);
    let (first, rest) = rows.split_at(250);
    let (middle, later) = rest.split_at(50);
    store(&pg, first).await;
    store(&ch, first).await;
    // Killed with nothing in flight: a replica killed while it fetches a part refuses to start
    // (docs/scaling.md, "Failure modes").
    replicated(&cluster, 250).await;
    // A shard down refuses the insert (the worker keeps the entries and tries again); once it is
    // back the retry stores the block, and what reached the other shard the first time is not
    // stored twice.
    cluster.nodes[2].kill();
    cluster.nodes[3].kill();
    assert!(try_store(&ch, middle).await.is_err());
    cluster.nodes[2].restart();
    cluster.nodes[3].restart();
    store(&ch, middle).await;
    store(&pg, middle).await;
    replicated(&cluster, 300).await;
    // One replica of shard 2 down: inserts and reads go to the other.
    cluster.nodes[3].kill();
    store(&pg, later).await;
    store(&ch, later).await;
    // The same block sent again (an answer lost in transit) is dropped by the replicas.
    store(&ch, later).await;
    pg.upkeep(Utc::now()).await.unwrap();
    same_answers(&pg, &ch, project, &[vec![], vec![("page", "/pricing")]]).await;
    // Visits summarised on the cluster with that replica still down, then read from there once
    // the first shard's two replicas hold the same summaries (a read may ask either).
    assert!(ch.upkeep(Utc::now() + Duration::days(1)).await.unwrap() >= 2);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    for table in ["daily_local", "events_by_local"] {
        let count = format!("SELECT count() FROM shipmate_cluster.{table}");
        while number(&cluster.nodes[0], &count).await != number(&cluster.nodes[1], &count).await {
            assert!(std::time::Instant::now() < deadline, "{table} never agreed");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
    same_answers(&pg, &ch, project, &[vec![], vec![("page", "/pricing")]]).await;
}

/// Reads with two filters, one of them a visitor's value (`sql::paired`), take the summarised
/// days' rows under the pair, whichever filter comes first: page views put under the pair's rows
/// of the newest summarised day's run count in both orders.
async fn pair_rows_are_read(server: &server::ClickHouse, ch: &ClickHouse, project: Uuid) {
    let case = [("period", "7d"), ("page", "/pricing"), ("country", "DE")];
    let orders = [query(&case, Utc::now()), {
        let mut q = query(&case, Utc::now());
        q.filters.0.reverse();
        q
    }];
    let views = |q: &ReadQuery| {
        let q = q.clone();
        async move {
            let read = reads(ch, project, &q).await;
            read["overview"]["page_views"].as_i64().unwrap()
        }
    };
    let before = (views(&orders[0]).await, views(&orders[1]).await);
    assert_eq!(before.0, before.1);
    let fake = format!(
        "INSERT INTO daily_by (project_id, day, fdim, fval, dim, key, views, visitors, run)
         SELECT toUUID('{project}'), day, 'path&country=DE', '/pricing', 'total', '', 1000, 0, run
         FROM paired_days FINAL ORDER BY day DESC LIMIT 1"
    );
    server::answer(server, "shipmate_diff", &fake).await;
    for q in &orders {
        assert_eq!(views(q).await, before.0 + 1000, "{:?}", q.filters);
    }
}

/// One number from a statement on `node`.
async fn number(node: &server::ClickHouse, sql: &str) -> u64 {
    let text = server::answer(node, "default", sql).await;
    text.parse().unwrap_or_else(|_| panic!("{text}"))
}

#[tokio::test]
async fn a_deleted_projects_events_and_summaries_are_deleted_and_no_one_elses() {
    let server = server::ClickHouse::start();
    let db = fresh_pg().await;
    let ch = ClickHouse::connect(&server.url("shipmate_forget"), None, db.clone())
        .await
        .unwrap();
    let (gone, kept) = (project(&db).await, project(&db).await);
    let now = Utc::now();
    let mut rows = events(gone, now);
    rows.extend(events(kept, now).into_iter().map(|mut e| {
        e.entry += 1000;
        e
    }));
    store(&ch, &rows).await;
    assert!(ch.upkeep(Utc::now() + Duration::days(1)).await.unwrap() >= 2);
    let held = |project: Uuid, table: &'static str| {
        let server = &server;
        async move {
            number(
                server,
                &format!("SELECT count() FROM shipmate_forget.{table} WHERE project_id = toUUID('{project}')"),
            )
            .await
        }
    };
    let (kept_events, kept_visits) = (held(kept, "events").await, held(kept, "daily").await);
    assert_eq!(kept_events, 400);
    assert!(held(gone, "daily").await > 0 && kept_visits > 0);
    let kept_stored = held(kept, "events_by").await;
    assert!(held(gone, "events_by").await > 0 && kept_stored > 0);
    let kept_filtered = held(kept, "daily_by").await;
    assert!(held(gone, "daily_by").await > 0 && kept_filtered > 0);
    let kept_goals = held(kept, "goal_daily").await;
    assert!(held(gone, "goal_daily").await > 0 && kept_goals > 0);

    sqlx::query("delete from projects where id = $1")
        .bind(gone)
        .execute(&db)
        .await
        .unwrap();
    ch.upkeep(Utc::now()).await.unwrap();
    // Mutations run in the background: polled until they are done.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let mut left = 0;
        for table in ["events", "daily", "daily_by", "goal_daily", "events_by"] {
            left += held(gone, table).await;
        }
        if left == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the deleted project's rows stayed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(held(kept, "daily_by").await, kept_filtered);
    assert_eq!(held(kept, "goal_daily").await, kept_goals);
    assert_eq!(held(kept, "events").await, kept_events);
    assert_eq!(held(kept, "daily").await, kept_visits);
    assert_eq!(held(kept, "events_by").await, kept_stored);
    let left: i64 = sqlx::query_scalar("select count(*) from analytics_forgotten_projects")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(left, 0, "forgotten once done");
}
