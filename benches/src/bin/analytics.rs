//! Analytics benchmarks, everything on this machine at once (load generator, api and one worker in
//! this process, Postgres, Redis): sustained single-event and batched ingestion with the queue's
//! backlog, accept latency and accept-to-visible lag at a fixed rate, reads over 10 million events
//! across 90 days, and bytes stored per event.
//! Run: `cargo run --release -p shipmate-benches --bin analytics` (see benches/README.md).

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{json, Value};
use shipmate_analytics::days;
use shipmate_analytics::pg::{rollup, store};
use shipmate_benches::{load, ms, percentile, start, Bench, BROWSER};
use sqlx::PgPool;

#[derive(Parser)]
struct Args {
    /// Seconds of each sustained ingestion run.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Concurrent senders in the sustained runs.
    #[arg(long, default_value_t = 64)]
    senders: usize,
    /// Events per second of the fixed-rate run (accept latency and lag).
    #[arg(long, default_value_t = 5_000)]
    rate: u64,
    /// Events in the read benchmark's 90 days (0 skips it).
    #[arg(long, default_value_t = 10_000_000)]
    read_events: i64,
    /// Only the read benchmark.
    #[arg(long)]
    reads_only: bool,
    /// Ingestion in ClickHouse mode: a clickhouse-server of its own (as the `clickhouse`
    /// benchmark starts it), events stored and looked for there. Its reads are that benchmark's.
    #[arg(long)]
    clickhouse: bool,
}

#[path = "../../../analytics/tests/support/clickhouse.rs"]
mod server;

/// Where the benchmark looks for stored events: PostgreSQL, or ClickHouse over HTTP.
#[derive(Clone)]
enum Stored {
    Postgres(PgPool),
    ClickHouse(reqwest::Client, String),
}

impl Stored {
    async fn count(&self) -> anyhow::Result<i64> {
        match self {
            Stored::Postgres(db) => Ok(sqlx::query_scalar!(
                r#"select count(*) as "n!" from analytics_events"#
            )
            .fetch_one(db)
            .await?),
            Stored::ClickHouse(..) => Ok(self
                .clickhouse("SELECT count() FROM events")
                .await?
                .parse()?),
        }
    }

    /// Whether an event named `name` of `project` is stored, accepted after `since`.
    async fn seen(&self, project: &str, since: chrono::DateTime<chrono::Utc>, name: &str) -> bool {
        match self {
            Stored::Postgres(db) => sqlx::query_scalar!(
                r#"select exists (select 1 from analytics_events where project_id = $1::text::uuid and ts >= $2 and name = $3) as "seen!""#,
                project,
                since,
                name
            )
            .fetch_one(db)
            .await
            .unwrap_or(false),
            // The names are the benchmark's own markers: nothing to quote.
            Stored::ClickHouse(..) => self
                .clickhouse(&format!(
                    "SELECT count() FROM events WHERE project_id = toUUID('{project}') AND day >= '{}' AND name = '{name}'",
                    since.date_naive()
                ))
                .await
                .is_ok_and(|n| n != "0"),
        }
    }

    async fn clickhouse(&self, sql: &str) -> anyhow::Result<String> {
        let Stored::ClickHouse(http, url) = self else {
            anyhow::bail!("not ClickHouse");
        };
        let res = http.post(url).body(sql.to_owned()).send().await?;
        anyhow::ensure!(res.status().is_success(), "{sql}: {}", res.status());
        Ok(res.text().await?.trim().to_owned())
    }
}

/// Requests and jobs allocate on every core at once: glibc's malloc cost 15 % of the machine in the
/// analytics benchmark (benches/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let ch = args.clickhouse.then(server::ClickHouse::start);
    let ch_url = ch.as_ref().map(|c| c.url("shipmate_bench"));
    let in_clickhouse: Vec<&str> = match &ch_url {
        Some(url) => vec!["--clickhouse-url", url],
        None => vec![],
    };
    // The per-key rate limit (50,000 events/s by default) would cap the batched run: it measures
    // what the machine can take, so the limit is raised out of the way.
    // The public run's clients come through a trusted proxy (this process, on 127.0.0.1).
    let mut flags = vec![
        "--events-rate-per-second",
        "100000000",
        "--trusted-proxies",
        "127.0.0.1/32",
    ];
    flags.extend(&in_clickhouse);
    let b = start(&flags).await?;
    let worker = b.start_worker(&in_clickhouse)?;
    let result = run(&b, &args, ch.as_ref()).await;
    // Stopped first, so that it does not recreate the queue streams just dropped.
    let _ = worker.send(true);
    tokio::time::sleep(Duration::from_secs(1)).await;
    b.finish().await?;
    result
}

