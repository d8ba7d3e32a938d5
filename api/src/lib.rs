//! `shipmate-api`: the HTTP API, public pages and the browser script.

pub mod audience;
pub mod csv;
pub mod extract;
pub mod key_routes;
pub mod limits;
pub mod maintenance;
pub mod metrics;
pub mod pages;
pub mod problem;
pub mod read_your_writes;
pub mod routes;
pub mod settings;
pub mod state;
pub mod telemetry;

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};
use tower_http::compression::CompressionLayer;
use tower_http::trace::TraceLayer;

use crate::settings::ApiSettings;
use crate::state::AppState;

/// A bound, migrated, ready-to-serve application. Binding happens in `build` so tests can ask for
/// port 0 and read the port back.
pub struct Application {
    listener: TcpListener,
    router: Router,
    pub state: AppState,
}

impl Application {
    pub async fn build(settings: ApiSettings) -> anyhow::Result<Self> {
        tracing::info!(
            database = %shipmate_core::masked::mask_url(&settings.common.database_url),
            redis = %shipmate_core::masked::mask_url(&settings.common.redis_url),
            registration = ?settings.registration,
            "starting"
        );
        shipmate_analytics::pg::set_memory_budget(
            settings.common.analytics.analytics_memory_mb << 20,
        );
        let db = shipmate_core::db::create_and_migrate(
            &settings.common.database_url,
            settings.common.db_pool,
        )
        .await?;
        let queue = shipmate_core::startup::retry("redis", || {
            shipmate_core::queue::Queue::connect(
                &settings.common.redis_url,
                &settings.common.redis_cluster_urls,
                &settings.common.queue_prefix,
            )
        })
        .await?;
        let deliveries = shipmate_core::startup::retry("redis", || {
            shipmate_outbound::connect_queue(
                &settings.common.redis_url,
                &settings.common.queue_prefix,
            )
        })
        .await?;
        let listener = TcpListener::bind(&settings.bind).await?;
        let addr = listener.local_addr()?;
        let public_url = settings
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"));
        if settings.dev_login {
            tracing::warn!("SHIPMATE_DEV_LOGIN is on: anyone can sign in as anyone. Never use this in production.");
        }
        // The recorder exists before the first request is recorded.
        shipmate_core::metrics::handle();
        shipmate_core::metrics::spawn_upkeep();
        let replicas = shipmate_core::replicas::Replicas::new(
            db.clone(),
            &settings.common.database_read_urls,
            Duration::from_secs(settings.common.replica_max_lag_seconds),
            settings.common.db_pool,
        )?;
        replicas.spawn_watch();
        let events =
            shipmate_analytics::open_store(&settings.common.analytics, replicas.clone()).await?;
        let state = AppState::new(
            (db, replicas),
            (queue, deliveries),
            events,
            settings,
            public_url,
        )?;
        tokio::spawn(state.limits.clone().prune_forever());
        if !shipmate_accounts::auth::users::any_exist(&state.db).await? {
            // The one place the setup token appears: whoever can read this log owns the instance.
            tracing::warn!(
                "first run: create the instance admin at {}/setup?token={}",
                state.public_url,
                state.setup_token
            );
        }
        let router = app(state.clone());
        Ok(Application {
            listener,
            router,
            state,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until SIGTERM or Ctrl-C; requests in flight then finish, and the searches they
    /// logged are written.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        axum::serve(
            self.listener,
            self.router
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(telemetry::shutdown_signal())
        .await?;
        self.state.search_log.settled().await;
        Ok(())
    }
}

pub fn app(state: AppState) -> Router {
    let max_body = state.settings.max_body_bytes;
    Router::new()
        .merge(routes::api())
        .merge(routes::meta::router())
        .merge(pages::router())
        .route("/metrics", axum::routing::get(metrics::scrape))
        .layer(metrics::TrackLayer)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            read_your_writes::mark_writes,
        ))
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
        .layer(
            ServiceBuilder::new()
                .layer(telemetry::set_request_id())
                .layer(TraceLayer::new_for_http().make_span_with(telemetry::request_span))
                .layer(telemetry::propagate_request_id())
                .layer(routes::cors())
                .layer(compression()),
        )
}

/// gzip or br for every answer over 1 KB that the client takes them for (`Vary: Accept-Encoding`
/// is added); event streams stay uncompressed, so each event reaches the browser as it is written.
fn compression() -> CompressionLayer<impl Predicate> {
    let worth_it = SizeAbove::new(1024)
        .and(NotForContentType::GRPC)
        .and(NotForContentType::IMAGES)
        .and(NotForContentType::SSE);
    CompressionLayer::new().compress_when(worth_it)
}
