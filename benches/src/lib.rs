//! Shared pieces of the benchmark programs: an api and a worker started in this process (each on a
//! runtime of its own) against a fresh database, a signed-in client, and percentile arithmetic.

pub mod load;

use std::time::Duration;

use serde_json::{json, Value};
use shipmate_api::settings::ApiSettings;
use shipmate_api::Application;
use shipmate_worker::settings::WorkerSettings;
use tokio::sync::watch;

/// A browser's user agent: the worker counts bots' events as dropped, not stored.
pub const BROWSER: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

#[derive(Clone)]
pub struct Bench {
    pub base: String,
    pub http: reqwest::Client,
    pub db_url: String,
    pub queue_prefix: String,
    pub token: String,
}

/// Starts the api on a free port with a fresh database; the worker is started separately so a
/// benchmark can measure with and without it.
pub async fn start(extra_api_flags: &[&str]) -> anyhow::Result<Bench> {
    start_on(fresh_database_url()?, extra_api_flags).await
}

/// A database of its own for one run, on the server of `DATABASE_URL`.
pub fn fresh_database_url() -> anyhow::Result<String> {
    let _ = dotenvy::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../.env"));
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://127.0.0.1:5432/shipmate".into());
    let mut url = url::Url::parse(&base)?;
    url.set_path(&format!("shipmate_bench_{}", uuid::Uuid::new_v4().simple()));
    Ok(url.to_string())
}

/// Starts the api on a free port on the database at `db_url` (made and migrated at start).
pub async fn start_on(db_url: String, extra_api_flags: &[&str]) -> anyhow::Result<Bench> {
    let queue_prefix = format!("shipmate-bench-{}", uuid::Uuid::new_v4().simple());
    let mut args = vec![
        "shipmate-api",
        "--database-url",
        &db_url,
        "--bind",
        "127.0.0.1:0",
        "--dev-login",
        "1",
        "--queue-prefix",
        &queue_prefix,
    ];
    args.extend_from_slice(extra_api_flags);
    let settings = ApiSettings::from_args(args)?;
    let (built, addr) = tokio::sync::oneshot::channel();
    apart("api")?.spawn(async move {
        match Application::build(settings).await {
            Ok(app) => {
                let _ = built.send(Ok(app.addr()));
                let _ = app.run_until_stopped().await;
            }
            Err(e) => {
                let _ = built.send(Err(e));
            }
        }
    });
    let base = format!("http://{}", addr.await??);
    signed_in(base, db_url, queue_prefix).await
}

/// A client of the api at `base`, signed in through the development login.
pub async fn signed_in(
    base: String,
    db_url: String,
    queue_prefix: String,
) -> anyhow::Result<Bench> {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()?;
    let login: Value = http
        .post(format!("{base}/v1/auth/dev-login"))
        .json(&json!({"email": "bench@example.com"}))
        .send()
        .await?
        .json()
        .await?;
    let token = login["token"].as_str().unwrap_or_default().to_owned();
    Ok(Bench {
        base,
        http,
        db_url,
        queue_prefix,
        token,
    })
}

impl Bench {
    /// The 95th percentile of `n` reads of `/v1/analytics/{read}`, one after another, taking
    /// `reads` in turn.
    pub async fn reads_p95(&self, reads: &[String], n: usize) -> anyhow::Result<Duration> {
        let mut took = Vec::new();
        for read in reads.iter().cycle().take(n) {
            let t = std::time::Instant::now();
            let res = self
                .http
                .get(format!("{}/v1/analytics/{read}", self.base))
                .bearer_auth(&self.token)
                .send()
                .await?;
            anyhow::ensure!(res.status().is_success(), "{read}: {}", res.status());
            res.bytes().await?;
            took.push(t.elapsed());
        }
        Ok(percentile(&mut took, 95.0))
    }

    /// The 95th percentile of 20 reads of `/v1/analytics/{read}`, one after another.
    pub async fn read_p95(&self, read: &str) -> anyhow::Result<Duration> {
        self.reads_p95(&[read.to_owned()], 20).await
    }

    /// Drops the benchmark's database and queue streams: runs load millions of rows, and left
    /// behind they would be vacuumed during the next run and share the disk with its measurements.
    pub async fn finish(&self) -> anyhow::Result<()> {
        let mut url = url::Url::parse(&self.db_url)?;
        let name = url.path().trim_start_matches('/').to_owned();
        url.set_path("/postgres");
        let mut admin = <sqlx::PgConnection as sqlx::Connection>::connect(url.as_str()).await?;
        if std::env::var_os("BENCH_KEEP_DB").is_none() {
            sqlx::query(&format!("drop database if exists {name} with (force)"))
                .execute(&mut admin)
                .await?;
        } else {
            println!("kept database {name}");
        }
        let redis_url =
            std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let mut c = redis::Client::open(redis_url)?
            .get_multiplexed_async_connection()
            .await?;
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{}:*", self.queue_prefix))
            .query_async(&mut c)
            .await?;
        if !keys.is_empty() {
            let _: i64 = redis::cmd("DEL").arg(&keys).query_async(&mut c).await?;
        }
        Ok(())
    }

