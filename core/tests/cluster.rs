//! The queue on a Redis Cluster (`REDIS_CLUSTER_URLS`): six nodes started here on free ports.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod support {
    pub mod redis_cluster;
}

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shipmate_core::queue::{entry_id, Queue, EVENTS_STREAM};
use support::redis_cluster::RedisCluster;

fn node_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A cluster, a queue on it with its groups made, the cluster's folder and the queue's key prefix.
async fn cluster_queue(name: &str) -> (RedisCluster, Queue, std::path::PathBuf, String) {
    let dir =
        std::env::temp_dir().join(format!("shipmate-{name}-{}", uuid::Uuid::new_v4().simple()));
    let cluster = RedisCluster::start(&dir).await;
    let prefix = format!("t{}", uuid::Uuid::new_v4().simple());
    let queue = Queue::connect(&node_url(), &cluster.urls(), &prefix)
        .await
        .unwrap();
    queue.ensure_group(EVENTS_STREAM).await.unwrap();
    (cluster, queue, dir, prefix)
}

/// What a consumer saw: per job, the entry keys it came in, and the keys delivered as new.
#[derive(Default)]
struct Seen {
    keys_of: HashMap<u64, HashSet<i64>>,
    fresh: Vec<i64>,
}

/// Reads, records and acknowledges until `missing` says no job is left to read. `missing` is
/// `None` while jobs may still be pushed; the 60 s deadline runs from when it first counts, so
/// a slow failover before that does not eat into it, and its failure says how many are missing
/// (a lost job stays missing; a late one would not).
async fn consume(queue: Queue, seen: Arc<Mutex<Seen>>, missing: impl Fn(&Seen) -> Option<usize>) {
    let mut deadline = None;
    loop {
        match missing(&seen.lock().unwrap()) {
            Some(0) => return,
            Some(n) => {
                let by = *deadline.get_or_insert(Instant::now() + Duration::from_secs(60));
                assert!(
                    Instant::now() < by,
                    "{n} accepted jobs were still unread 60 s after the last was pushed"
                );
            }
            None => {}
        }
        let Ok(entries) = queue
            .read::<u64>(EVENTS_STREAM, "c1", 256, 200, 2_000)
            .await
        else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut keys = Vec::new();
        {
            let mut s = seen.lock().unwrap();
            for e in entries {
                s.keys_of.entry(e.job.unwrap()).or_default().insert(e.key);
                if !e.redelivered {
                    s.fresh.push(e.key);
                }
                keys.push(e.key);
            }
        }
        // Lost acknowledgements (a master dying) only mean a redelivery.
        let _ = queue.ack(EVENTS_STREAM, &keys).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_are_spread_over_every_master_and_each_read_once() {
    let (cluster, queue, dir, _) = cluster_queue("cluster-spread").await;
    let pushes: Vec<_> = (0..2_000u64)
        .map(|n| {
            let q = queue.clone();
            tokio::spawn(async move { q.push(EVENTS_STREAM, &n).await })
        })
        .collect();
    for p in pushes {
        p.await.unwrap().unwrap();
    }
    // Every master holds some of the streams.
    for port in cluster.masters().await {
        let client = redis::Client::open(format!("redis://127.0.0.1:{port}")).unwrap();
        let mut c = client.get_multiplexed_async_connection().await.unwrap();
        let keys: i64 = redis::cmd("DBSIZE").query_async(&mut c).await.unwrap();
        assert!(keys > 0, "master {port} holds no stream");
    }
    assert_eq!(queue.backlog(EVENTS_STREAM).await.unwrap(), 2_000);
    let seen = Arc::new(Mutex::new(Seen::default()));
    consume(queue.clone(), seen.clone(), |s| {
        Some(2_000usize.saturating_sub(s.keys_of.len()))
    })
    .await;
    {
        let seen = seen.lock().unwrap();
        assert!(
            seen.keys_of.values().all(|k| k.len() == 1),
            "a job came in two entries"
        );
        assert_eq!(seen.fresh.len(), 2_000, "an entry was delivered twice");
        let shards: HashSet<u16> = seen.fresh.iter().map(|k| entry_id(*k).0).collect();
        assert_eq!(shards.len(), 16, "the jobs went to {} shards", shards.len());
    }
    let progress = queue.progress(EVENTS_STREAM).await.unwrap().unwrap();
    assert_eq!(progress.unfinished_since(), None);
    assert_eq!(queue.backlog(EVENTS_STREAM).await.unwrap(), 0);
    assert_eq!(queue.cluster_ok().await, Some(true));
    drop(cluster);
    let _ = std::fs::remove_dir_all(dir);
}

/// Waits until the producers have had `n` jobs accepted.
async fn wait_accepted(accepted: &Mutex<HashSet<u64>>, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while accepted.lock().unwrap().len() < n {
        assert!(
            Instant::now() < deadline,
            "only {} of {n} jobs accepted within 60 s",
            accepted.lock().unwrap().len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_master_killed_mid_stream_loses_no_accepted_job_and_appends_none_twice() {
    let (mut cluster, queue, dir, _) = cluster_queue("cluster-failover").await;
    let accepted = Arc::new(Mutex::new(HashSet::new()));
    let refused = Arc::new(Mutex::new(0u64));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let producers: Vec<_> = (0..4u64)
        .map(|p| {
            let (q, accepted, refused, stop) = (
                queue.clone(),
                accepted.clone(),
                refused.clone(),
                stop.clone(),
            );
            tokio::spawn(async move {
                let mut n = p;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    match q.push(EVENTS_STREAM, &n).await {
                        Ok(()) => accepted.lock().unwrap().insert(n),
                        Err(_) => {
                            *refused.lock().unwrap() += 1;
                            false
                        }
                    };
                    n += 4;
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            })
        })
        .collect();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let consumer = {
        let (q, seen, done, accepted) =
            (queue.clone(), seen.clone(), done.clone(), accepted.clone());
        tokio::spawn(async move {
            consume(q, seen, move |s| {
                done.load(std::sync::atomic::Ordering::Relaxed).then(|| {
                    let accepted = accepted.lock().unwrap();
                    accepted
                        .iter()
                        .filter(|n| !s.keys_of.contains_key(n))
                        .count()
                })
            })
            .await
        })
    };
    // Counts, not durations, decide when to move on: a slow machine accepts fewer jobs a second.
    wait_accepted(&accepted, 250).await;
    let victim = cluster.masters().await[0];
    cluster.kill(victim);
    cluster
        .wait_failed_over(victim, Duration::from_secs(30))
        .await;
    // A master left without a replica takes writes on its append-only file alone: what only
    // waited for a replica (a consumer group that exists already) has nothing to do.
    // (The client learns the new master within seconds; the workers retry each second.)
    let deadline = Instant::now() + Duration::from_secs(20);
    while queue.ensure_group(EVENTS_STREAM).await.is_err() {
        assert!(
            Instant::now() < deadline,
            "the consumer groups stayed unreachable"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let before = accepted.lock().unwrap().len();
    wait_accepted(&accepted, before + 250).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for p in producers {
        p.await.unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    consumer.await.unwrap();
    let seen = seen.lock().unwrap();
    let accepted = accepted.lock().unwrap();
    let twice: Vec<_> = seen.keys_of.iter().filter(|(_, k)| k.len() > 1).collect();
    assert!(twice.is_empty(), "jobs appended twice: {twice:?}");
    let fresh: HashSet<i64> = seen.fresh.iter().copied().collect();
    assert_eq!(
        fresh.len(),
        seen.fresh.len(),
        "an entry was delivered as new twice"
    );
    println!(
        "killed master {victim}: {} jobs accepted, {} refused while it failed over, all read once",
        accepted.len(),
        refused.lock().unwrap()
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(dir);
}

/// A failover that keeps both nodes (`CLUSTER FAILOVER`) swaps a shard's master and replica.
/// Until the client has the new slot map, a command for the slot that names no key goes where
/// the old map says: a `ROLE` asked alone was answered by the old master, a replica now, so the
/// new master's writes were acknowledged without waiting for its replica. (After a master was
/// killed it could go to another shard's master, and writes waited for a replica that did not
/// exist and were refused: a flake of the fault suite.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_waited_for_right_after_a_failover() {
    let (cluster, queue, dir, _) = cluster_queue("cluster-role").await;
    // 16 shards of 64 pushes each in turn: every shard written to, its master known.
    for n in 0..1_024u64 {
        queue.push(EVENTS_STREAM, &n).await.unwrap();
    }
    let old = cluster.masters().await[0];
    let new = cluster.replica_of(old).await;
    cluster.fail_over_to(new).await;
    cluster.reset_counts(new).await;
    // What the client remembers of each master's replicas lasts a second: past it, it asks.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    for n in 0..1_024u64 {
        queue.push(EVENTS_STREAM, &n).await.unwrap();
    }
    let (writes, waits) = (
        cluster.calls(new, "eval").await,
        cluster.calls(new, "wait").await,
    );
    assert!(writes > 0, "no write reached the new master {new}");
    assert!(
        waits >= writes,
        "the new master {new} (old {old}) ran {writes} writes and waited for its replica {waits} times"
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_master_whose_replica_is_still_syncing_refuses_writes_until_it_is_online() {
    let (mut cluster, queue, dir, prefix) = cluster_queue("cluster-resync").await;
    let master = cluster.masters().await[0];
    let replica = cluster.replica_of(master).await;
    // Attached but not online: a write the master takes now is on it alone, and a failover to
    // this replica would lose it, so it must be refused (the CI run that found this lost 4).
    cluster.resync_held(replica, master).await;
    // The shards whose streams the master holds (`Streams::key`'s layout on a cluster).
    let mut on_master = HashSet::new();
    for shard in 0..16u16 {
        let key = format!("{{{prefix}:{shard}}}:{EVENTS_STREAM}");
        if cluster.owns(master, &key).await {
            on_master.insert(shard);
        }
    }
    assert!(!on_master.is_empty(), "master {master} holds no shard");
    // What the client remembers of each master's replicas lasts a second: past it, it asks.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let push_all = |queue: Queue, from: u64| async move {
        let pushes: Vec<_> = (from..from + 1_024)
            .map(|n| {
                let q = queue.clone();
                tokio::spawn(async move { (n, q.push(EVENTS_STREAM, &n).await.is_ok()) })
            })
            .collect();
        let mut accepted = HashSet::new();
        for p in pushes {
            let (n, ok) = p.await.unwrap();
            if ok {
                accepted.insert(n);
            }
        }
        accepted
    };
    let held = push_all(queue.clone(), 0).await;
    assert!(!held.is_empty(), "the other masters refused writes too");
    cluster.release_sync(master).await;
    let after = push_all(queue.clone(), 1_024).await;
    assert_eq!(
        after.len(),
        1_024,
        "writes refused with every replica online"
    );
    let accepted: Vec<u64> = held.iter().chain(&after).copied().collect();
    let seen = Arc::new(Mutex::new(Seen::default()));
    consume(queue.clone(), seen.clone(), move |s| {
        Some(
            accepted
                .iter()
                .filter(|n| !s.keys_of.contains_key(n))
                .count(),
        )
    })
    .await;
    let seen = seen.lock().unwrap();
    let alone: Vec<u64> = (held.iter())
        .filter(|n| {
            seen.keys_of[n]
                .iter()
                .any(|k| on_master.contains(&entry_id(*k).0))
        })
        .copied()
        .collect();
    assert!(
        alone.is_empty(),
        "master {master} accepted {} writes while its replica {replica} was still syncing",
        alone.len()
    );
    drop(cluster);
    let _ = std::fs::remove_dir_all(dir);
}
