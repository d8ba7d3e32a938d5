//! Rate limits shared by every process through Redis, so that a flood spread over N apis meets
//! one limit, not N. The same algorithm as the in-process limiters (governor): GCRA, one key per
//! client holding its theoretical arrival time, on Redis's clock (the processes' clocks may
//! differ).

use std::time::Duration;

use redis::aio::ConnectionManager;

/// Takes one token: answers 0, or how many microseconds until one is free.
const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next = tat + interval
local over = next - now - burst * interval
if over > 0 then return over end
redis.call('SET', KEYS[1], next, 'PX', math.ceil((next - now) / 1000))
return 0";

#[derive(Clone)]
pub struct SharedRate {
    conn: ConnectionManager,
    prefix: String,
}

impl SharedRate {
    pub fn new(conn: ConnectionManager, prefix: &str) -> Self {
        SharedRate {
            conn,
            prefix: prefix.to_owned(),
        }
    }

    /// Takes one of `per_minute` from `key`'s bucket (a burst of `per_minute`, refilled evenly
    /// over the minute): `None` when taken, or how long until one is free.
    pub async fn take(&self, key: &str, per_minute: u32) -> redis::RedisResult<Option<Duration>> {
        let interval_us = 60_000_000 / u64::from(per_minute.max(1));
        let wait_us: u64 = redis::cmd("EVAL")
            .arg(TAKE)
            .arg(1)
            .arg(format!("{}:limit:{key}", self.prefix))
            .arg(interval_us)
            .arg(per_minute)
            .query_async(&mut self.conn.clone())
            .await?;
        Ok((wait_us > 0).then(|| Duration::from_micros(wait_us)))
    }
}