    pub fn start_worker(&self, extra: &[&str]) -> anyhow::Result<watch::Sender<bool>> {
        let mut args = vec![
            "shipmate-worker",
            "--database-url",
            &self.db_url,
            "--queue-prefix",
            &self.queue_prefix,
        ];
        args.extend_from_slice(extra);
        let settings = <WorkerSettings as clap::Parser>::try_parse_from(args)?;
        let (tx, rx) = watch::channel(false);
        apart("worker")?.spawn(shipmate_worker::run(settings, rx));
        Ok(tx)
    }

    /// A new project: (id, api key).
    pub async fn project(&self, slug: &str) -> anyhow::Result<(String, String)> {
        let (id, key, _) = self.project_keys(slug).await?;
        Ok((id, key))
    }

    /// A new project: (id, secret api key, publishable key).
    pub async fn project_keys(&self, slug: &str) -> anyhow::Result<(String, String, String)> {
        let p: Value = self
            .http
            .post(format!("{}/v1/projects", self.base))
            .bearer_auth(&self.token)
            .json(&json!({"name": slug, "slug": slug}))
            .send()
            .await?
            .json()
            .await?;
        let text = |field: &str| p[field].as_str().unwrap_or_default().to_owned();
        Ok((text("id"), text("api_key"), text("publishable_key")))
    }

    pub async fn post(&self, key: &str, path: &str, body: Value) -> anyhow::Result<Value> {
        let res = self
            .http
            .post(format!("{}{path}", self.base))
            .header("X-Project-Key", key)
            .json(&body)
            .send()
            .await?;
        let status = res.status();
        let body: Value = res.json().await?;
        anyhow::ensure!(status.is_success(), "{path}: {status} {body}");
        Ok(body)
    }

    pub async fn get(&self, key: &str, path: &str) -> anyhow::Result<Value> {
        Ok(self
            .http
            .get(format!("{}{path}", self.base))
            .header("X-Project-Key", key)
            .send()
            .await?
            .json()
            .await?)
    }
}

/// A runtime of its own, on two threads named `name`, for the api or a worker: as in their own
/// processes in production, the OS then shares the cores between them and the load generator (one
/// runtime's cooperative scheduler had the worker's batches delay the api's answers), and
/// `perf report --sort comm` tells them apart. It lives as long as the benchmark.
fn apart(name: &str) -> anyhow::Result<&'static tokio::runtime::Runtime> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(name)
        .enable_all()
        .build()?;
    Ok(Box::leak(Box::new(runtime)))
}

/// The `p`th percentile (0-100) of `samples`, nearest rank.
pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort();
    let rank = ((p / 100.0) * samples.len() as f64).ceil().max(1.0) as usize;
    samples[rank.min(samples.len()) - 1]
}

pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The funnel of 4 steps `read_figures` reads, saved in `project`: its id.
pub async fn bench_funnel(b: &Bench, project: &str) -> anyhow::Result<String> {
    let res = b
        .http
        .post(format!("{}/v1/analytics/funnels", b.base))
        .bearer_auth(&b.token)
        .json(
            &serde_json::json!({"project_id": project, "name": "bench", "steps": [
                {"page": "/page/1"}, {"page": "/page/2"}, {"page": "/page/3"}, {"event": "signup"}
            ]}),
        )
        .send()
        .await?;
    anyhow::ensure!(res.status().is_success(), "funnel: {}", res.status());
    let funnel: serde_json::Value = res.json().await?;
    Ok(funnel["id"].as_str().unwrap_or_default().to_owned())
}

