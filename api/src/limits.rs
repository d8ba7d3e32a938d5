//! Per-client rate limits on what the public can reach (governor): creations through a public key
//! or a public form (comments and similarity look-ups too), analytics events through a public key,
//! votes per user, and sign-in work per client. A setting of 0 turns a limit off; limiter memory is
//! pruned once a minute.
//!
//! The per-minute limits (creations, comments, votes, sign-in work) are also shared by every api
//! process through Redis (`SharedRate`): a flood spread over N processes meets one limit. The
//! in-process limiter stays in front of it, and alone decides while Redis is unreachable. The
//! analytics limits (per second, on the ingestion hot path) are per process: N processes take N
//! times the rate, as they have N times the capacity.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use shipmate_core::shared_rate::SharedRate;
use shipmate_core::AppError;
use uuid::Uuid;

use crate::problem::{ApiError, ApiResult};
use crate::settings::ApiSettings;

pub struct Limits {
    /// Creations (feedback, testimonials) per client and project, per minute.
    writes: Option<DefaultKeyedRateLimiter<(IpAddr, Uuid)>>,
    /// Analytics events per client and project, per second; a batch counts each event.
    events: Option<DefaultKeyedRateLimiter<(IpAddr, Uuid)>>,
    /// Comments per actor (user or end user), per minute: the writes quota.
    actor_writes: Option<DefaultKeyedRateLimiter<Uuid>>,
    /// Votes per user, per minute.
    votes: Option<DefaultKeyedRateLimiter<Uuid>>,
    /// Sign-in work (login, register, setup, resets, verification) per client, per minute.
    auth: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// The per-minute limits again, across processes.
    shared: Option<SharedRate>,
    per_minute: PerMinute,
}

#[derive(Clone, Copy)]
struct PerMinute {
    writes: u32,
    votes: u32,
    auth: u32,
}

impl Limits {
    pub fn new(settings: &ApiSettings, shared: Option<SharedRate>) -> Self {
        Limits {
            shared,
            per_minute: PerMinute {
                writes: settings.rate_writes_per_minute,
                votes: settings.rate_votes_per_minute,
                auth: settings.rate_auth_per_minute,
            },
            writes: NonZeroU32::new(settings.rate_writes_per_minute)
                .map(|n| DefaultKeyedRateLimiter::keyed(Quota::per_minute(n))),
            events: NonZeroU32::new(settings.rate_events_per_second)
                .map(|n| DefaultKeyedRateLimiter::keyed(Quota::per_second(n))),
            actor_writes: NonZeroU32::new(settings.rate_writes_per_minute)
                .map(|n| DefaultKeyedRateLimiter::keyed(Quota::per_minute(n))),
            votes: NonZeroU32::new(settings.rate_votes_per_minute)
                .map(|n| DefaultKeyedRateLimiter::keyed(Quota::per_minute(n))),
            auth: NonZeroU32::new(settings.rate_auth_per_minute)
                .map(|n| DefaultKeyedRateLimiter::keyed(Quota::per_minute(n))),
        }
    }

    pub async fn write(&self, client: IpAddr, project: Uuid) -> ApiResult<()> {
        check(self.writes.as_ref(), &(client, project), 1)?;
        let key = format!("write:{client}:{project}");
        self.shared(&key, self.per_minute.writes).await
    }

    /// Takes `n` events at once or none: a batch is accepted whole or refused whole.
    pub fn events(&self, client: IpAddr, project: Uuid, n: usize) -> ApiResult<()> {
        check(self.events.as_ref(), &(client, project), n)
    }

    pub async fn actor_write(&self, actor: Uuid) -> ApiResult<()> {
        check(self.actor_writes.as_ref(), &actor, 1)?;
        self.shared(&format!("actor:{actor}"), self.per_minute.writes)
            .await
    }

    pub async fn vote(&self, user: Uuid) -> ApiResult<()> {
        check(self.votes.as_ref(), &user, 1)?;
        self.shared(&format!("vote:{user}"), self.per_minute.votes)
            .await
    }

