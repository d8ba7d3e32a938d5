//! The contract's privacy promise, checked where the data lands: no raw IP address or user agent
//! in Redis (keys and the append-only file), in Postgres (`pg_dump`) or in the logs, while the
//! reads still count the visitor, its country and its device; and salts go once their day ends.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};
use shipmate_analytics::events::EventBatch;
use shipmate_analytics::visitor::Geo;
use shipmate_core::queue::EVENTS_STREAM;
use shipmate_worker::jobs::housekeeping;

use crate::analytics::{read, wait_page_views, CHROME, GOOGLEBOT};
use crate::helpers::*;
use crate::support::*;

/// A public IPv4 address the country database places, random so that no other test or process
/// sharing this Redis (whose append-only file keeps every write) can have written it.
fn marker_ip(geo: &Geo) -> (IpAddr, Option<String>) {
    let mut fallback = None;
    for _ in 0..1_000 {
        let b = *uuid::Uuid::new_v4().as_bytes();
        let ip = Ipv4Addr::new(b[0], b[1], b[2], b[3].max(1));
        let o = ip.octets();
        let reserved = ip.is_private()
            || ip.is_loopback()
            || ip.is_link_local()
            || ip.is_multicast()
            || ip.is_broadcast()
            || ip.is_documentation()
            || ip.is_unspecified()
            || o[0] == 0
            || o[0] >= 224
            || (o[0] == 100 && o[1] & 0xc0 == 64)
            || (o[0] == 198 && o[1] & 0xfe == 18);
        if reserved {
            continue;
        }
        if let Some(country) = geo.country(IpAddr::V4(ip)) {
            return (IpAddr::V4(ip), Some(country));
        }
        fallback.get_or_insert(IpAddr::V4(ip));
    }
    // No country database here: the address is still a unique marker, its country unknown.
    (fallback.expect("a public address"), None)
}

/// Everything this test binary logs, at debug level: a subscriber scoped to one test's thread
/// misses events when other tests run beside it (tracing caches each call site's interest), so
/// the capture is process-wide, installed once. Other tests' lines never hold this test's markers.
#[derive(Clone)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

fn captured_logs() -> &'static Captured {
    static LOGS: OnceLock<Captured> = OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Captured(Arc::default());
        tracing_subscriber::fmt()
            .with_writer(logs.clone())
            .with_ansi(false)
            .with_env_filter("debug,sqlx=info,hyper=info,hyper_util=info,h2=info,reqwest=info")
            .init();
        logs
    })
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

fn assert_absent(place: &str, text: &str, markers: &[&str]) {
    for m in markers {
        assert!(!text.contains(m), "{place} contains the marker {m:?}");
    }
}

async fn redis() -> redis::aio::MultiplexedConnection {
    load_env();
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let client = redis::Client::open(url).unwrap();
    client.get_multiplexed_async_connection().await.unwrap()
}

/// Every value under this test's queue prefix, whatever the key's type, as text.
async fn redis_values(c: &mut redis::aio::MultiplexedConnection, prefix: &str) -> String {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:*"))
        .query_async(c)
        .await
        .unwrap();
    let mut out = String::new();
    for key in keys {
        let kind: String = redis::cmd("TYPE").arg(&key).query_async(c).await.unwrap();
        let cmd = match kind.as_str() {
            "stream" => redis::cmd("XRANGE").arg(&key).arg("-").arg("+").clone(),
            "string" => redis::cmd("GET").arg(&key).clone(),
            "hash" => redis::cmd("HGETALL").arg(&key).clone(),
            "list" => redis::cmd("LRANGE").arg(&key).arg(0).arg(-1).clone(),
            "set" => redis::cmd("SMEMBERS").arg(&key).clone(),
            "zset" => redis::cmd("ZRANGE").arg(&key).arg(0).arg(-1).clone(),
            other => panic!("{key}: unexpected type {other}"),
        };
        let value: redis::Value = cmd.query_async(c).await.unwrap();
        out.push_str(&format!("{key} {value:?}\n"));
    }
    out
}