/// Every analytics read of `project` over 7, 30 and 90 days: unfiltered (`reps` times each), with
/// one filter (six in turn) and with two (three pairs with a visitor's value, then three without),
/// `filtered` times each, and its `funnel` (`bench_funnel`) over 30 and 90 days (its first read,
/// then `reps`); a line of p95s per read.
/// Both stores' benchmarks print the same lines.
pub async fn read_figures(
    b: &Bench,
    (project, funnel): (&str, &str),
    reps: usize,
    filtered: usize,
) -> anyhow::Result<()> {
    for what in shipmate_analytics::pg::reads::ENDPOINTS {
        let mut line = format!("read {what}:");
        for period in ["7d", "30d", "90d"] {
            let p95 = b
                .reads_p95(
                    &[format!("{what}?project_id={project}&period={period}")],
                    reps,
                )
                .await?;
            line += &format!(" {period} p95 {}", ms(p95));
        }
        println!("{line}");
    }
    // Realtime reads the raw events of the last 30 minutes (no period).
    let p95 = b
        .reads_p95(&[format!("realtime?project_id={project}")], reps)
        .await?;
    println!("read realtime: p95 {}", ms(p95));
    let one = [
        "country=US",
        "device=mobile",
        "page=/page/7",
        "utm_source=newsletter",
        "referrer=ref3.example",
        "event=signup",
    ];
    let two = [
        "country=US&device=mobile",
        "page=/page/7&country=DE",
        "utm_source=newsletter&device=desktop",
    ];
    // Neither a visitor's value: no summary holds the pair (ClickHouse reads its copy by filter,
    // the rarer kind's: a page's 10,000 events, a referrer's 67,000, a source's 909,000).
    let two_of_events = [
        "page=/page/7&utm_source=newsletter",
        "referrer=ref3.example&utm_source=newsletter",
        "utm_source=newsletter&event=signup",
    ];
    for (label, filters) in [
        ("one filter", &one[..]),
        ("two filters", &two[..]),
        ("two filters, no visitor's value", &two_of_events[..]),
    ] {
        for what in shipmate_analytics::pg::reads::ENDPOINTS {
            let mut line = format!("read {what}, {label}:");
            for period in ["7d", "30d", "90d"] {
                let reads: Vec<String> = filters
                    .iter()
                    .map(|f| format!("{what}?project_id={project}&period={period}&{f}"))
                    .collect();
                let p95 = b.reads_p95(&reads, filtered).await?;
                line += &format!(" {period} p95 {}", ms(p95));
            }
            println!("{line}");
        }
    }
    // Journeys of a top page and of a rarer one; a segment against the same filters, read in turn.
    let mut line = "read journeys:".to_owned();
    for period in ["7d", "30d", "90d"] {
        let reads: Vec<String> = ["/page/1", "/page/7"]
            .iter()
            .map(|p| format!("journeys?project_id={project}&period={period}&page={p}"))
            .collect();
        line += &format!(" {period} p95 {}", ms(b.reads_p95(&reads, filtered).await?));
    }
    println!("{line}");
    let res = b
        .http
        .post(format!("{}/v1/analytics/segments", b.base))
        .bearer_auth(&b.token)
        .json(&serde_json::json!({"project_id": project, "name": "bench",
            "filters": {"country": "US", "device": "mobile"}}))
        .send()
        .await?;
    anyhow::ensure!(res.status().is_success(), "segment: {}", res.status());
    let segment: serde_json::Value = res.json().await?;
    let sid = segment["id"].as_str().unwrap_or_default();
    for what in ["overview", "pages"] {
        let mut line = format!("read {what}, segment of two filters / the same filters:");
        for period in ["7d", "30d", "90d"] {
            let base = format!("{what}?project_id={project}&period={period}");
            let by_segment = b
                .reads_p95(&[format!("{base}&segment={sid}")], filtered)
                .await?;
            let by_filters = b
                .reads_p95(&[format!("{base}&country=US&device=mobile")], filtered)
                .await?;
            line += &format!(" {period} p95 {} / {}", ms(by_segment), ms(by_filters));
        }
        println!("{line}");
    }
    // Sources by goal: a frequent event goal (with a currency: the revenue path) and a rare page.
    let mut goals = Vec::new();
    for goal in [
        serde_json::json!({"project_id": project, "name": "signup", "event": "signup", "currency": "EUR"}),
        serde_json::json!({"project_id": project, "name": "page 7", "page": "/page/7"}),
    ] {
        let res = b
            .http
            .post(format!("{}/v1/analytics/goals", b.base))
            .bearer_auth(&b.token)
            .json(&goal)
            .send()
            .await?;
        anyhow::ensure!(res.status().is_success(), "goal: {}", res.status());
        let made: serde_json::Value = res.json().await?;
        goals.push(made["id"].as_str().unwrap_or_default().to_owned());
    }
    for what in ["referrers", "utm"] {
        let mut line = format!("read {what} by goal (signup, /page/7):");
        for period in ["7d", "30d", "90d"] {
            let reads: Vec<String> = goals
                .iter()
                .map(|g| format!("{what}?project_id={project}&period={period}&goal={g}"))
                .collect();
            line += &format!(" {period} p95 {}", ms(b.reads_p95(&reads, filtered).await?));
        }
        println!("{line}");
    }
    // Its first read apart: ClickHouse mode computes the closed days' counts the upkeep has not
    // stored.
    for period in ["30d", "90d"] {
        let read = [format!("funnels/{funnel}?period={period}")];
        let first = b.reads_p95(&read, 1).await?;
        let p95 = b.reads_p95(&read, reps).await?;
        println!(
            "read funnel of 4 steps, {period}: first {}, then p95 {}",
            ms(first),
            ms(p95)
        );
    }
    Ok(())
}
