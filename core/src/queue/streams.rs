//! Where the streams live: one Redis node, or a Redis Cluster. Every command names the key it is
//! about and goes to the master holding that key's slot; on a cluster, a write counts only once a
//! replica has it too (`replicated`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{Cmd, Pipeline, RedisResult, Value};

use super::keys::MAX_SHARDS;

/// How long a cluster write waits for a replica before it is refused: a failover takes longer.
const REPLICA_WAIT: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub enum Streams {
    Node(ConnectionManager),
    /// With how many replicas each shard's master had when last seen.
    Cluster(ClusterConnection, Replicas),
}

/// Replicas per hash tag, remembered for a second: a master that has lost its replica is asked
/// again after that, so one that gets a new replica is waited for again.
#[derive(Clone, Default)]
pub struct Replicas(Arc<Mutex<HashMap<String, (Instant, usize)>>>);

impl Replicas {
    fn get(&self, tag: &str) -> Option<usize> {
        let seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(tag)
            .filter(|(at, _)| at.elapsed() < Duration::from_secs(1))
            .map(|(_, n)| *n)
    }

    fn put(&self, tag: String, n: usize) {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.insert(tag, (Instant::now(), n));
    }
}

/// The part of `key` Redis Cluster hashes: between the first `{` and the next `}`.
fn hash_tag(key: &str) -> &str {
    key.split_once('{')
        .and_then(|(_, rest)| rest.split_once('}'))
        .map_or(key, |(tag, _)| tag)
}

impl Streams {
    /// A node: commands wait for a reconnection in progress, so it must stay short: with
    /// redis-rs 0.29's backoff and 2 retries, a Redis restart stalled the api and the workers
    /// for one to two minutes (redis-rs#1556). One retry bounds a reconnection at a few seconds
    /// (connection timeouts included); the next command starts another.
    pub async fn node(url: &str) -> RedisResult<ConnectionManager> {
        let client = redis::Client::open(url)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(1);
        ConnectionManager::new_with_config(client, config).await
    }

    /// A cluster from its seed nodes. Retries follow a failover's redirections; they are safe
    /// because every write is idempotent (`commit`'s marker, XACK, XDEL).
    pub async fn cluster(seeds: &[String]) -> RedisResult<ClusterConnection> {
        redis::cluster::ClusterClient::builder(seeds.to_vec())
            .connection_timeout(Duration::from_secs(2))
            .response_timeout(Duration::from_secs(5))
            .retries(6)
            .max_retry_wait(1_000)
            .build()?
            .get_async_connection()
            .await
    }

    /// Streams per stream name: several on a cluster, so that no one master takes a whole
    /// firehose.
    pub fn shards(&self) -> u16 {
        match self {
            Streams::Node(_) => 1,
            Streams::Cluster(..) => MAX_SHARDS,
        }
    }

    /// The key of one shard of `stream`. On a cluster the shard's hash tag puts all its streams
    /// (and its commit markers) in one slot, so one transaction may write several of them.
    pub fn key(&self, prefix: &str, shard: u16, stream: &str) -> String {
        match self {
            Streams::Node(_) => format!("{prefix}:{stream}"),
            Streams::Cluster(..) => format!("{{{prefix}:{shard}}}:{stream}"),
        }
    }

    /// Runs `cmd` on the master of `key`.
    pub async fn run(&self, key: &str, cmd: Cmd) -> RedisResult<Value> {
        match self {
            Streams::Node(c) => cmd.query_async(&mut c.clone()).await,
            Streams::Cluster(c, _) => c.clone().route_command(cmd, master_of(key)).await,
        }
    }

    /// Runs `pipe` (one packed write: a MULTI in it cannot interleave with other commands) on the
    /// master of `key`; one answer per command.
    pub async fn run_pipe(&self, key: &str, pipe: Pipeline, len: usize) -> RedisResult<Vec<Value>> {
        match self {
            Streams::Node(c) => pipe.query_async(&mut c.clone()).await,
            Streams::Cluster(c, _) => {
                let route =
                    SingleNodeRoutingInfo::SpecificNode(Route::with_key(key, SlotAddr::Master));
                c.clone().route_pipeline(pipe, 0, len, route).await
            }
        }
    }

