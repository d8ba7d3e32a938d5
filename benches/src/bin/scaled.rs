//! Past one machine: the analytics firehose through two apis and two workers (processes) on a
//! three-master Redis Cluster against one api and one worker on one Redis, and KB search from a
//! streaming replica while the primary takes a bulk upload against the same without a replica.
//! Needs the release binaries beside it: `cargo build --release --bins`.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::json;
use shipmate_benches::{fresh_database_url, load, ms, percentile, signed_in, start_on, BROWSER};
use sqlx::PgPool;

// The tests' own engines on free ports; the tests use what this does not.
#[allow(dead_code)]
#[path = "../../../api/tests/api/pg_pair.rs"]
mod pg_pair;
#[allow(dead_code)]
#[path = "../../../core/tests/support/redis_cluster.rs"]
mod redis_cluster;
// The knowledge-base benchmark's helpers; it uses the rest.
#[allow(dead_code)]
#[path = "kb/support.rs"]
mod support;

use pg_pair::PgPair;
use redis_cluster::RedisCluster;
use support::{
    bulk_corpus, id, indexed_project, load_corpus, searches_beside_bulk, spawn_bulk, wait_all_ready,
};

const MODEL: &str = "all-minilm-l6-v2";

#[derive(Parser)]
struct Args {
    /// Seconds of sustained single-event load per topology.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Connections sending at once, spread over the apis.
    #[arg(long, default_value_t = 64)]
    senders: usize,
    /// Documents project S searches over.
    #[arg(long, default_value_t = 200)]
    search_docs: usize,
    /// Documents of the bulk upload beside the searches.
    #[arg(long, default_value_t = 300)]
    bulk_docs: usize,
    /// Skip the firehose (`--kb-only`) or the KB part (`--firehose-only`).
    #[arg(long)]
    kb_only: bool,
    #[arg(long)]
    firehose_only: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if !args.kb_only {
        for scaled in [false, true] {
            firehose(&args, scaled).await?;
        }
    }
    if !args.firehose_only {
        for replica in [false, true] {
            search_beside_bulk(&args, replica).await?;
        }
    }
    Ok(())
}

/// Child processes, killed when dropped.
struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn binary(name: &str) -> anyhow::Result<PathBuf> {
    let path = std::env::current_exe()?.with_file_name(name);
    anyhow::ensure!(
        path.exists(),
        "{} missing: cargo build --release --bins",
        path.display()
    );
    Ok(path)
}