/// The files of Redis's append-only file, when it is on and its folder is on this machine.
async fn aof_files(c: &mut redis::aio::MultiplexedConnection) -> Option<Vec<PathBuf>> {
    let config = |name: &'static str| {
        let mut c = c.clone();
        async move {
            let pair: Vec<String> = redis::cmd("CONFIG")
                .arg("GET")
                .arg(name)
                .query_async(&mut c)
                .await
                .unwrap();
            pair.get(1).cloned().unwrap_or_default()
        }
    };
    if config("appendonly").await != "yes" {
        eprintln!("Redis runs without an append-only file here: only its keys are checked");
        return None;
    }
    let dir = PathBuf::from(config("dir").await);
    // Redis 7 keeps a folder of files (base, increments, manifest); before 7, one file.
    let folder = dir.join(config("appenddirname").await);
    let files: Vec<PathBuf> = if folder.is_dir() && folder != dir {
        std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect()
    } else {
        vec![dir.join(config("appendfilename").await)]
    };
    if !files.iter().all(|f| f.is_file()) {
        eprintln!(
            "Redis's append-only file ({}) is not on this machine: only its keys are checked",
            dir.display()
        );
        return None;
    }
    Some(files)
}

fn read_all(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f: &PathBuf| {
            let bytes = std::fs::read(Path::new(f))
                .unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .collect()
}

/// Polls until `check` holds (deadline 20 s).
async fn eventually<F: std::future::Future<Output = bool>>(what: &str, check: impl Fn() -> F) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check().await {
        assert!(Instant::now() < deadline, "{what}: not within 20 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn no_raw_ip_or_user_agent_reaches_redis_postgres_or_the_logs() {
    let logs = captured_logs();

    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    let (token, project) = app.owner_with_project("privacy-markers").await;
    let k = key(&project);
    load_env();
    let geo = Geo::open(
        std::env::var("SHIPMATE_GEOIP_DB")
            .ok()
            .as_deref()
            .map(Path::new),
    );
    let (ip, country) = marker_ip(&geo);
    let ip = ip.to_string();
    let token_marker = format!("privacy-marker-{}", uuid::Uuid::new_v4().simple());
    let ua = format!("{CHROME} {token_marker}");
    let bot_ua = format!("{GOOGLEBOT} {token_marker}");
    let markers = [ip.as_str(), token_marker.as_str()];

    // A visitor (two page views in two requests, one with a custom event) and a bot, all through
    // the trusted proxy's X-Forwarded-For.
    let page = json!({"url": "https://acme.example/pricing"});
    let both = json!({"events": [{"url": "https://acme.example/docs"}, {"name": "signup"}]});
    // Tagged with a request id of this test's own, to find its requests in the logs.
    let request_id = format!("privacy-request-{}", uuid::Uuid::new_v4().simple());
    for (agent, body) in [(&ua, page.clone()), (&ua, both), (&bot_ua, page)] {
        let res = app
            .client
            .post(app.url("/v1/analytics/events"))
            .header("X-Project-Key", k)
            .header("X-Forwarded-For", &ip)
            .header("User-Agent", agent)
            .header("X-Request-Id", &request_id)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::ACCEPTED);
    }

    // Before any worker runs, the queued entries hold derived values only.
    let mut r = redis().await;
    let stream = format!("{}:{EVENTS_STREAM}", app.queue_prefix);
    let entries: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg(&stream)
        .arg("-")
        .arg("+")
        .query_async(&mut r)
        .await
        .unwrap();
    assert_eq!(entries.len(), 3, "one entry per request");
    let queued: Vec<Value> = entries
        .iter()
        .map(|(_, fields)| serde_json::from_str(&fields[0].1).unwrap())
        .collect();
    for entry in &queued {
        assert_absent("a queued entry", &entry.to_string(), &markers);
        assert!(entry.get("ip").is_none() && entry.get("user_agent").is_none());
        serde_json::from_value::<EventBatch>(entry.clone()).unwrap();
    }
    assert_eq!(queued[0]["visitor"]["b"], "Chrome");
    assert_eq!(queued[0]["visitor"]["c"], json!(country));
    assert_eq!(
        queued[2]["visitor"],
        Value::Null,
        "the bot is flagged as such"
    );

    // Stored: the visitor's events, and the bot counted as dropped.
    let _worker = start_worker(&app, &[]);
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let overview = wait_page_views(&app, &token, &project, 2).await;
    let bots = || async {
        sqlx::query_scalar::<_, i64>("select coalesce(sum(bots), 0)::int8 from analytics_dropped")
            .fetch_one(&pool)
            .await
            .unwrap()
            == 1
    };
    eventually("the bot counted as dropped", bots).await;
    let stream_drained = || {
        let mut r = r.clone();
        let stream = stream.clone();
        async move {
            let n: i64 = redis::cmd("XLEN")
                .arg(&stream)
                .query_async(&mut r)
                .await
                .unwrap();
            n == 0
        }
    };
    eventually("the worker acknowledged every entry", stream_drained).await;

    // (c) The reads count one visitor, its country and its device.
    assert_eq!(
        (&overview["page_views"], &overview["unique_visitors"]),
        (&json!(2), &json!(1))
    );
    let countries = read(&app, &token, "countries", &project, "30d").await;
    assert_eq!(
        countries["data"],
        json!([{"country": country, "views": 2, "visitors": 1}])
    );
    let devices = read(&app, &token, "devices", &project, "30d").await;
    assert_eq!(
        devices["data"],
        json!([{"device": "desktop", "views": 2, "visitors": 1}])
    );
    assert_eq!(devices["browsers"][0]["browser"], "Chrome");

    // (a) Redis: every key under this test's prefix, and the append-only file, which keeps every
    // write (the entries above included) until it is rewritten.
    assert_absent(
        "Redis",
        &redis_values(&mut r, &app.queue_prefix).await,
        &markers,
    );
    if let Some(files) = aof_files(&mut r).await {
        let aof = read_all(&files);
        assert!(
            aof.contains(&app.queue_prefix),
            "the append-only file holds this test's appends"
        );
        assert_absent("Redis's append-only file", &aof, &markers);
    }

    // (b) Postgres: a dump of the whole database.
    let dump = Command::new("pg_dump")
        .arg("--no-owner")
        .arg(&app.db_url)
        .output()
        .expect("pg_dump (installed with PostgreSQL) runs");
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let dump = String::from_utf8_lossy(&dump.stdout);
    assert!(
        dump.contains("privacy-markers") && dump.contains("/pricing"),
        "the dump holds the project and its events"
    );
    assert_absent("pg_dump", &dump, &markers);

    // The logs, at debug level, of the requests, the api and the worker.
    let logs = logs.text();
    assert!(
        logs.contains(&format!("request_id={request_id}")),
        "this test's requests were logged"
    );
    assert_absent("the logs", &logs, &markers);
}

#[tokio::test]
async fn salts_go_once_their_day_has_ended() {
    let app = spawn_app().await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    // Days by Postgres's clock, as the purge reads it.
    sqlx::query(
        "insert into analytics_salts (day, salt)
         select (now() at time zone 'UTC')::date - d, '\\x00'::bytea from generate_series(0, 2) d",
    )
    .execute(&pool)
    .await
    .unwrap();
    housekeeping::round(&pool).await;
    let left: Vec<i32> = sqlx::query_scalar(
        "select (now() at time zone 'UTC')::date - day from analytics_salts order by day",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(left, vec![0], "only today's salt is left");
}

/// Entries queued by the previous release carried the raw client: a worker still stores them,
/// derived as the api now does, rather than dropping them or stopping.
#[tokio::test]
async fn entries_queued_by_the_previous_release_are_still_stored() {
    let app = spawn_app().await;
    let (token, project) = app.owner_with_project("privacy-legacy").await;
    let old = |ua: &str| {
        json!({"project_id": id(&project), "received_at": chrono::Utc::now(), "ip": "81.2.69.160",
               "user_agent": ua, "events": [{"name": "page_view", "url": "https://acme.example/", "referrer": null,
               "utm_source": null, "utm_medium": null, "utm_campaign": null, "screen_width": null, "properties": null}]})
        .to_string()
    };
    let mut r = redis().await;
    let stream = format!("{}:{EVENTS_STREAM}", app.queue_prefix);
    for ua in [CHROME, GOOGLEBOT] {
        let _: String = redis::cmd("XADD")
            .arg(&stream)
            .arg("*")
            .arg("job")
            .arg(old(ua))
            .query_async(&mut r)
            .await
            .unwrap();
    }
    let _worker = start_worker(&app, &[]);
    let overview = wait_page_views(&app, &token, &project, 1).await;
    assert_eq!(overview["unique_visitors"], 1);
    let devices = read(&app, &token, "devices", &project, "30d").await;
    assert_eq!(devices["browsers"][0]["browser"], "Chrome");
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let bots = || async {
        sqlx::query_scalar::<_, i64>("select coalesce(sum(bots), 0)::int8 from analytics_dropped")
            .fetch_one(&pool)
            .await
            .unwrap()
            == 1
    };
    eventually("the old bot entry counted as dropped", bots).await;
}