    pub async fn auth(&self, client: IpAddr) -> ApiResult<()> {
        check(self.auth.as_ref(), &client, 1)?;
        self.shared(&format!("auth:{client}"), self.per_minute.auth)
            .await
    }

    /// The shared bucket of `key`; Redis unreachable leaves the in-process limit alone in charge.
    async fn shared(&self, key: &str, per_minute: u32) -> ApiResult<()> {
        let Some(shared) = self.shared.as_ref().filter(|_| per_minute > 0) else {
            return Ok(());
        };
        match shared.take(key, per_minute).await {
            Ok(None) => Ok(()),
            Ok(Some(wait)) => Err(ApiError::from(AppError::RateLimited {
                retry_after_secs: wait.as_secs().max(1),
            })),
            Err(e) => {
                tracing::warn!(error = %e, "shared rate limit unreachable; this process's limit applies");
                Ok(())
            }
        }
    }

    /// Forgets clients whose buckets are full again, so memory follows the active clients only.
    pub fn prune(&self) {
        if let Some(l) = &self.writes {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Some(l) = &self.events {
            l.retain_recent();
            l.shrink_to_fit();
        }
        for l in [&self.actor_writes, &self.votes].into_iter().flatten() {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Some(l) = &self.auth {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }

    /// Prunes once a minute, for as long as the limits exist.
    pub async fn prune_forever(self: std::sync::Arc<Self>) {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        loop {
            every.tick().await;
            self.prune();
        }
    }
}

fn check<K: Clone + std::hash::Hash + Eq>(
    limiter: Option<&DefaultKeyedRateLimiter<K>>,
    key: &K,
    n: usize,
) -> ApiResult<()> {
    let Some(limiter) = limiter else {
        return Ok(());
    };
    let n = NonZeroU32::new(u32::try_from(n).unwrap_or(u32::MAX)).unwrap_or(NonZeroU32::MIN);
    match limiter.check_key_n(key, n) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(not_until)) => Err(ApiError::from(AppError::RateLimited {
            retry_after_secs: not_until
                .wait_time_from(DefaultClock::default().now())
                .as_secs()
                .max(1),
        })),
        // More at once than the limit ever allows: refused whole; the wait is one full period.
        Err(_) => Err(ApiError::from(AppError::RateLimited {
            retry_after_secs: 60,
        })),
    }
}

/// The client a limit counts: its address, or for IPv6 its /64 (one subscriber's whole network),
/// with IPv4-mapped addresses counted as the IPv4 address they carry.
pub fn bucket(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::from([s[0], s[1], s[2], s[3], 0, 0, 0, 0])
            }
        },
    }
}

/// The hidden form field that people never fill in and bots do.
pub const HONEYPOT_FIELD: &str = "website";

/// Whether a public form's body filled the honeypot field: such a submission is answered as
/// accepted and dropped.
pub fn honeypot_tripped(input: &shipmate_types::input::Input) -> bool {
    input
        .raw(HONEYPOT_FIELD)
        .and_then(|v| v.as_str())
        .is_some_and(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_are_counted_per_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(bucket(a), bucket(b));
        assert_ne!(bucket(a), bucket(c));
        let mapped: IpAddr = "::ffff:203.0.113.7".parse().unwrap();
        assert_eq!(bucket(mapped), "203.0.113.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn a_batch_is_taken_whole_or_refused_whole() {
        let limiter =
            DefaultKeyedRateLimiter::keyed(Quota::per_second(NonZeroU32::new(10).unwrap()));
        assert!(check(Some(&limiter), &1u8, 8).is_ok());
        assert!(check(Some(&limiter), &1u8, 3).is_err());
        assert!(check(Some(&limiter), &1u8, 2).is_ok());
        assert!(check(Some(&limiter), &2u8, 11).is_err());
        assert!(check::<u8>(None, &1, 1000).is_ok());
    }
}
