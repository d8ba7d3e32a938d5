//! Job queues on Redis streams, read by consumer groups.
//!
//! Embedding jobs carry document ids only and Postgres holds the state: a worker that wakes for a
//! job claims pending documents there, under a lease. A job lost with Redis (restart without
//! persistence) or with a killed worker therefore loses nothing: pending documents are claimed again.

use redis::aio::ConnectionManager;
use redis::streams::{
    StreamInfoGroupsReply, StreamPendingReply, StreamReadOptions, StreamReadReply,
};
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

pub const EMBED_STREAM: &str = "jobs:embed";
/// One entry per accepted request: an `analytics::events::EventBatch`.
pub const EVENTS_STREAM: &str = "jobs:events";
pub const GROUP: &str = "workers";

/// Asks the workers to embed a document's chunks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbedJob {
    pub document_id: Uuid,
    pub project_id: Uuid,
}

/// One stream entry as read: its payload (`None` if unreadable), and whether it was taken over
/// from another consumer (it may have been handled before) rather than delivered for the first time.
pub struct Entry<T> {
    pub id: String,
    pub job: Option<T>,
    pub redelivered: bool,
}

#[derive(Clone)]
pub struct Queue {
    conn: ConnectionManager,
    /// Appends go through one task that groups them into pipelines (group commit).
    appends: mpsc::Sender<Append>,
    /// Namespaces the stream keys, so deployments (or parallel tests) can share one Redis.
    prefix: String,
}

