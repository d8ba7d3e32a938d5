//! Job queues on Redis streams, read by consumer groups: on one Redis node, or spread over the
//! masters of a Redis Cluster (`streams`).
//!
//! Embedding jobs carry document ids only and Postgres holds the state: a worker that wakes for a
//! job claims pending documents there, under a lease. A job lost with Redis (restart without
//! persistence) or with a killed worker therefore loses nothing: pending documents are claimed again.

mod commit;
mod keys;
mod streams;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;
use redis::streams::{StreamInfoGroupsReply, StreamPendingReply, StreamReadReply};
use redis::Value;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

pub use keys::{entry_id, entry_key, entry_millis, Progress};
use streams::Streams;

pub const EMBED_STREAM: &str = "jobs:embed";
/// One entry per accepted request: an `analytics::events::EventBatch`.
pub const EVENTS_STREAM: &str = "jobs:events";
pub const GROUP: &str = "workers";

/// Consecutive appends go to one shard, this many at a time: concurrent requests then share a
/// group commit (with each append going to the next shard, 16 committers made groups 16 times
/// smaller than one node's), and the shards still take turns, so every master gets its share.
const STICKY: usize = 64;

/// Asks the workers to embed a document's chunks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbedJob {
    pub document_id: Uuid,
    pub project_id: Uuid,
}

/// One stream entry as read: its key (`entry_key`, shard included), its payload (`None` if
/// unreadable), and whether it was taken over from another consumer (it may have been handled
/// before) rather than delivered for the first time.
pub struct Entry<T> {
    pub key: i64,
    pub job: Option<T>,
    pub redelivered: bool,
}

#[derive(Clone)]
pub struct Queue {
    /// `REDIS_URL`: apalis' delivery jobs, and the streams unless a cluster holds them.
    node: ConnectionManager,
    streams: Streams,
    /// One group-commit task per shard.
    appends: Vec<mpsc::Sender<commit::Append>>,
    /// Spreads appends over the shards.
    next: Arc<AtomicUsize>,
    /// Namespaces the keys, so deployments (or parallel tests) can share one Redis.
    prefix: String,
}

impl Queue {
    /// Connects to the node at `url`, and to the cluster seeded by `cluster` when it names nodes:
    /// the streams then live there.
    pub async fn connect(url: &str, cluster: &[String], prefix: &str) -> anyhow::Result<Self> {
        let node = Streams::node(url).await?;
        let streams = if cluster.is_empty() {
            Streams::Node(node.clone())
        } else {
            Streams::Cluster(Streams::cluster(cluster).await?, Default::default())
        };
        let mut appends = Vec::new();
        for shard in 0..streams.shards() {
            let (tx, rx) = mpsc::channel(8_192);
            let tag = streams.key(prefix, shard, "jobs");
            tokio::spawn(commit::run(streams.clone(), tag, rx));
            appends.push(tx);
        }
        Ok(Queue {
            node,
            streams,
            appends,
            next: Arc::default(),
            prefix: prefix.to_owned(),
        })
    }

    fn key(&self, shard: u16, stream: &str) -> String {
        self.streams.key(&self.prefix, shard, stream)
    }

    fn shards(&self) -> std::ops::Range<u16> {
        0..self.streams.shards()
    }

    /// The connection to the `REDIS_URL` node, for what else lives there (shared rate limits).
    pub fn node(&self) -> ConnectionManager {
        self.node.clone()
    }

    /// Whether the `REDIS_URL` node answers.
    pub async fn ping(&self) -> bool {
        redis::cmd("PING")
            .query_async::<String>(&mut self.node.clone())
            .await
            .is_ok()
    }

    /// Whether the cluster serves every slot; `None` without one.
    pub async fn cluster_ok(&self) -> Option<bool> {
        match &self.streams {
            Streams::Node(_) => None,
            cluster => Some(cluster.ping().await),
        }
    }

    /// Whether the Redis holding the streams answers (the cluster when there is one).
    pub async fn streams_ok(&self) -> bool {
        self.streams.ping().await
    }