/// Starts an api process and waits for `/healthz`; its base URL.
async fn api(procs: &mut Procs, flags: &[String]) -> anyhow::Result<String> {
    let base = format!("http://127.0.0.1:{}", redis_cluster::free_port());
    let child = Command::new(binary("shipmate-api")?)
        .args(flags)
        .args(["--bind", base.trim_start_matches("http://")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    procs.0.push(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !reqwest::get(format!("{base}/healthz"))
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        anyhow::ensure!(Instant::now() < deadline, "the api did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(base)
}

/// Sustained single events through `n` apis and `n` workers, on a cluster or one Redis; then
/// waits until every accepted event is stored.
async fn firehose(args: &Args, scaled: bool) -> anyhow::Result<()> {
    let n = if scaled { 2 } else { 1 };
    let dir =
        std::env::temp_dir().join(format!("shipmate-bench-{}", uuid::Uuid::new_v4().simple()));
    let cluster = match scaled {
        true => Some(RedisCluster::start(&dir).await),
        false => None,
    };
    let db_url = fresh_database_url()?;
    let prefix = format!("shipmate-bench-{}", uuid::Uuid::new_v4().simple());
    let mut flags: Vec<String> = ["--database-url", &db_url, "--queue-prefix", &prefix]
        .map(str::to_owned)
        .to_vec();
    if let Some(c) = &cluster {
        flags.extend(["--redis-cluster-urls".to_owned(), c.urls().join(",")]);
    }
    let mut procs = Procs(Vec::new());
    let mut urls = Vec::new();
    for _ in 0..n {
        let mut api_flags = flags.clone();
        api_flags.extend(["--dev-login", "1"].map(str::to_owned));
        urls.push(api(&mut procs, &api_flags).await?);
    }
    for _ in 0..n {
        procs.0.push(
            Command::new(binary("shipmate-worker")?)
                .args(&flags)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?,
        );
    }
    let b = signed_in(urls[0].clone(), db_url.clone(), prefix).await?;
    let (_, key) = b.project("firehose").await?;
    let event = json!({"url": "https://example.com/pricing"}).to_string();
    let requests = urls
        .iter()
        .map(|u| {
            let headers = [("X-Project-Key", key.as_str()), ("User-Agent", BROWSER)];
            load::post(&format!("{u}/v1/analytics/events"), &headers, &event)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    // Each sender's requests name its own api's host; `sustained` spreads the senders the same way.
    let mut sent = 0;
    let mut latencies = Vec::new();
    let runs: Vec<_> = urls
        .iter()
        .zip(requests)
        .map(|(u, r)| {
            tokio::spawn(load::sustained(
                vec![format!("{u}/v1/analytics/events")],
                Arc::new(vec![r]),
                args.senders / n,
                args.seconds,
            ))
        })
        .collect();
    for r in runs {
        let (count, took) = r.await?;
        sent += count;
        latencies.extend(took);
    }
    let db = PgPool::connect(&db_url).await?;
    let t = Instant::now();
    loop {
        let stored = sqlx::query_scalar!(r#"select count(*) as "n!" from analytics_events"#)
            .fetch_one(&db)
            .await?;
        if stored >= sent as i64 {
            anyhow::ensure!(stored == sent as i64, "{stored} stored of {sent} accepted");
            break;
        }
        anyhow::ensure!(
            t.elapsed() < Duration::from_secs(600),
            "events still not stored"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let drained = t.elapsed();
    println!(
        "firehose, {n} api + {n} worker process(es) on {}: {:.0} events/s accepted ({sent} single-event requests in {} s, {} senders, p99 {}), all {sent} stored {} after the load: {:.0} events/s end to end",
        if scaled { "a Redis Cluster of 3 masters + 3 replicas" } else { "one Redis" },
        sent as f64 / args.seconds as f64,
        args.seconds,
        args.senders,
        ms(percentile(&mut latencies, 99.0)),
        ms(drained),
        sent as f64 / (args.seconds as f64 + drained.as_secs_f64()),
    );
    db.close().await;
    drop(procs);
    b.finish().await?;
    drop(cluster);
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}

/// KB searches of one project, one every 100 ms, while another project bulk uploads and a worker
/// embeds it (vector inserts on the primary), with the searches on a replica or on the primary.
async fn search_beside_bulk(args: &Args, replica: bool) -> anyhow::Result<()> {
    let pair = PgPair::start();
    let db_url = PgPair::url(pair.primary, "shipmate_bench");
    let read_url = PgPair::url(pair.replica, "shipmate_bench");
    let extra: Vec<&str> = match replica {
        true => vec!["--database-read-urls", &read_url],
        false => vec![],
    };
    let b = start_on(db_url.clone(), &extra).await?;
    let db = PgPool::connect(&db_url).await?;
    let _worker = b.start_worker(&[])?;
    let corpus = load_corpus(args.search_docs + args.bulk_docs)?;
    let (key_s, index_s) = indexed_project(&b, "bench-s", "s").await?;
    spawn_bulk(
        &b,
        &key_s,
        id(&index_s),
        corpus[..args.search_docs].to_vec(),
    )
    .await?;
    wait_all_ready(&db, id(&index_s)).await?;
    let queries: Vec<String> = sqlx::query_scalar!(
        r#"select left(content, 120) as "text!" from kb_chunks where index_id = $1::text::uuid order by random() limit 50"#,
        id(&index_s)
    )
    .fetch_all(&db)
    .await?;
    if replica {
        // The replica has the searched project before the run starts.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready: serde_json::Value = reqwest::get(format!("{}/readyz", b.base))
                .await?
                .json()
                .await?;
            if ready["replicas"]["healthy"] == 1 {
                break;
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the replica never became healthy"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let (key_a, index_a) = indexed_project(&b, "bench-a", "a").await?;
    let mut beside = searches_beside_bulk(
        &b,
        &db,
        (&key_s, id(&index_s)),
        (&key_a, id(&index_a)),
        bulk_corpus(&corpus[args.search_docs..], args.bulk_docs),
        &queries,
    )
    .await?;
    println!(
        "KB search beside a {}-document bulk upload, {}: p50 {} p99 {} ({} searches)",
        args.bulk_docs,
        if replica {
            "searches on a streaming replica"
        } else {
            "no replica (all on the primary)"
        },
        ms(percentile(&mut beside, 50.0)),
        ms(percentile(&mut beside, 99.0)),
        beside.len(),
    );
    db.close().await;
    b.finish().await?;
    drop(pair);
    Ok(())
}