    /// Runs `pipe` (`len` commands) on the master of `key`, and on a cluster has it count only
    /// once a replica has its writes: a `WAIT 1` rides in the same round trip (Redis replicates
    /// asynchronously: a master killed before would lose them). A master without a replica (its
    /// own was promoted and the old master has not come back as its replica yet) has only its
    /// append-only file, as a single node has: waiting would refuse every write until an
    /// operator adds a replica, so its writes are not waited for. A replica still syncing counts
    /// (`replicas_of`): its master's writes are refused until it is online. `pipe` names `key`
    /// (see `ask_replicas`). The answers of `pipe`'s commands.
    pub async fn run_replicated(
        &self,
        key: &str,
        mut pipe: Pipeline,
        len: usize,
    ) -> RedisResult<Vec<Value>> {
        let replicas = match self {
            Streams::Cluster(_, replicas) => Some(replicas),
            Streams::Node(_) => None,
        };
        let tag = hash_tag(key).to_owned();
        // Known before the write: a WAIT on a master with no replica would block the connection
        // it shares with the process's other commands for the whole timeout.
        let waits = match replicas {
            Some(r) => match r.get(&tag) {
                Some(n) => n > 0,
                None => self.ask_replicas(r, key).await? > 0,
            },
            None => false,
        };
        if !waits {
            return self.run_pipe(key, pipe, len).await;
        }
        // Should none acknowledge, perhaps the replica is gone: the master that ran the write says.
        pipe.cmd("WAIT").arg(1).arg(REPLICA_WAIT.as_millis() as u64);
        pipe.cmd("INFO").arg("replication");
        let mut answers = self.run_pipe(key, pipe, len + 2).await?;
        let info = answers.pop().unwrap_or(Value::Nil);
        let acked: i64 = redis::from_redis_value(answers.pop().unwrap_or(Value::Nil))?;
        if let (true, Some(r)) = (acked < 1, replicas) {
            let n = replicas_of(info);
            r.put(tag, n);
            if n > 0 {
                return Err(redis::RedisError::from((
                    redis::ErrorKind::Io,
                    "no replica acknowledged the write",
                )));
            }
        }
        Ok(answers)
    }

    /// How many replicas the master of `key` has now, remembered in `replicas`. `INFO` names no
    /// key, so it rides behind a command that does: while the connection to a slot's master is
    /// down, redis 1.8 sends a command for it to any node, and only a keyed one is redirected
    /// (`MOVED`) to the slot's master, the whole pipeline with it. Asked alone after a failover,
    /// another shard's master answered, its replica counted, and every write waited and was
    /// refused.
    async fn ask_replicas(&self, replicas: &Replicas, key: &str) -> RedisResult<usize> {
        let mut pipe = redis::pipe();
        pipe.cmd("EXISTS").arg(key).cmd("INFO").arg("replication");
        let info = self.run_pipe(key, pipe, 2).await?.pop();
        let n = replicas_of(info.unwrap_or(Value::Nil));
        replicas.put(hash_tag(key).to_owned(), n);
        Ok(n)
    }

    /// Whether every slot is served (a cluster) or the node answers.
    pub async fn ping(&self) -> bool {
        match self {
            Streams::Node(c) => redis::cmd("PING")
                .query_async::<String>(&mut c.clone())
                .await
                .is_ok(),
            Streams::Cluster(c, _) => {
                let info = c
                    .clone()
                    .route_command(
                        redis::cmd("CLUSTER").arg("INFO").clone(),
                        RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random),
                    )
                    .await
                    .ok()
                    .and_then(|v| redis::from_redis_value::<String>(v).ok());
                info.is_some_and(|i| i.contains("cluster_state:ok"))
            }
        }
    }
}

/// The replicas attached to a master, from `INFO replication`'s `connected_slaves`, which counts
/// those still syncing. `ROLE` lists only those online: a master whose one replica was resyncing
/// looked alone, its writes were not waited for, and when it was killed the replica, promoted
/// with none of them, lost them (seen in `core/tests/cluster.rs`).
fn replicas_of(info: Value) -> usize {
    let info: String = redis::from_redis_value(info).unwrap_or_default();
    info.lines()
        .find_map(|l| l.strip_prefix("connected_slaves:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

fn master_of(key: &str) -> RoutingInfo {
    RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(Route::with_key(
        key,
        SlotAddr::Master,
    )))
}