    /// Appends a job; returns once Redis has it (with AOF, once it is on disk as Redis is set
    /// to; on a cluster, once a replica has it too).
    pub async fn push<T: Serialize>(&self, stream: &str, job: &T) -> redis::RedisResult<()> {
        let payload = serde_json::to_string(job).map_err(|e| {
            redis::RedisError::from((redis::ErrorKind::UnexpectedReturnType, "job", e.to_string()))
        })?;
        let shard = (self.next.fetch_add(1, Ordering::Relaxed) / STICKY) % self.appends.len();
        let (done, answer) = oneshot::channel();
        let closed = || redis::RedisError::from((redis::ErrorKind::Io, "queue task stopped"));
        self.appends[shard]
            .send(commit::Append {
                key: self.key(shard as u16, stream),
                payload,
                done,
            })
            .await
            .map_err(|_| closed())?;
        answer.await.map_err(|_| closed())?
    }

    /// Creates the consumer group (and the stream) of every shard when missing.
    pub async fn ensure_group(&self, stream: &str) -> redis::RedisResult<()> {
        for shard in self.shards() {
            let key = self.key(shard, stream);
            let mut cmd = redis::cmd("XGROUP");
            cmd.arg("CREATE")
                .arg(&key)
                .arg(GROUP)
                .arg("0")
                .arg("MKSTREAM");
            match self.streams.run(&key, cmd).await {
                Err(e) if e.code() == Some("BUSYGROUP") => {}
                Err(e) => return Err(e),
                Ok(_) => {
                    // Only to wait for a replica; a keyed command leads the wait to the master.
                    let mut pipe = redis::pipe();
                    pipe.cmd("EXISTS").arg(&key);
                    self.streams.run_replicated(&key, pipe, 1).await?;
                }
            }
        }
        Ok(())
    }

