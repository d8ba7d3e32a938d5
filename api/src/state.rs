use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderMap;
use governor::{DefaultKeyedRateLimiter, Quota};
use moka::future::Cache;
use shipmate_accounts::api_keys::{self, Access};
use shipmate_accounts::auth::oauth::Provider;
use shipmate_accounts::projects::Project;
use shipmate_analytics::visitor::{Geo, SaltCache};
use shipmate_analytics::EventStore;
use shipmate_core::queue::Queue;
use shipmate_core::replicas::Replicas;
use shipmate_core::shared_rate::SharedRate;
use shipmate_core::AppError;
use shipmate_kb::chat::Chat;
use shipmate_kb::embed::InputKind;
use shipmate_kb::models::Registry;
use shipmate_kb::pool::Busy;
use sqlx::PgPool;

use crate::limits::Limits;
use crate::problem::ApiResult;
use crate::settings::ApiSettings;

/// What every handler can reach; cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub db: PgPool,
    pub settings: ApiSettings,
    /// Without a trailing slash.
    pub public_url: String,
    pub http: reqwest::Client,
    pub providers: Vec<Provider>,
    /// The first-run setup token: fresh at every start, kept only here and on the start-up log.
    pub setup_token: String,
    /// Keys the hashes of client addresses kept with started sign-ins; never stored.
    pub client_salt: String,
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Besides loopback, who may read `/metrics`.
    pub metrics_allow: Vec<ipnet::IpNet>,
    /// Per-client limits on what the public can reach.
    pub limits: Arc<Limits>,
    /// Analytics ingestion, per project.
    pub events_limiter: DefaultKeyedRateLimiter<uuid::Uuid>,
    pub models: Registry,
    /// The chat API answers are asked of; None when none is configured.
    pub chat: Option<Arc<Chat>>,
    /// Searches on their way to the search log (`shipmate_kb::search_logger`).
    pub search_log: shipmate_kb::search_logger::Logger,
    /// Whether an index (under a filter) is small enough for an exact scan, for a few seconds.
    pub index_sizes: shipmate_kb::search::Sizes,
    pub queue: Queue,
    /// Webhook and email deliveries (apalis).
    pub deliveries: shipmate_outbound::DeliveryQueue,
    /// Where analytics events are read from (`shipmate_analytics::seam`).
    pub events: Arc<dyn EventStore>,
    /// Reads that may lag: on a healthy replica when there are some (`extract::ReadDb`).
    pub replicas: Replicas,
    /// The country database, read into memory once at start.
    pub geo: Geo,
    /// Today's visitor salt: the api derives visitors before queueing (docs/privacy.md).
    pub salts: SaltCache,
    /// Recent query vectors by (project, model, query): repeated searches skip the model. Keyed per
    /// project, so one tenant's answer time never tells what another searched.
    query_cache: Cache<QueryKey, Arc<Vec<f32>>>,
    /// API keys resolved in the last `KEY_CACHE_TTL`: the ingestion hot path skips Postgres (and
    /// keeps accepting events for that long when Postgres is down). Rotating, revoking or deleting
    /// clears it on this instance; other instances notice within the TTL (the contract: within
    /// a second, on every process).
    key_cache: Cache<String, CachedKey>,
    /// Bumped by `forget_keys`. Each cached key carries the generation its lookup started in, and
    /// only the current generation counts: a lookup that raced a change cannot serve its answer.
    key_generation: AtomicU64,
}

/// (generation, project, access).
type CachedKey = (u64, Project, Access);

const KEY_CACHE_TTL: Duration = Duration::from_millis(900);
const KEY_CACHE_SIZE: u64 = 10_000;

const QUERY_CACHE_SIZE: u64 = 1_024;

/// (project, model, query text).
type QueryKey = (uuid::Uuid, String, String);

