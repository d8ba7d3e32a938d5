//! Group commit: appends that arrive while a round trip is in flight leave together in the next
//! one, so concurrent single-event requests share Redis round trips (and, with `appendfsync
//! always`, fsyncs) instead of paying one each. One committer per shard.

use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::streams::Streams;

pub struct Append {
    /// The stream's key, in the committer's shard.
    pub key: String,
    pub payload: String,
    pub done: oneshot::Sender<redis::RedisResult<()>>,
}

/// Appends a group once: the marker named for the group makes a second run (a retry after an
/// answer lost in a failover, when the first did land) append nothing. A script runs whole, so a
/// group is appended whole or not at all and a 503 means nothing was accepted. No MAXLEN:
/// handled entries are deleted, so trimming could only drop work.
const APPEND: &str = r"
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', 120) then return 0 end
for i = 1, #ARGV, 2 do
  redis.call('XADD', KEYS[tonumber(ARGV[i])], '*', 'job', ARGV[i + 1])
end
return 1";

/// Commits what arrives on `rx` to the streams of one shard, whose keys start with `tag`.
pub async fn run(streams: Streams, tag: String, mut rx: mpsc::Receiver<Append>) {
    while let Some(first) = rx.recv().await {
        let mut group = vec![first];
        while group.len() < 1_024 {
            match rx.try_recv() {
                Ok(a) => group.push(a),
                Err(_) => break,
            }
        }
        let marker = format!("{tag}:commit:{}", Uuid::new_v4().simple());
        let result = append(&streams, &marker, &group).await;
        for a in group {
            let answer = match &result {
                Ok(()) => Ok(()),
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

async fn append(streams: &Streams, marker: &str, group: &[Append]) -> redis::RedisResult<()> {
    let mut keys: Vec<&str> = vec![marker];
    for a in group {
        if !keys.contains(&a.key.as_str()) {
            keys.push(&a.key);
        }
    }
    let mut eval = redis::cmd("EVAL");
    eval.arg(APPEND).arg(keys.len()).arg(&keys);
    for a in group {
        let at = keys.iter().position(|k| *k == a.key).unwrap_or_default();
        eval.arg(at + 1).arg(&a.payload);
    }
    let mut pipe = redis::pipe();
    pipe.add_command(eval);
    streams.run_replicated(marker, pipe, 1).await?;
    Ok(())
}