    /// Takes over jobs another consumer left unacknowledged for `stale_ms` (a killed worker), and
    /// waits up to `block_ms` for new ones. On a cluster the shards are asked at once, without
    /// blocking (a blocked read would hold the connection its master shares with the process's
    /// other commands), again every 50 ms until something comes or `block_ms` passes.
    pub async fn read<T: for<'de> Deserialize<'de> + Send + 'static>(
        &self,
        stream: &str,
        consumer: &str,
        count: usize,
        block_ms: usize,
        stale_ms: u64,
    ) -> redis::RedisResult<Vec<Entry<T>>> {
        let per_shard = count.div_ceil(self.appends.len());
        if let Streams::Node(_) = self.streams {
            let ask = Ask::new(stream, consumer, per_shard, Some(stale_ms));
            return self.read_shard(0, ask.blocking(block_ms)).await;
        }
        let deadline = Instant::now() + Duration::from_millis(block_ms as u64);
        let mut ask = Ask::new(stream, consumer, per_shard, Some(stale_ms));
        loop {
            let mut shards = tokio::task::JoinSet::new();
            for shard in self.shards() {
                let (queue, ask) = (self.clone(), ask.clone());
                shards.spawn(async move { queue.read_shard::<T>(shard, ask).await });
            }
            // A shard that fails (its master failing over) does not hold up the others; its
            // entries, if they were delivered, are taken over once stale.
            let (mut out, mut failed) = (Vec::new(), None);
            while let Some(read) = shards.join_next().await {
                match read {
                    Ok(Ok(entries)) => out.extend(entries),
                    Ok(Err(e)) => failed = Some(e),
                    Err(e) => {
                        failed = Some(redis::RedisError::from((
                            redis::ErrorKind::Io,
                            "read task",
                            e.to_string(),
                        )))
                    }
                }
            }
            if let (true, Some(e)) = (out.is_empty(), failed) {
                return Err(e);
            }
            if !out.is_empty() || Instant::now() >= deadline {
                return Ok(out);
            }
            ask.stale_ms = None;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// One shard's read, in one round trip: entries another consumer left for `stale_ms` (when
    /// asked), then entries not delivered before. A delivery must reach a replica like any write:
    /// a promoted replica that never saw it would deliver the entry again as new, handled twice
    /// without the check redelivered entries get.
    async fn read_shard<T: for<'de> Deserialize<'de>>(
        &self,
        shard: u16,
        ask: Ask,
    ) -> redis::RedisResult<Vec<Entry<T>>> {
        let key = self.key(shard, &ask.stream);
        let mut pipe = redis::pipe();
        if let Some(stale_ms) = ask.stale_ms {
            pipe.cmd("XAUTOCLAIM")
                .arg(&key)
                .arg(GROUP)
                .arg(&ask.consumer)
                .arg(stale_ms)
                .arg("0-0")
                .arg("COUNT")
                .arg(ask.count);
        }
        let read = pipe
            .cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(&ask.consumer)
            .arg("COUNT")
            .arg(ask.count);
        if let Some(ms) = ask.block_ms {
            read.arg("BLOCK").arg(ms);
        }
        read.arg("STREAMS").arg(&key).arg(">");
        let len = 1 + usize::from(ask.stale_ms.is_some());
        let mut answers = self
            .streams
            .run_replicated(&key, pipe, len)
            .await?
            .into_iter();
        let mut out = match ask.stale_ms {
            Some(_) => parse_autoclaim(answers.next().unwrap_or(Value::Nil), shard),
            None => Vec::new(),
        };
        let reply: Option<StreamReadReply> =
            redis::from_redis_value(answers.next().unwrap_or(Value::Nil))?;
        out.extend(
            reply
                .into_iter()
                .flat_map(|r| r.keys)
                .flat_map(|k| k.ids)
                .filter_map(|e| {
                    Some(Entry {
                        key: entry_key(&e.id, shard)?,
                        job: e
                            .get::<String>("job")
                            .and_then(|s| serde_json::from_str(&s).ok()),
                        redelivered: false,
                    })
                }),
        );
        Ok(out)
    }

    /// Acknowledges and drops handled entries (keys as `Entry::key`).
    pub async fn ack(&self, stream: &str, keys: &[i64]) -> redis::RedisResult<()> {
        for shard in self.shards() {
            let ids: Vec<String> = keys
                .iter()
                .map(|k| entry_id(*k))
                .filter(|(s, _)| *s == shard)
                .map(|(_, id)| id)
                .collect();
            if ids.is_empty() {
                continue;
            }
            let key = self.key(shard, stream);
            // One round trip: Redis then handles both in one loop iteration, with one fsync. An
            // acknowledgement lost in a failover would have the entry handled again after
            // `Upkeep` forgot it was stored: it is replicated like any write.
            let mut pipe = redis::pipe();
            pipe.cmd("XACK").arg(&key).arg(GROUP).arg(&ids);
            pipe.cmd("XDEL").arg(&key).arg(&ids);
            self.streams.run_replicated(&key, pipe, 2).await?;
        }
        Ok(())
    }

    /// Entries of `stream` not yet acknowledged: waiting for a worker, or taken and unfinished.
    pub async fn backlog(&self, stream: &str) -> redis::RedisResult<usize> {
        let mut total = 0;
        for shard in self.shards() {
            let key = self.key(shard, stream);
            let mut cmd = redis::cmd("XINFO");
            cmd.arg("GROUPS").arg(&key);
            // No stream yet: nothing waits.
            let Ok(value) = self.streams.run(&key, cmd).await else {
                continue;
            };
            let groups: StreamInfoGroupsReply = redis::from_redis_value(value)?;
            total += groups
                .groups
                .iter()
                .find(|g| g.name == GROUP)
                .map_or(0, |g| g.pending + g.lag.unwrap_or(0));
        }
        Ok(total)
    }

    /// Delivery jobs waiting in the apalis queue (`outbound`): due, or scheduled for a retry.
    pub async fn delivery_backlog(&self) -> redis::RedisResult<usize> {
        let (active, scheduled): (usize, usize) = redis::pipe()
            .cmd("LLEN")
            .arg(format!("{}:deliveries:active", self.prefix))
            .cmd("ZCARD")
            .arg(format!("{}:deliveries:scheduled", self.prefix))
            .query_async(&mut self.node.clone())
            .await?;
        Ok(active + scheduled)
    }

    /// Where the consumer group stands on `stream`, over all its shards; `None` before every
    /// shard's group exists.
    pub async fn progress(&self, stream: &str) -> redis::RedisResult<Option<Progress>> {
        let mut all: Option<Progress> = None;
        for shard in self.shards() {
            let Some(p) = self.shard_progress(shard, stream).await? else {
                return Ok(None);
            };
            all = Some(all.map_or(p, |a| a.merge(p)));
        }
        Ok(all)
    }

    /// One transaction, so no delivery falls between the two answers.
    async fn shard_progress(
        &self,
        shard: u16,
        stream: &str,
    ) -> redis::RedisResult<Option<Progress>> {
        let key = self.key(shard, stream);
        let mut pipe = redis::pipe();
        pipe.cmd("MULTI");
        pipe.cmd("XINFO").arg("GROUPS").arg(&key);
        pipe.cmd("XPENDING").arg(&key).arg(GROUP);
        pipe.cmd("EXEC");
        let mut answers = self.streams.run_pipe(&key, pipe, 4).await?;
        let (groups, pending): (StreamInfoGroupsReply, StreamPendingReply) =
            redis::from_redis_value(answers.pop().unwrap_or(Value::Nil))?;
        let Some(group) = groups.groups.iter().find(|g| g.name == GROUP) else {
            return Ok(None);
        };
        let Some(last_delivered) = entry_key(&group.last_delivered_id, shard) else {
            return Ok(None);
        };
        let oldest_pending = match pending {
            StreamPendingReply::Data(p) => Some(entry_key(&p.start_id, shard).unwrap_or(0)),
            _ => None,
        };
        // Without the count (Redis before 7), assume entries wait.
        let waiting = group.lag.is_none_or(|n| n > 0);
        Ok(Some(Progress::new(oldest_pending, last_delivered, waiting)))
    }
}

/// What a worker asks one shard for (`Queue::read_shard`).
#[derive(Clone)]
struct Ask {
    stream: String,
    consumer: String,
    count: usize,
    /// Also take over entries left this long; `None`: new entries only.
    stale_ms: Option<u64>,
    block_ms: Option<usize>,
}

impl Ask {
    fn new(stream: &str, consumer: &str, count: usize, stale_ms: Option<u64>) -> Self {
        Ask {
            stream: stream.to_owned(),
            consumer: consumer.to_owned(),
            count,
            stale_ms,
            block_ms: None,
        }
    }

    fn blocking(mut self, ms: usize) -> Self {
        self.block_ms = Some(ms);
        self
    }
}

/// `XAUTOCLAIM` answers `[next-cursor, [[id, [field, value, ...]], ...], [deleted ids]]`.
fn parse_autoclaim<T: for<'de> Deserialize<'de>>(v: Value, shard: u16) -> Vec<Entry<T>> {
    let Value::Array(parts) = v else {
        return Vec::new();
    };
    let Some(Value::Array(entries)) = parts.into_iter().nth(1) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter_map(|e| {
            let Value::Array(mut pair) = e else {
                return None;
            };
            if pair.len() != 2 {
                return None;
            }
            let fields = pair.pop()?;
            let id: String = redis::from_redis_value(pair.pop()?).ok()?;
            let fields: Vec<String> = redis::from_redis_value(fields).unwrap_or_default();
            let job = fields
                .chunks(2)
                .find(|kv| kv[0] == "job")
                .and_then(|kv| kv.get(1))
                .and_then(|s| serde_json::from_str(s).ok());
            Some(Entry {
                key: entry_key(&id, shard)?,
                job,
                redelivered: true,
            })
        })
        .collect()
}