impl Queue {
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let client = redis::Client::open(url)?;
        // Every command waits for a reconnection in progress, so it must stay short: with
        // redis-rs 0.29's backoff and 2 retries, a Redis restart stalled the api and the workers
        // for one to two minutes (redis-rs#1556). One retry bounds a reconnection at a few
        // seconds (connection timeouts included); the next command starts another.
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(std::time::Duration::from_secs(2)))
            .set_response_timeout(Some(std::time::Duration::from_secs(5)))
            .set_number_of_retries(1);
        let conn = ConnectionManager::new_with_config(client, config).await?;
        let (appends, rx) = mpsc::channel(8_192);
        tokio::spawn(group_commit(conn.clone(), rx));
        Ok(Queue {
            conn,
            appends,
            prefix: prefix.to_owned(),
        })
    }

    fn key(&self, stream: &str) -> String {
        format!("{}:{stream}", self.prefix)
    }

    pub async fn ping(&self) -> bool {
        let mut c = self.conn.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut c)
            .await
            .is_ok()
    }

    /// Appends one job; the stream is capped so acknowledged history cannot grow without bound.
    /// Appends a job; returns once Redis has it (with AOF, once it is on disk as Redis is set to).
    pub async fn push<T: Serialize>(&self, stream: &str, job: &T) -> redis::RedisResult<()> {
        let payload = serde_json::to_string(job).map_err(|e| {
            redis::RedisError::from((redis::ErrorKind::UnexpectedReturnType, "job", e.to_string()))
        })?;
        let (done, answer) = oneshot::channel();
        let closed = || redis::RedisError::from((redis::ErrorKind::Io, "queue task stopped"));
        self.appends
            .send(Append {
                key: self.key(stream),
                payload,
                done,
            })
            .await
            .map_err(|_| closed())?;
        answer.await.map_err(|_| closed())?
    }

    /// Creates the consumer group (and the stream) when missing.
    pub async fn ensure_group(&self, stream: &str) -> redis::RedisResult<()> {
        let mut c = self.conn.clone();
        let res: redis::RedisResult<()> =
            c.xgroup_create_mkstream(self.key(stream), GROUP, "0").await;
        match res {
            Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
            other => other,
        }
    }

    /// Waits up to `block_ms` for new jobs, then also takes over jobs another consumer left
    /// unacknowledged for `stale_ms` (a killed worker).
    pub async fn read<T: for<'de> Deserialize<'de>>(
        &self,
        stream: &str,
        consumer: &str,
        count: usize,
        block_ms: usize,
        stale_ms: u64,
    ) -> redis::RedisResult<Vec<Entry<T>>> {
        let mut c = self.conn.clone();
        let opts = StreamReadOptions::default()
            .group(GROUP, consumer)
            .count(count)
            .block(block_ms);
        let key = self.key(stream);
        let reply: StreamReadReply = c.xread_options(&[&key], &[">"], &opts).await?;
        let mut out: Vec<Entry<T>> = reply
            .keys
            .into_iter()
            .flat_map(|k| k.ids)
            .map(|e| Entry {
                job: e
                    .get::<String>("job")
                    .and_then(|s| serde_json::from_str(&s).ok()),
                id: e.id,
                redelivered: false,
            })
            .collect();
        let claimed: redis::Value = redis::cmd("XAUTOCLAIM")
            .arg(&key)
            .arg(GROUP)
            .arg(consumer)
            .arg(stale_ms)
            .arg("0-0")
            .arg("COUNT")
            .arg(count)
            .query_async(&mut c)
            .await?;
        out.extend(parse_autoclaim(claimed));
        Ok(out)
    }

    /// Acknowledges and drops handled entries.
    pub async fn ack(&self, stream: &str, ids: &[String]) -> redis::RedisResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut c = self.conn.clone();
        let key = self.key(stream);
        // One round trip: Redis then handles both in one loop iteration, with one fsync.
        let _: (i64, i64) = redis::pipe()
            .xack(&key, GROUP, ids)
            .xdel(&key, ids)
            .query_async(&mut c)
            .await?;
        Ok(())
    }

    /// Entries of `stream` not yet acknowledged: waiting for a worker, or taken and unfinished.
    pub async fn backlog(&self, stream: &str) -> redis::RedisResult<usize> {
        let mut c = self.conn.clone();
        let groups: Result<StreamInfoGroupsReply, _> = redis::cmd("XINFO")
            .arg("GROUPS")
            .arg(self.key(stream))
            .query_async(&mut c)
            .await;
        // No stream yet: nothing waits.
        let Ok(groups) = groups else { return Ok(0) };
        Ok(groups
            .groups
            .iter()
            .find(|g| g.name == GROUP)
            .map_or(0, |g| g.pending + g.lag.unwrap_or(0)))
    }

    /// Delivery jobs waiting in the apalis queue (`outbound`): due, or scheduled for a retry.
    pub async fn delivery_backlog(&self) -> redis::RedisResult<usize> {
        let mut c = self.conn.clone();
        let (active, scheduled): (usize, usize) = redis::pipe()
            .cmd("LLEN")
            .arg(self.key("deliveries:active"))
            .cmd("ZCARD")
            .arg(self.key("deliveries:scheduled"))
            .query_async(&mut c)
            .await?;
        Ok(active + scheduled)
    }

    /// Where the consumer group stands on `stream` (entry keys as `entry_key` makes them); `None`
    /// before the group exists. One transaction, so no delivery falls between the two answers.
    pub async fn progress(&self, stream: &str) -> redis::RedisResult<Option<Progress>> {
        let mut c = self.conn.clone();
        let key = self.key(stream);
        let (groups, pending): (StreamInfoGroupsReply, StreamPendingReply) = redis::pipe()
            .atomic()
            .cmd("XINFO")
            .arg("GROUPS")
            .arg(&key)
            .cmd("XPENDING")
            .arg(&key)
            .arg(GROUP)
            .query_async(&mut c)
            .await?;
        let Some(group) = groups.groups.iter().find(|g| g.name == GROUP) else {
            return Ok(None);
        };
        let Some(last_delivered) = entry_key(&group.last_delivered_id) else {
            return Ok(None);
        };
        let oldest_pending = match pending {
            StreamPendingReply::Data(p) => Some(entry_key(&p.start_id).unwrap_or(0)),
            _ => None,
        };
        Ok(Some(Progress {
            oldest_pending,
            last_delivered,
            // Without the count (Redis before 7), assume entries wait.
            waiting: group.lag.is_none_or(|n| n > 0),
        }))
    }
}