async fn run(b: &Bench, args: &Args, ch: Option<&server::ClickHouse>) -> anyhow::Result<()> {
    let db = PgPool::connect(&b.db_url).await?;
    let stored = match ch {
        Some(ch) => Stored::ClickHouse(
            reqwest::Client::new(),
            format!("http://127.0.0.1:{}/?database=shipmate_bench", ch.http_port),
        ),
        None => Stored::Postgres(db.clone()),
    };
    let (project, key, publishable) = b.project_keys("bench-events").await?;
    // Let the worker create today's partition before the load starts.
    tokio::time::sleep(Duration::from_secs(1)).await;

    if !args.reads_only {
        ingestion(b, &stored, &project, (&key, &publishable), args).await?;
    }
    if args.read_events > 0 && ch.is_none() {
        // A project of its own: the ingestion runs above would make its today unusually large.
        let (reads_project, _) = b.project("bench-reads").await?;
        reads(b, &db, &reads_project, args.read_events).await?;
    }
    Ok(())
}

/// Distinct client addresses of the public run, from the benchmarking range 198.18.0.0/15.
const PUBLIC_CLIENTS: u32 = 4096;

/// A fixed rate for latency and lag, then sustained single-event and batched ingestion with the
/// secret key, and single events with the publishable key from many clients, whose per-client
/// limits are on at their defaults.
async fn ingestion(
    b: &Bench,
    db: &Stored,
    project: &str,
    (key, publishable): (&str, &str),
    args: &Args,
) -> anyhow::Result<()> {
    let url = format!("{}/v1/analytics/events", b.base);
    let event =
        json!({"url": "https://example.com/pricing", "referrer": "https://news.ycombinator.com/"});
    let hundred = json!({ "events": vec![event.clone(); 100] });

    // First a steady fixed rate: accept latency, and lag from the 202 to the event being in the
    // reads (after the sustained runs below it would measure the recovery from their backlog).
    let (mut latency, mut lag) =
        fixed_rate(db, project, &url, key, args.rate, args.seconds).await?;
    println!(
        "{} events/s for {} s: accept p50 {} p99 {}; accept to visible p50 {} p99 {} ({} samples)",
        args.rate,
        args.seconds,
        ms(percentile(&mut latency, 50.0)),
        ms(percentile(&mut latency, 99.0)),
        ms(percentile(&mut lag, 50.0)),
        ms(percentile(&mut lag, 99.0)),
        lag.len()
    );

    let request = |key: &str, client: Option<String>, body: &Value| {
        let mut headers = vec![
            ("X-Project-Key", key.to_owned()),
            ("User-Agent", BROWSER.to_owned()),
        ];
        headers.extend(client.map(|c| ("X-Forwarded-For", c)));
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        load::post(&url, &headers, &body.to_string())
    };
    let single = vec![request(key, None, &event)?];
    // What sm.plus.js sends when a page is left: the same path, a partial index more in PostgreSQL.
    let engaged = json!({"name": "engagement", "url": "https://example.com/pricing",
        "properties": {"scroll_depth": 62, "engaged_ms": 41_000}});
    let engagement = vec![request(key, None, &engaged)?];
    let batch = vec![request(key, None, &hundred)?];
    let public = (0..PUBLIC_CLIENTS)
        .map(|i| {
            let client = format!("198.18.{}.{}", i / 256, i % 256);
            request(publishable, Some(client), &event)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    for (label, requests, per_request) in [
        ("single-event requests", single, 1u64),
        ("single-event requests, engagement events", engagement, 1),
        ("batches of 100", batch, 100),
        (
            "single-event requests, publishable key from 4,096 clients, limits at defaults",
            public,
            1,
        ),
    ] {
        let before = db.count().await?;
        let run = sustained(b, &url, Arc::new(requests), args.senders, args.seconds).await?;
        let accepted = run.requests * per_request;
        let drained = wait_stored(b, db, before + accepted as i64).await?;
        println!(
            "{label}: {:.0} events/s accepted ({} requests, {} senders, p99 {}), largest backlog {} queue entries, all stored {} after the load",
            accepted as f64 / args.seconds as f64,
            run.requests,
            args.senders,
            ms(run.p99),
            run.max_backlog(),
            ms(drained),
        );
    }

    Ok(())
}

struct Sustained {
    requests: u64,
    p99: Duration,
    backlog: Vec<u64>,
}

impl Sustained {
    fn max_backlog(&self) -> u64 {
        self.backlog.iter().copied().max().unwrap_or(0)
    }
}

/// `senders` loops posting `requests` as fast as answers come, for `seconds`
/// (`load::sustained`); samples the queue's backlog (entries not yet delivered to a worker, plus
/// delivered and unacknowledged) each 100 ms meanwhile.
async fn sustained(
    b: &Bench,
    url: &str,
    requests: Arc<Vec<Vec<u8>>>,
    senders: usize,
    seconds: u64,
) -> anyhow::Result<Sustained> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let run = tokio::spawn(load::sustained(
        vec![url.to_owned()],
        requests,
        senders,
        seconds,
    ));
    let mut backlog = Vec::new();
    while Instant::now() < deadline {
        backlog.push(queue_backlog(b).await.unwrap_or(0));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (requests, mut took) = run.await?;
    Ok(Sustained {
        requests,
        p99: percentile(&mut took, 99.0),
        backlog,
    })
}

/// Entries of the events stream no worker has finished: the consumer group's lag plus pending.
async fn queue_backlog(b: &Bench) -> anyhow::Result<u64> {
    let client = redis::Client::open(
        std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into()),
    )?;
    let mut c = client.get_multiplexed_async_connection().await?;
    let groups: Vec<Vec<redis::Value>> = redis::cmd("XINFO")
        .arg("GROUPS")
        .arg(format!("{}:jobs:events", b.queue_prefix))
        .query_async(&mut c)
        .await?;
    let mut total = 0;
    for g in groups {
        let fields: Vec<(String, redis::Value)> = g
            .chunks(2)
            .filter_map(|kv| match (&kv[0], kv.get(1)) {
                (redis::Value::BulkString(k), Some(v)) => {
                    Some((String::from_utf8_lossy(k).into_owned(), v.clone()))
                }
                _ => None,
            })
            .collect();
        for (k, v) in fields {
            if let ("lag" | "pending", redis::Value::Int(n)) = (k.as_str(), v) {
                total += n.max(0) as u64;
            }
        }
    }
    Ok(total)
}

/// Waits until the queue is drained (every entry stored and acknowledged) and `n` events are
/// stored; returns how long that took. Rows are counted only once the queue is empty: a count
/// of millions of rows every few milliseconds would compete with the worker for the cores.
async fn wait_stored(b: &Bench, db: &Stored, n: i64) -> anyhow::Result<Duration> {
    let t = Instant::now();
    while queue_backlog(b).await? > 0 || db.count().await? < n {
        anyhow::ensure!(
            t.elapsed() < Duration::from_secs(600),
            "events still not stored"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(t.elapsed())
}

/// Posts single events at `rate` per second; every 500th is a marker whose name is then polled for
/// in the database (the rows today's reads aggregate) to measure the accept-to-visible lag.
async fn fixed_rate(
    db: &Stored,
    project: &str,
    url: &str,
    key: &str,
    rate: u64,
    seconds: u64,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let total = rate * seconds;
    let gap = Duration::from_secs_f64(1.0 / rate as f64);
    let headers = [("X-Project-Key", key), ("User-Agent", BROWSER)];
    let page_view = Arc::new(load::post(
        url,
        &headers,
        r#"{"name":"page_view","url":"https://example.com/"}"#,
    )?);
    // Idle connections, kept alive between requests; opened and used once before the clock starts
    // (a cold start is not the steady state measured here).
    let mut warm = Vec::new();
    for _ in 0..32 {
        let mut c = load::Conn::open(url).await?;
        anyhow::ensure!(c.send(&page_view).await? == 202, "warm-up event refused");
        warm.push(c);
    }
    let idle = Arc::new(std::sync::Mutex::new(warm));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(total as usize);
    for i in 0..total {
        let due = started + gap * i as u32;
        tokio::time::sleep_until(due.into()).await;
        let marker = (i % 500 == 0).then(|| format!("lag_marker_{i}"));
        let request = match &marker {
            Some(name) => Arc::new(load::post(
                url,
                &headers,
                &json!({"name": name, "url": "https://example.com/"}).to_string(),
            )?),
            None => page_view.clone(),
        };
        let (url, idle, db, project) =
            (url.to_owned(), idle.clone(), db.clone(), project.to_owned());
        tasks.push(tokio::spawn(async move {
            let sent_at = chrono::Utc::now() - chrono::Duration::seconds(1);
            let t = Instant::now();
            let reused = idle.lock().ok().and_then(|mut v| v.pop());
            let conn = match reused {
                Some(c) => Some(c),
                None => load::Conn::open(&url).await.ok(),
            };
            let mut ok = false;
            if let Some(mut c) = conn {
                ok = c.send(&request).await.is_ok_and(|s| s == 202);
                if ok {
                    if let Ok(mut v) = idle.lock() {
                        v.push(c);
                    }
                }
            }
            let accepted = t.elapsed();
            let Some(name) = marker.filter(|_| ok) else {
                return (ok.then_some(accepted), None);
            };
            let accepted_at = Instant::now();
            loop {
                let seen = db.seen(&project, sent_at, &name).await;
                if seen || accepted_at.elapsed() > Duration::from_secs(60) {
                    return (Some(accepted), Some(accepted_at.elapsed()));
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }));
    }
    let (mut latency, mut lag) = (Vec::new(), Vec::new());
    for t in tasks {
        let (a, l) = t.await?;
        latency.extend(a);
        lag.extend(l);
    }
    Ok((latency, lag))
}

/// Ten million events over 90 days, loaded as the workers would store them (daily partitions,
/// then summaries of every closed day), then every read for 7, 30 and 90 days over HTTP.
async fn reads(b: &Bench, db: &PgPool, project: &str, n: i64) -> anyhow::Result<()> {
    let today = chrono::Utc::now().date_naive();
    let first = today - chrono::Duration::days(90);
    rollup::ensure_partitions(db, first, 92).await?;
    let t = Instant::now();
    // 1,000 pages, 50 referrers, 10 countries, three devices, a pool of 28,000 visitors a day
    // (about 4 events each), in time order as the workers append them. A visitor keeps a country,
    // device, browser and OS; visitor hashes change every day (the daily salt): the day's number
    // is added to the pool's. One signup in ten carries revenue (19.99 EUR): the sources-by-goal
    // reads attribute it.
    let labels: Vec<String> = [
        "desktop", "mobile", "tablet", "Chrome", "Safari", "Firefox", "Windows", "iOS", "macOS",
        "Android",
    ]
    .map(str::to_owned)
    .to_vec();
    let codes = store::label_ids(db, &labels).await?;
    let codes: Vec<i16> = labels.iter().map(|l| codes[l]).collect();
    let per_chunk = 1_000_000;
    let chunks = (n + per_chunk - 1) / per_chunk;
    for chunk in 0..chunks {
        let count = per_chunk.min(n - chunk * per_chunk);
        sqlx::query!(
            "insert into analytics_events (project_id, ts, visitor, device, browser, os, name, path, referrer_host, utm_source, country,
                 revenue_micros, revenue_currency)
             select $1::text::uuid, ts, v + (extract(epoch from ts)::int8 / 86400) * 1000000,
                    ($6::int2[])[1 + v % 3], ($6::int2[])[4 + v / 3 % 3], ($6::int2[])[7 + v / 9 % 4],
                    case when i % 10 = 0 then 'signup' else 'page_view' end,
                    '/page/' || (i * 7919 % 1000), case when i % 3 = 0 then 'ref' || (i % 50) || '.example' end,
                    case when i % 11 = 0 then 'newsletter' end,
                    (array['US','GB','DE','FR','IN','BR','JP','CA','AU','NL'])[1 + v / 36 % 10],
                    case when i % 100 = 0 then 19990000 end, case when i % 100 = 0 then 'EUR' end
             from (select i, (i * 2654435761) % 28000 as v,
                          now() - interval '90 days' * (1 - ($4::float8 + random()) / $5::float8) as ts
                   from generate_series($2::int8, $3::int8) as i) g order by ts",
            project,
            chunk * per_chunk,
            chunk * per_chunk + count - 1,
            chunk as f64,
            chunks as f64,
            &codes
        )
        .execute(db)
        .await?;
    }
    let loaded = t.elapsed();
    let t = Instant::now();
    // runtime-checked: VACUUM is maintenance, with no rows or parameters to check
    sqlx::query("vacuum analyze analytics_events")
        .execute(db)
        .await?;
    // Every closed day, afresh: the worker's own upkeep may have summarised some mid-load.
    let mut day = first;
    while day < today {
        rollup::roll_day(db, day, true).await?;
        day += chrono::Duration::days(1);
    }
    // Today as the workers keep it: summarised up to five seconds ago.
    rollup::keep_current(
        db,
        chrono::Duration::minutes(5),
        chrono::Utc::now() - chrono::Duration::seconds(5),
        7,
    )
    .await?;
    // runtime-checked: VACUUM is maintenance, with no rows or parameters to check
    sqlx::query("vacuum analyze analytics_daily")
        .execute(db)
        .await?;
    // Closing a day deletes its kept visits. Live, autovacuum reuses their space, so the table
    // stays about a day of visits big; closing 90 days at once leaves 90 days of dead pages that
    // every read of today's visits would scan. Compact it to the live table's size.
    // runtime-checked: VACUUM is maintenance, with no rows or parameters to check
    sqlx::query("vacuum full analyze analytics_visits")
        .execute(db)
        .await?;
    let today_rows: i64 = sqlx::query_scalar!(
        r#"select count(*) as "n!" from analytics_events where project_id = $1::text::uuid and ts >= $2"#,
        project,
        days::bounds(today).0
    )
    .fetch_one(db)
    .await?;
    println!(
        "read data: {n} events over 90 days loaded in {:.0} s; 90 days summarised in {:.0} s; today holds {today_rows} raw events",
        loaded.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    // Bytes per event over the whole table (the ingestion runs' events included).
    let sizes = sqlx::query!(
        r#"select (select coalesce(sum(pg_total_relation_size(inhrelid)), 0)::int8 from pg_inherits where inhparent = 'analytics_events'::regclass) as "raw!",
                pg_total_relation_size('analytics_daily') + pg_total_relation_size('analytics_weekly') + pg_total_relation_size('analytics_replays') + pg_total_relation_size('analytics_labels') as "summaries!""#
    )
    .fetch_one(db)
    .await?;
    let (raw, summaries) = (sizes.raw, sizes.summaries);
    let events = Stored::Postgres(db.clone()).count().await?;
    println!(
        "storage: {:.0} bytes per event in the raw partitions (indexes included), {:.1} more in the daily and weekly summaries, labels and replay record ({events} events)",
        raw as f64 / events as f64,
        summaries as f64 / events as f64
    );
    filtered_reads(b, project).await
}

/// Every read with one filter (each of six in turn), with two, and a funnel of 4 steps.
async fn filtered_reads(b: &Bench, project: &str) -> anyhow::Result<()> {
    // The first filtered read loads the range's events into the api's memory, where later reads
    // find them (docs/analytics.md): timed on its own, each period widening the last.
    for period in ["7d", "30d", "90d"] {
        let t = Instant::now();
        let read = format!("pages?project_id={project}&period={period}&country=US");
        b.reads_p95(&[read], 1).await?;
        println!(
            "first filtered read, {period} (loads the days not in memory yet): {}",
            ms(t.elapsed())
        );
    }
    let funnel = shipmate_benches::bench_funnel(b, project).await?;
    shipmate_benches::read_figures(b, (project, &funnel), 20, FILTERED_READS).await
}

/// Filtered reads per period and read: each of the six filters (or three pairs) 4 (8) times.
const FILTERED_READS: usize = 24;
