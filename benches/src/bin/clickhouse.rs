//! Analytics reads in ClickHouse mode: a clickhouse-server of its own (Debian's 18.16, started in
//! a temporary folder as the tests start theirs), the api in this process with
//! `--clickhouse-url`, `--events` events over 90 days (`--days`) generated inside ClickHouse
//! with the same shape as the PostgreSQL benchmark's (`analytics.rs`), then the storage per
//! event, the first read of the process, and every read with zero, one and two filters and a
//! funnel of 4 steps.
//! Run: `cargo run --release -p shipmate-benches --bin clickhouse` (see benches/README.md).

use std::time::Instant;

use clap::Parser;
use shipmate_analytics::clickhouse::ClickHouse;
use shipmate_analytics::EventStore;
use shipmate_benches::{ms, start, Bench};

#[path = "../../../analytics/tests/support/clickhouse.rs"]
mod server;

#[derive(Parser)]
struct Args {
    /// Events over the days.
    #[arg(long, default_value_t = 10_000_000)]
    events: u64,
    /// Days the events span, up to now: fewer days at the same events a day measure one day's
    /// upkeep of a larger site without the whole range (`--events 1100000 --days 1`: a day of
    /// the 100 M run).
    #[arg(long, default_value_t = 90)]
    days: i64,
    /// Reads of each unfiltered read (its p95 is printed).
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Reads of each filtered read, the filters in turn.
    #[arg(long, default_value_t = 24)]
    filtered: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let ch = server::ClickHouse::start();
    let b = start(&["--clickhouse-url", &url_of(&ch)]).await?;
    let result = run(&b, &ch, &args).await;
    b.finish().await?;
    result
}

fn url_of(ch: &server::ClickHouse) -> String {
    ch.url("shipmate_bench")
}

/// A statement on the server, outside the api (loading, measuring).
async fn sql(b: &Bench, ch: &server::ClickHouse, statement: &str) -> anyhow::Result<String> {
    let res = b
        .http
        .post(format!(
            "http://127.0.0.1:{}/?database=shipmate_bench",
            ch.http_port
        ))
        .body(statement.to_owned())
        .send()
        .await?;
    let status = res.status();
    let text = res.text().await?;
    anyhow::ensure!(status.is_success(), "{statement}: {text}");
    Ok(text.trim().to_owned())
}

async fn run(b: &Bench, ch: &server::ClickHouse, args: &Args) -> anyhow::Result<()> {
    let (project, _) = b.project("bench-reads").await?;
    let n = args.events;
    let t = Instant::now();
    let now_us = chrono::Utc::now().timestamp_micros();
    let span_us: i64 = args.days * 86_400_000_000;
    // About four events a visitor a day, as the PostgreSQL benchmark's 28,000 visitors make of 10 M
    // events over 90 days (its figures unchanged): with the pool fixed, 100 M events made each
    // visitor one every 37 minutes all day, so every visitor was always active.
    let visitors = (n / args.days as u64 / 4).max(28_000);
    let start_us = now_us - span_us;
    sql(
        b,
        ch,
        &server::generated(&project.to_string(), start_us, span_us / 1000, n, visitors),
    )
    .await?;
    let loaded = t.elapsed();
    let t = Instant::now();
    sql(b, ch, "OPTIMIZE TABLE events FINAL").await?;
    let merged = t.elapsed();
    let bytes: f64 = sql(
        b,
        ch,
        "SELECT sum(bytes) FROM system.parts WHERE database = 'shipmate_bench' AND table = 'events' AND active",
    )
    .await?
    .parse()?;
    // The closed days' summaries, and the saved funnel's counts of them, as the workers' upkeep
    // keeps them (a month of days per round).
    let funnel = shipmate_benches::bench_funnel(b, &project).await?;
    let t = Instant::now();
    let db = sqlx::PgPool::connect(&b.db_url).await?;
    let store = ClickHouse::connect(&url_of(ch), None, db).await?;
    let mut days = 0;
    loop {
        let n = store.upkeep(chrono::Utc::now()).await?;
        if n == 0 {
            break;
        }
        days += n;
    }
    let summarised = t.elapsed();
    // Reads begin once the server has merged the parts the upkeep wrote, as in steady state,
    // where a round adds a day's: 90 days at once leave merges running (4-5 s at 10 M events on
    // two cores) that the first reads would otherwise share the cores with.
    let t = Instant::now();
    while sql(b, ch, "SELECT count() FROM system.merges").await? != "0" {
        anyhow::ensure!(
            t.elapsed().as_secs() < 600,
            "still merging after 10 minutes"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let settled = t.elapsed();
    // What the summaries and the copy sorted by filter add on disk, per event.
    let kept = sql(
        b,
        ch,
        "SELECT concat(table, ' ', toString(round(sum(bytes) / 1000000, 1))) FROM system.parts
         WHERE database = 'shipmate_bench' AND active AND table != 'events' GROUP BY table ORDER BY table",
    )
    .await?;
    println!(
        "clickhouse: on disk beside the events (MB): {}",
        kept.replace('\n', "; ")
    );
    println!(
        "clickhouse: {n} events over {} days ({visitors} visitors a day) generated in {:.0} s, merged in {:.0} s, {days} days summarised (and the saved funnel counted) in {:.0} s, their parts merged {:.0} s later; {:.1} bytes per event on disk",
        args.days,
        loaded.as_secs_f64(),
        merged.as_secs_f64(),
        summarised.as_secs_f64(),
        settled.as_secs_f64(),
        bytes / n as f64
    );
    // Nothing to warm: the first read of the process is timed alone.
    let t = Instant::now();
    b.reads_p95(
        &[format!(
            "overview?project_id={project}&period=90d&country=US"
        )],
        1,
    )
    .await?;
    println!(
        "first read of the process (overview, 90d, one filter): {}",
        ms(t.elapsed())
    );
    shipmate_benches::read_figures(b, (&project, &funnel), args.reps, args.filtered).await?;
    Ok(())
}
