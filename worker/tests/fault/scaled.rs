//! The scaled-out topology under faults: two apis behind a load balancer and two workers, the
//! streams on a six-node Redis Cluster. While the same load as the fault suite's runs, a cluster
//! master is SIGKILLed (its replica takes over), then one api, then one worker mid-batch; every
//! write answered 2xx must be stored exactly once, and the survivors keep answering.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use uuid::Uuid;

// The queue's own cluster tests use the rest of it.
#[allow(dead_code)]
#[path = "../../../core/tests/support/redis_cluster.rs"]
mod redis_cluster;

use crate::checks::{secs, Fault};
use crate::helpers::*;
use crate::procs::{spawn_api, spawn_worker, Redis};
use crate::proxy::Balancer;
use crate::run::Run;
use crate::support::worker_args;
use crate::{api_flags, test_app, WORKER_FLAGS};
use redis_cluster::RedisCluster;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run alone, with --nocapture for its summary: scripts/test does"]
async fn two_apis_and_two_workers_on_a_redis_cluster_lose_nothing_when_a_master_an_api_and_a_worker_die(
) {
    let began = Instant::now();
    let dir = std::env::temp_dir().join(format!("shipmate-scaled-{}", Uuid::new_v4().simple()));
    let mut cluster = RedisCluster::start(&dir.join("cluster")).await;
    // apalis' delivery jobs stay on one node (docs/jobs.md).
    let mut redis = Redis::start(&dir).await;
    let direct_url = fresh_database_url();
    let queue_prefix = format!("shipmate-scaled-{}", Uuid::new_v4().simple());
    let seeds = cluster.urls().join(",");
    let mut api_args = api_flags(&direct_url, &redis.url(), &queue_prefix);
    api_args.extend(["--redis-cluster-urls".to_owned(), seeds.clone()]);
    let mut apis = Vec::new();
    for n in 1..=2 {
        let home = dir.join(format!("api-{n}"));
        std::fs::create_dir_all(&home).unwrap();
        apis.push(spawn_api(&home, &api_args).await);
    }
    let addrs: Vec<SocketAddr> = apis
        .iter()
        .map(|(_, base)| base.trim_start_matches("http://").parse().unwrap())
        .collect();
    let balancer = Balancer::start(addrs).await;
    let base = format!("http://127.0.0.1:{}", balancer.port);
    let app = test_app(base, direct_url.clone(), queue_prefix);
    let redis_url = redis.url();
    let mut extra = vec![
        "--redis-url",
        redis_url.as_str(),
        "--redis-cluster-urls",
        seeds.as_str(),
    ];
    extra.extend(WORKER_FLAGS);
    let flags = worker_args(&app, &extra);
    let mut workers = vec![
        spawn_worker(&dir, 1, &flags[1..]),
        spawn_worker(&dir, 2, &flags[1..]),
    ];
    let run = Run::start(app, &direct_url, began).await;
    let load = run.load.clone();
    let pause = |s: u64| tokio::time::sleep(Duration::from_secs(s));
    let mut faults = Vec::new();
    pause(3).await;

    // 1. SIGKILL a Redis Cluster master; its replica is promoted after the node timeout (1 s).
    let start = load.now();
    let victim = cluster.masters().await[0];
    cluster.kill(victim);
    cluster
        .wait_failed_over(victim, Duration::from_secs(30))
        .await;
    let promoted = load.now() - start;
    pause(2).await;
    faults.push(Fault {
        name: "Redis Cluster master SIGKILL".into(),
        start,
        end: load.now(),
        expect_503: vec![],
        detail: format!(
            "master on port {victim} killed; every slot served again after {}",
            secs(promoted)
        ),
    });
    pause(5).await;

    // 2. SIGKILL one api: the balancer sends new connections to the other.
    let cut = load.now();
    apis[0].0.kill();
    pause(3).await;
    faults.push(Fault {
        name: "api SIGKILL behind the balancer".into(),
        start: cut,
        end: load.now(),
        expect_503: vec![],
        detail: "one of two apis killed; the other answers every new connection".into(),
    });
    pause(4).await;

    // 3. SIGKILL one worker mid-batch, the other alive: it takes over the unacknowledged
    //    entries (after 5 s) and the leased documents (after 8 s).
    let start = load.now();
    workers[0].kill();
    pause(2).await;
    faults.push(Fault {
        name: "worker SIGKILL, the other alive".into(),
        start,
        end: load.now(),
        expect_503: vec![],
        detail: "no new worker: the second takes over".into(),
    });
    pause(8).await;

    let mut processes = Vec::new();
    if !apis[1].0.running() {
        processes.push(format!(
            "the second api exited; see {}",
            apis[1].0.log.display()
        ));
    }
    if !workers[1].running() {
        processes.push(format!(
            "the second worker exited; see {}",
            workers[1].log.display()
        ));
    }
    let violations = run
        .finish("scaled topology", &faults, &[cut], processes)
        .await;
    if violations.is_empty() {
        drop(cluster);
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        println!("logs: {}", dir.display());
    }
    drop(apis);
    drop(workers);
    redis.down().await;
    assert!(violations.is_empty(), "{} violations", violations.len());
}
