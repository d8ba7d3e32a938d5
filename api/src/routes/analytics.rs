//! Analytics: the event firehose (API key) and the dashboard's aggregates (owner).

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_shared::analytics::events::{parse_body, EventBatch};
use shipmate_shared::analytics::reads::{self, Period};
use shipmate_shared::analytics::realtime as live;
use shipmate_shared::analytics::visitor;
use shipmate_shared::metrics::{EVENTS_ACCEPTED, EVENTS_DROPPED};
use shipmate_shared::queue::EVENTS_STREAM;
use shipmate_shared::validate::query_enum;
use shipmate_shared::{AppError, AppResult};
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventPayload, EventRow, Overview, PageRow, Realtime,
    ReferrerRow, Timeseries, Utm,
};

use super::schemas::Accepted;
use crate::csv::Format;
use crate::extract::{JsonBody, ProjectAccess, ProjectKey, Viewer};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/analytics/events", post(track).get(events))
        .route("/v1/analytics/overview", get(overview))
        .route("/v1/analytics/pages", get(pages))
        .route("/v1/analytics/referrers", get(referrers))
        .route("/v1/analytics/countries", get(countries))
        .route("/v1/analytics/devices", get(devices))
        .route("/v1/analytics/timeseries", get(timeseries))
        .route("/v1/analytics/utm", get(utm))
        .route("/v1/analytics/realtime", get(realtime))
}

/// Accepts one event or `{events: [...]}` (up to 100); answers 202 once they are queued on Redis.
#[utoipa::path(post, path = "/v1/analytics/events", tag = "analytics", security(("api_key" = [])),
    request_body = EventPayload,
    responses((status = 202, body = Accepted), (status = 422, description = "invalid events"), (status = 429, description = "over the key's rate"), (status = 503, description = "queue unavailable; nothing accepted")))]
pub async fn track(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ProjectKey {
        project,
        public_client,
    }: ProjectKey,
    JsonBody(input): JsonBody,
) -> AppResult<(StatusCode, Json<Accepted>)> {
    // The firehose reads the body straight into the queue's shape (one pass, no copy); the
    // OpenAPI document describes it with `EventPayload`.
    let events = parse_body(input.into_value())?;
    let count = events.len() as u64;
    let dropped = move |reason: &'static str| {
        metrics::counter!(EVENTS_DROPPED, "reason" => reason).increment(count)
    };
    if let Some(client) = public_client {
        state
            .limits
            .events(client, project.id, events.len())
            .inspect_err(|_| dropped("rate_limited"))?;
    }
    let n = std::num::NonZeroU32::new(events.len() as u32).unwrap_or(std::num::NonZeroU32::MIN);
    match state.events_limiter.check_key_n(&project.id, n) {
        Ok(Ok(())) => {}
        _ => {
            dropped("rate_limited");
            return Err(AppError::RateLimited {
                retry_after_secs: 1,
            });
        }
    }
    // The raw IP address and user agent live only in this request's memory: the queued entry
    // carries what is derived from them (one parse, one hash and one lookup per request).
    let received_at = chrono::Utc::now();
    let salt = state
        .salts
        .get(&state.db, visitor::day_of(received_at))
        .await?;
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let ip = state.client_ip(peer, &headers);
    let client = visitor::derive(&salt, &state.geo, project.id, ip, user_agent);
    let bot = client.is_none();
    let batch = EventBatch::new(project.id, received_at, client, events);
    let accepted = batch.events.len();
    // One job per request, never one per event; a Redis failure is a 503 and nothing is accepted.
    state
        .queue
        .push(EVENTS_STREAM, &batch)
        .await
        .inspect_err(|_| dropped("unavailable"))?;
    // A bot's events are answered as accepted (it learns nothing) and never stored.
    if bot {
        metrics::counter!(EVENTS_DROPPED, "reason" => "bot").increment(accepted as u64);
    } else {
        metrics::counter!(EVENTS_ACCEPTED).increment(accepted as u64);
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(Accepted {
            accepted: accepted as i64,
        }),
    ))
}

macro_rules! read_endpoint {
    ($name:ident, $path:literal, $doc:literal, $shape:ty) => {
        #[doc = $doc]
        #[utoipa::path(get, path = $path, tag = "analytics", security(("session" = [])),
            params(("project_id" = String, Query), ("period" = Option<Period>, Query, description = "`30d` when absent")),
            responses((status = 200, description = "JSON, or CSV with `Accept: text/csv`", content(($shape = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 422, description = "bad period or project_id")))]
        pub async fn $name(State(state): State<AppState>, access: ProjectAccess<Viewer>, format: Format, Query(q): Query<HashMap<String, String>>) -> AppResult<Response> {
            let period: Period = query_enum(&q, "period")?.unwrap_or_default();
            format.respond(reads::$name(&state.db, access.project.id, period).await?)
        }
    };
}

read_endpoint!(
    overview,
    "/v1/analytics/overview",
    "Page views, unique visitors, top page and top referrer.",
    Overview
);
read_endpoint!(
    pages,
    "/v1/analytics/pages",
    "Views and visitors per page path.",
    Breakdown<PageRow>
);
read_endpoint!(
    referrers,
    "/v1/analytics/referrers",
    "Views and visitors per external referrer host.",
    Breakdown<ReferrerRow>
);
read_endpoint!(
    countries,
    "/v1/analytics/countries",
    "Views and visitors per country (ISO 3166-1 alpha-2).",
    Breakdown<CountryRow>
);
read_endpoint!(
    devices,
    "/v1/analytics/devices",
    "Views and visitors per device type, browser and OS.",
    Devices
);
read_endpoint!(
    events,
    "/v1/analytics/events",
    "Every event name with its count and visitors.",
    Breakdown<EventRow>
);
read_endpoint!(
    timeseries,
    "/v1/analytics/timeseries",
    "Page views and visitors per day (per hour for 7d).",
    Timeseries
);
read_endpoint!(
    utm,
    "/v1/analytics/utm",
    "Views and visitors per UTM source, medium and campaign.",
    Utm
);

/// Distinct visitors of the last 5 minutes, page views of the last 30, and the last 5 minutes'
/// top 10 pages by visitors, from the stored raw events.
#[utoipa::path(get, path = "/v1/analytics/realtime", tag = "analytics", security(("session" = [])),
    params(("project_id" = String, Query)),
    responses((status = 200, description = "JSON, or CSV (the pages) with `Accept: text/csv`", content((Realtime = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 422, description = "bad project_id")))]
pub async fn realtime(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    format: Format,
) -> AppResult<Response> {
    format.respond(live::realtime(&state.db, access.project.id, chrono::Utc::now()).await?)
}