/// A consumer group's progress on a stream: see `Queue::progress`.
pub struct Progress {
    /// The oldest entry delivered and not acknowledged.
    pub oldest_pending: Option<i64>,
    /// The last entry delivered to a consumer.
    pub last_delivered: i64,
    /// Some entries have not been delivered yet.
    pub waiting: bool,
}

impl Progress {
    /// The lowest entry that may still be delivered again: entries below it were acknowledged
    /// for good.
    pub fn redeliverable_from(&self) -> i64 {
        let next = self.last_delivered + 1;
        self.oldest_pending.map_or(next, |p| p.min(next))
    }

    /// A lower bound of the oldest entry not acknowledged yet, if there is one: the oldest
    /// pending, or with only undelivered entries waiting, the last delivered.
    pub fn unfinished_since(&self) -> Option<i64> {
        match (self.oldest_pending, self.waiting) {
            (Some(p), _) => Some(p),
            (None, true) => Some(self.last_delivered),
            (None, false) => None,
        }
    }
}

/// The time an entry key (`entry_key`) was added, in milliseconds since the epoch.
pub fn entry_millis(key: i64) -> i64 {
    key >> 20
}

/// A stream entry id (`milliseconds-sequence`) as one ordered number: milliseconds shifted left
/// by 20 bits plus the sequence. `None` for a sequence of 2^20 or more within one millisecond,
/// which Redis never reaches in practice.
pub fn entry_key(id: &str) -> Option<i64> {
    let (ms, seq) = id.split_once('-')?;
    let (ms, seq): (i64, i64) = (ms.parse().ok()?, seq.parse().ok()?);
    (seq < 1 << 20 && ms < 1 << 43).then_some(ms << 20 | seq)
}

/// `XAUTOCLAIM` answers `[next-cursor, [[id, [field, value, ...]], ...], [deleted ids]]`.
fn parse_autoclaim<T: for<'de> Deserialize<'de>>(v: redis::Value) -> Vec<Entry<T>> {
    let redis::Value::Array(parts) = v else {
        return Vec::new();
    };
    let Some(redis::Value::Array(entries)) = parts.into_iter().nth(1) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter_map(|e| {
            let redis::Value::Array(mut pair) = e else {
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
                id,
                job,
                redelivered: true,
            })
        })
        .collect()
}

struct Append {
    key: String,
    payload: String,
    done: oneshot::Sender<redis::RedisResult<()>>,
}

/// Group commit: appends that arrive while a round trip is in flight leave together in the next
/// one, as a pipeline of XADDs, so concurrent single-event requests share Redis round trips (and,
/// with `appendfsync always`, fsyncs) instead of paying one each.
async fn group_commit(conn: ConnectionManager, mut rx: mpsc::Receiver<Append>) {
    while let Some(first) = rx.recv().await {
        let mut group = vec![first];
        while group.len() < 1_024 {
            match rx.try_recv() {
                Ok(a) => group.push(a),
                Err(_) => break,
            }
        }
        // MULTI/EXEC: a group is appended whole or not at all, so a 503 really means nothing was
        // accepted. No MAXLEN: handled entries are deleted, so trimming could only drop work.
        let mut pipe = redis::pipe();
        pipe.atomic();
        for a in &group {
            pipe.cmd("XADD")
                .arg(&a.key)
                .arg("*")
                .arg("job")
                .arg(&a.payload);
        }
        let mut c = conn.clone();
        let result: redis::RedisResult<Vec<String>> = pipe.query_async(&mut c).await;
        for a in group {
            let answer = match &result {
                Ok(_) => Ok(()),
                Err(e) => Err(redis::RedisError::from((
                    redis::ErrorKind::Io,
                    "appending to the queue failed",
                    e.to_string(),
                ))),
            };
            // The request may have gone (client hung up); its job is queued all the same.
            let _ = a.done.send(answer);
        }
    }
}