/// The cache key of a query's vector: per project, so one tenant's cached answer (and so its
/// faster reply) never tells another tenant what was searched.
fn query_key(project: uuid::Uuid, model: &str, query: &str) -> QueryKey {
    (project, model.to_owned(), query.to_owned())
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    pub fn new(
        (db, replicas): (PgPool, Replicas),
        (queue, deliveries): (Queue, shipmate_outbound::DeliveryQueue),
        events: Arc<dyn EventStore>,
        settings: ApiSettings,
        public_url: String,
    ) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(15))
            .build()?;
        let events_per_second =
            NonZeroU32::new(settings.events_rate_per_second.max(1)).unwrap_or(NonZeroU32::MIN);
        Ok(AppState(Arc::new(Inner {
            providers: settings.oauth.providers(),
            setup_token: shipmate_core::tokens::random_token("", 32),
            client_salt: shipmate_core::tokens::random_token("", 32),
            trusted_proxies: settings.trusted_proxies()?,
            metrics_allow: settings.metrics_allow()?,
            limits: Arc::new(Limits::new(
                &settings,
                Some(SharedRate::new(queue.node(), &settings.common.queue_prefix)),
            )),
            events_limiter: DefaultKeyedRateLimiter::keyed(Quota::per_second(events_per_second)),
            models: Registry::new(&settings.common.kb),
            chat: Chat::from_settings(&settings.common.kb).map(Arc::new),
            search_log: match settings.common.kb.search_log {
                true => shipmate_kb::search_logger::Logger::start(db.clone()),
                false => shipmate_kb::search_logger::Logger::off(),
            },
            index_sizes: Default::default(),
            queue,
            deliveries,
            events,
            replicas,
            geo: Geo::open(settings.common.analytics.geoip_db.as_deref()),
            salts: SaltCache::default(),
            query_cache: Cache::new(QUERY_CACHE_SIZE),
            key_cache: Cache::builder()
                .max_capacity(KEY_CACHE_SIZE)
                .time_to_live(KEY_CACHE_TTL)
                .build(),
            key_generation: AtomicU64::new(0),
            db,
            settings,
            public_url: public_url.trim_end_matches('/').to_owned(),
            http,
        })))
    }

    /// Where email links point, and whether email goes out at all.
    pub fn mail(&self) -> shipmate_outbound::subscriptions::Mail<'_> {
        shipmate_outbound::subscriptions::Mail {
            configured: self.settings.common.outbound.email_configured(),
            public_url: &self.public_url,
        }
    }

    /// Queues the deliveries a committed change recorded.
    pub async fn deliver(&self, ids: &[uuid::Uuid]) {
        shipmate_outbound::enqueue(&self.deliveries, ids).await;
    }

    /// The project of an API key and what the key may do, from the cache or Postgres.
    pub async fn resolve_key(&self, key: &str) -> ApiResult<Option<(Project, Access)>> {
        // Read before Postgres: an answer read before a change is then cached under the old
        // generation, which `forget_keys` has already left behind.
        let generation = self.key_generation.load(Ordering::SeqCst);
        if let Some((cached, project, access)) = self.key_cache.get(key).await {
            if cached == generation {
                return Ok(Some((project, access)));
            }
        }
        let found = api_keys::resolve(&self.db, key).await?;
        if let Some((project, access)) = &found {
            self.key_cache
                .insert(
                    key.to_owned(),
                    (generation, project.clone(), access.clone()),
                )
                .await;
        }
        Ok(found)
    }

    /// After a key changed (rotated, revoked, its project deleted): resolve every key afresh.
    pub fn forget_keys(&self) {
        self.key_generation.fetch_add(1, Ordering::SeqCst);
        // The generation alone retires every entry; this frees their memory.
        self.key_cache.invalidate_all();
    }

    /// The query's vector, from the cache or the model (where `project` waits its turn).
    pub async fn embed_query(
        &self,
        project: uuid::Uuid,
        model: &str,
        query: &str,
    ) -> ApiResult<Arc<Vec<f32>>> {
        let key = query_key(project, model, query);
        if let Some(v) = self.query_cache.get(&key).await {
            return Ok(v);
        }
        let vector = self
            .embed_queries(project, model, vec![query.to_owned()])
            .await?
            .pop()
            .map(Arc::new)
            .ok_or_else(|| AppError::Internal(anyhow::anyhow!("the model returned no vector")))?;
        self.query_cache.insert(key, vector.clone()).await;
        Ok(vector)
    }

    /// The vectors of `texts` embedded as queries, in order (where `project` waits its turn).
    pub async fn embed_queries(
        &self,
        project: uuid::Uuid,
        model: &str,
        texts: Vec<String>,
    ) -> ApiResult<Vec<Vec<f32>>> {
        let embedder = self.models.embedder(model)?;
        Ok(embedder
            .embed_for(project, texts, InputKind::Query)
            .await
            .map_err(|e| match e.downcast_ref::<Busy>() {
                Some(_) => AppError::RateLimited {
                    retry_after_secs: 1,
                },
                None => AppError::Unavailable(format!("embedding the query: {e:#}")),
            })?)
    }

    pub fn provider(&self, id: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.id == id)
    }

    /// The client's address: the peer, or the nearest untrusted hop of `X-Forwarded-For` when the
    /// peer is a trusted proxy (so a client cannot forge its address through a proxy that appends).
    pub fn client_ip(&self, peer: SocketAddr, headers: &HeaderMap) -> IpAddr {
        let peer_ip = peer.ip();
        if !self.trusted_proxies.iter().any(|n| n.contains(&peer_ip)) {
            return peer_ip;
        }
        let hops: Vec<IpAddr> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|s| s.trim().parse().ok())
            .collect();
        hops.iter()
            .rev()
            .find(|ip| !self.trusted_proxies.iter().any(|n| n.contains(*ip)))
            .or(hops.first())
            .copied()
            .unwrap_or(peer_ip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_query_in_two_projects_is_cached_twice() {
        let (a, b) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
        assert_ne!(query_key(a, "m", "refunds"), query_key(b, "m", "refunds"));
        assert_eq!(query_key(a, "m", "refunds"), query_key(a, "m", "refunds"));
    }
}
