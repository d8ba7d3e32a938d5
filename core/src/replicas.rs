//! Reads that may lag, on PostgreSQL streaming replicas (after GitLab's database load balancing):
//! one place decides which pool a read uses. A watcher asks every replica for its delay each
//! second; a replica down, or further behind than the limit, is skipped until it catches up, and
//! with none healthy the primary serves. Writes never come here.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::future::Future;

use sqlx::PgPool;

use crate::masked::mask_url;
use crate::{AppError, AppResult};

pub const REPLICA_LAG: &str = "shipmate_replica_lag_seconds";

#[derive(Clone)]
pub struct Replicas {
    primary: PgPool,
    replicas: Arc<Vec<Replica>>,
    max_lag: Duration,
    next: Arc<AtomicUsize>,
}

struct Replica {
    /// Its URL without the password: the metric's label.
    name: String,
    pool: PgPool,
    healthy: AtomicBool,
}

impl Replicas {
    /// Pools for `urls` (made lazily: a replica down at start-up does not stop the process), all
    /// unhealthy until the watcher has seen them.
    pub fn new(
        primary: PgPool,
        urls: &[String],
        max_lag: Duration,
        per_pool: u32,
    ) -> anyhow::Result<Self> {
        let replicas = urls
            .iter()
            .map(|url| {
                Ok(Replica {
                    name: mask_url(url),
                    pool: crate::db::connect_lazy(url, per_pool)?,
                    healthy: AtomicBool::new(false),
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Replicas {
            primary,
            replicas: Arc::new(replicas),
            max_lag,
            next: Arc::default(),
        })
    }

    /// No replicas: every read on the primary.
    pub fn primary_only(primary: PgPool) -> Self {
        Replicas {
            primary,
            replicas: Arc::default(),
            max_lag: Duration::ZERO,
            next: Arc::default(),
        }
    }

    pub fn primary(&self) -> &PgPool {
        &self.primary
    }

    /// Runs a read that may lag on the next healthy replica, and again on the primary if the
    /// replica fails it (stopped since the watcher last looked, or a query cancelled by replay):
    /// never an error for a replica's sake. With no healthy replica, on the primary.
    pub async fn run<'a, T, F, Fut>(&'a self, read: F) -> AppResult<T>
    where
        F: Fn(&'a PgPool) -> Fut,
        Fut: Future<Output = AppResult<T>>,
    {
        if let Some(r) = self.pick() {
            match read(&r.pool).await {
                Err(AppError::Unavailable(e)) => r.failed(&e),
                Err(AppError::Internal(e)) => r.failed(&format!("{e:#}")),
                done => return done,
            }
        }
        read(&self.primary).await
    }

    /// The healthy replicas in turn.
    fn pick(&self) -> Option<&Replica> {
        let n = self.replicas.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n)
            .map(|i| &self.replicas[(start + i) % n])
            .find(|r| r.healthy.load(Ordering::Relaxed))
    }

    /// The same reads, all on the primary: a session that has just written reads its writes.
    pub fn pinned(&self) -> Self {
        Replicas::primary_only(self.primary.clone())
    }

    /// (healthy, configured).
    pub fn counts(&self) -> (usize, usize) {
        let healthy = self
            .replicas
            .iter()
            .filter(|r| r.healthy.load(Ordering::Relaxed))
            .count();
        (healthy, self.replicas.len())
    }

    /// Watches every replica until the process ends (nothing to watch without replicas).
    pub fn spawn_watch(&self) {
        if self.replicas.is_empty() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            loop {
                this.check().await;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }

    /// Asks each replica how far behind it is, and marks it healthy or not.
    pub async fn check(&self) {
        for r in self.replicas.iter() {
            let lag = tokio::time::timeout(Duration::from_secs(2), lag(&r.pool))
                .await
                .ok()
                .and_then(Result::ok)
                .flatten();
            match lag {
                Some(secs) => {
                    metrics::gauge!(REPLICA_LAG, "replica" => r.name.clone()).set(secs);
                    r.healthy
                        .store(secs <= self.max_lag.as_secs_f64(), Ordering::Relaxed);
                }
                None => {
                    r.healthy.store(false, Ordering::Relaxed);
                }
            }
        }
    }
}

impl Replica {
    /// Skipped until the watcher finds it well again.
    fn failed(&self, error: &str) {
        self.healthy.store(false, Ordering::Relaxed);
        tracing::warn!(replica = %self.name, %error, "a read failed on a replica; read from the primary");
    }
}

/// A replica's replication delay in seconds: 0 when it has replayed everything it received (an
/// idle primary sends nothing, and its last transaction's age is no delay), else the age of the
/// last transaction replayed. `None` for a server that is not a replica (promoted, or a
/// misconfiguration): reading there is not reading the primary's data.
async fn lag(pool: &PgPool) -> sqlx::Result<Option<f64>> {
    sqlx::query_scalar!(
        r#"select case
             when not pg_is_in_recovery() then null
             when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0::float8
             else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp())::float8, 0)
           end as "lag""#
    )
    .fetch_one(pool)
    .await
}
