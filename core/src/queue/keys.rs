//! Stream entry ids as ordered numbers, and where the consumer group stands on a stream.

/// Entry keys leave four bits for the stream an entry came from: a firehose on a Redis Cluster is
/// spread over up to 16 streams (`Streams::shards`), whose ids are each unique in their own stream
/// only.
pub const MAX_SHARDS: u16 = 16;

/// A stream entry id (`milliseconds-sequence`) of shard `shard` as one ordered number:
/// milliseconds shifted left by 20 bits, then the shard in 4 bits, then the sequence in 16. The
/// keys of shard 0 are those of one stream before streams were sharded. `None` for a sequence of
/// 2^16 or more within one millisecond of one stream, which Redis never reaches in practice.
pub fn entry_key(id: &str, shard: u16) -> Option<i64> {
    let (ms, seq) = id.split_once('-')?;
    let (ms, seq): (i64, i64) = (ms.parse().ok()?, seq.parse().ok()?);
    (seq < 1 << 16 && ms < 1 << 43 && shard < MAX_SHARDS)
        .then_some(ms << 20 | i64::from(shard) << 16 | seq)
}

/// The shard and the stream entry id of an entry key (`entry_key` backwards).
pub fn entry_id(key: i64) -> (u16, String) {
    let shard = ((key >> 16) & 0xF) as u16;
    (shard, format!("{}-{}", key >> 20, key & 0xFFFF))
}

/// The time an entry key (`entry_key`) was added, in milliseconds since the epoch.
pub fn entry_millis(key: i64) -> i64 {
    key >> 20
}

/// A consumer group's progress on a stream (on every shard of it: see `Progress::merge`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// The oldest entry delivered and not acknowledged.
    pub oldest_pending: Option<i64>,
    /// The last entry delivered to a consumer.
    pub last_delivered: i64,
    /// Some entries have not been delivered yet.
    pub waiting: bool,
    /// The lowest entry that may still be delivered again: entries below it were acknowledged
    /// for good.
    redeliverable: i64,
    /// A lower bound of the oldest entry not acknowledged yet, if there is one.
    unfinished: Option<i64>,
}

impl Progress {
    pub fn new(oldest_pending: Option<i64>, last_delivered: i64, waiting: bool) -> Self {
        let next = last_delivered + 1;
        let unfinished = match (oldest_pending, waiting) {
            (Some(p), _) => Some(p),
            (None, true) => Some(last_delivered),
            (None, false) => None,
        };
        Progress {
            oldest_pending,
            last_delivered,
            waiting,
            redeliverable: oldest_pending.map_or(next, |p| p.min(next)),
            unfinished,
        }
    }

    /// The progress over several shards of one stream: an entry key below every shard's bound is
    /// below its own shard's, since the keys of one shard order as its ids do.
    pub fn merge(self, other: Progress) -> Progress {
        let min = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Progress {
            oldest_pending: min(self.oldest_pending, other.oldest_pending),
            last_delivered: self.last_delivered.max(other.last_delivered),
            waiting: self.waiting || other.waiting,
            redeliverable: self.redeliverable.min(other.redeliverable),
            unfinished: min(self.unfinished, other.unfinished),
        }
    }

    /// The lowest entry that may still be delivered again: entries below it were acknowledged
    /// for good.
    pub fn redeliverable_from(&self) -> i64 {
        self.redeliverable
    }

    /// A lower bound of the oldest entry not acknowledged yet, if there is one: the oldest
    /// pending, or with only undelivered entries waiting, the last delivered.
    pub fn unfinished_since(&self) -> Option<i64> {
        self.unfinished
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_order_of_ids_within_a_shard_and_come_back_as_ids() {
        let a = entry_key("1700000000000-5", 3).unwrap_or_default();
        let b = entry_key("1700000000000-6", 3).unwrap_or_default();
        let c = entry_key("1700000000001-0", 3).unwrap_or_default();
        assert!(a < b && b < c);
        assert_eq!(entry_id(b), (3, "1700000000000-6".to_owned()));
        assert_ne!(
            entry_key("1700000000000-5", 0),
            entry_key("1700000000000-5", 1)
        );
        assert_eq!(entry_key("1-70000", 0), None);
        assert_eq!(entry_millis(c), 1_700_000_000_001);
    }

    #[test]
    fn merged_progress_bounds_every_shard() {
        let k = |ms: i64, shard: u16| entry_key(&format!("{ms}-0"), shard).unwrap_or_default();
        let idle = Progress::new(None, k(500, 0), false);
        let busy = Progress::new(Some(k(100, 1)), k(400, 1), true);
        let both = idle.merge(busy);
        assert_eq!(both.redeliverable_from(), k(100, 1));
        assert_eq!(both.unfinished_since(), Some(k(100, 1)));
        assert_eq!(idle.unfinished_since(), None);
        assert_eq!(idle.redeliverable_from(), k(500, 0) + 1);
    }
}
