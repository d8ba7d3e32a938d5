//! How many calls one process keeps in flight to an embedding provider: additive increase,
//! multiplicative decrease (as TCP's congestion window). A 429 or 503 halves the limit and pauses
//! every call for the provider's `Retry-After`; each window of successes (as many as the limit)
//! grows it by one again, up to the configured maximum.

use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

pub struct Aimd {
    max: usize,
    state: Mutex<State>,
    changed: Notify,
}

struct State {
    limit: usize,
    in_flight: usize,
    /// Successes since the limit last changed.
    streak: usize,
    paused_until: Option<Instant>,
    /// Bumped by each decrease: calls started before it were sent under the old limit, so their
    /// 429s are the same congestion and do not halve it again.
    epoch: u64,
}

/// A call in flight; dropping it without a verdict (a network error) only frees its place.
pub struct Permit<'a> {
    aimd: &'a Aimd,
    epoch: u64,
}

impl Aimd {
    pub fn new(max: usize) -> Self {
        let max = max.max(1);
        Aimd {
            max,
            state: Mutex::new(State {
                limit: max,
                in_flight: 0,
                streak: 0,
                paused_until: None,
                epoch: 0,
            }),
            changed: Notify::new(),
        }
    }

    /// The current limit on calls in flight.
    pub fn limit(&self) -> usize {
        self.lock().limit
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state stays consistent between statements, so a panic elsewhere cannot poison it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a place under the limit, and for any pause to end.
    pub async fn acquire(&self) -> Permit<'_> {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let paused = {
                let mut s = self.lock();
                match s.paused_until {
                    Some(until) if until > Instant::now() => Some(until),
                    _ if s.in_flight < s.limit => {
                        s.in_flight += 1;
                        return Permit {
                            aimd: self,
                            epoch: s.epoch,
                        };
                    }
                    _ => None,
                }
            };
            match paused {
                Some(until) => tokio::time::sleep_until(until).await,
                None => notified.await,
            }
        }
    }
}

impl Permit<'_> {
    pub fn succeeded(self) {
        let mut s = self.aimd.lock();
        s.streak += 1;
        if s.streak >= s.limit {
            s.limit = (s.limit + 1).min(self.aimd.max);
            s.streak = 0;
        }
    }

    /// The provider is over its rate: halve the limit (once per window) and hold every call for
    /// `retry_after`.
    pub fn overloaded(self, retry_after: Duration) {
        let mut s = self.aimd.lock();
        if self.epoch == s.epoch {
            s.limit = (s.limit / 2).max(1);
            s.streak = 0;
            s.epoch += 1;
        }
        let until = Instant::now() + retry_after;
        s.paused_until = Some(s.paused_until.map_or(until, |p| p.max(until)));
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.aimd.lock().in_flight -= 1;
        self.aimd.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn halves_once_per_window_and_grows_back_by_one_per_window() {
        let aimd = Aimd::new(8);
        let permits: Vec<Permit> = futures::future::join_all((0..8).map(|_| aimd.acquire())).await;
        // Eight calls sent under the same limit all come back 429: one congestion, one halving.
        for p in permits {
            p.overloaded(Duration::ZERO);
        }
        assert_eq!(aimd.limit(), 4);
        // A call sent after the decrease that is refused again halves it again.
        aimd.acquire().await.overloaded(Duration::ZERO);
        assert_eq!(aimd.limit(), 2);
        for _ in 0..2 {
            aimd.acquire().await.succeeded();
        }
        assert_eq!(aimd.limit(), 3);
        for _ in 0..100 {
            aimd.acquire().await.succeeded();
        }
        assert_eq!(aimd.limit(), 8, "never above the maximum");
    }

    #[tokio::test]
    async fn holds_calls_beyond_the_limit_and_during_a_pause() {
        let aimd = Aimd::new(2);
        let a = aimd.acquire().await;
        let b = aimd.acquire().await;
        let third = tokio::time::timeout(Duration::from_millis(50), aimd.acquire()).await;
        assert!(third.is_err(), "a third call waits while two are in flight");
        drop(b);
        let started = Instant::now();
        a.overloaded(Duration::from_millis(200));
        let c = aimd.acquire().await;
        assert!(
            started.elapsed() >= Duration::from_millis(190),
            "waited out Retry-After"
        );
        c.succeeded();
    }
}
