//! Analytics: the event firehose (API key) and the dashboard's aggregates (owner).

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use shipmate_analytics::events::{parse_body, EventBatch};
use shipmate_analytics::query::{Filters, JourneyQuery, PropertyQuery};
use shipmate_analytics::segments;
use shipmate_analytics::visitor;
use shipmate_analytics::ReadQuery;
use shipmate_analytics::{conversions, goals};
use shipmate_core::metrics::{EVENTS_ACCEPTED, EVENTS_DROPPED};
use shipmate_core::queue::EVENTS_STREAM;
use shipmate_core::AppError;
use shipmate_types::analytics::{
    Breakdown, CountryRow, Devices, EventPayload, EventRow, Journeys, Overview, PageRow,
    PropertyRow, Realtime, ReferrerRow, Timeseries, Utm, VisitPageRow,
};
use shipmate_types::analytics::{Goal, Period};

use super::schemas::Accepted;
use crate::csv::Format;
use crate::extract::{JsonBody, ProjectAccess, ProjectKey, Viewer};
use crate::problem::{ApiError, ApiResult};
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
        .route("/v1/analytics/entry-pages", get(entry_pages))
        .route("/v1/analytics/exit-pages", get(exit_pages))
        .route("/v1/analytics/properties", get(properties))
        .route("/v1/analytics/journeys", get(journeys))
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
) -> ApiResult<(StatusCode, Json<Accepted>)> {
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
            return Err(ApiError::from(AppError::RateLimited {
                retry_after_secs: 1,
            }));
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

/// What every analytics read takes besides `project_id` (unknown parameters are ignored).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Documents the query; `ReadQuery::parse` reads it.
pub struct ReadParams {
    project_id: String,
    /// `7d`, `30d` (default) or `90d`; ignored when `from` and `to` are given.
    period: Option<Period>,
    /// First day (`YYYY-MM-DD`, UTC, inclusive); with `to`, at most 2 years.
    from: Option<chrono::NaiveDate>,
    /// Last day (`YYYY-MM-DD`, UTC, inclusive).
    to: Option<chrono::NaiveDate>,
    /// Page path (exact).
    page: Option<String>,
    /// Referrer host (exact).
    referrer: Option<String>,
    /// Two-letter country code.
    country: Option<String>,
    /// `desktop`, `mobile` or `tablet`.
    device: Option<String>,
    browser: Option<String>,
    os: Option<String>,
    utm_source: Option<String>,
    utm_medium: Option<String>,
    utm_campaign: Option<String>,
    /// Event name (`page_view` for page views).
    event: Option<String>,
    /// `previous`: the overview adds the same numbers for the days just before.
    compare: Option<String>,
    /// A saved segment of the project: its filters are added to those given (404 when unknown).
    segment: Option<String>,
}

/// The parsed read of a request.
pub struct Reading(pub ReadQuery);

impl axum::extract::FromRequestParts<AppState> for Reading {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &AppState,
    ) -> Result<Self, ApiError> {
        let Query(q) = Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|e| AppError::invalid("validation_failed", "query", e.body_text()))?;
        let mut read = ReadQuery::parse(&q, chrono::Utc::now())?;
        with_segment(state, &q, &mut read.filters).await?;
        Ok(Reading(read))
    }
}

/// Adds the filters of the segment `segment=` names, of the project `project_id=` names (the
/// caller's access to it is checked first, by `ProjectAccess`): 404 for any other id.
async fn with_segment(
    state: &AppState,
    q: &HashMap<String, String>,
    filters: &mut Filters,
) -> Result<(), ApiError> {
    let Some(raw) = q.get("segment").map(|s| s.trim()).filter(|s| !s.is_empty()) else {
        return Ok(());
    };
    let ids = (
        q.get("project_id").and_then(|p| p.trim().parse().ok()),
        raw.parse().ok(),
    );
    let (Some(project), Some(segment)) = ids else {
        return Err(AppError::not_found("segment").into());
    };
    filters.and(&segments::filters(&state.db, project, segment).await?);
    Ok(())
}

macro_rules! read_endpoint {
    ($name:ident, $path:literal, $doc:literal, $shape:ty, $columns:expr) => {
        #[doc = $doc]
        #[utoipa::path(get, path = $path, tag = "analytics", security(("session" = [])),
            params(ReadParams),
            responses((status = 200, description = "JSON, or CSV with `Accept: text/csv`", content(($shape = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 422, description = "bad parameters, every one listed")))]
        pub async fn $name(State(state): State<AppState>, access: ProjectAccess<Viewer>, format: Format, Reading(query): Reading) -> ApiResult<Response> {
            let read = state.events.reader(access.project.id, &query).await?;
            format.respond(read.$name().await?, $columns)
        }
    };
}

read_endpoint!(
    overview,
    "/v1/analytics/overview",
    "Page views, unique visitors, top page and referrer, visits, bounce rate and median visit duration.",
    Overview,
    &[]
);
read_endpoint!(
    pages,
    "/v1/analytics/pages",
    "Views and visitors per page path, with the medians of its engagement events (`sm.plus.js`).",
    Breakdown<PageRow>,
    &["page", "views", "visitors", "scroll_depth", "time_on_page"]
);
read_endpoint!(
    countries,
    "/v1/analytics/countries",
    "Views and visitors per country (ISO 3166-1 alpha-2).",
    Breakdown<CountryRow>,
    &["country", "views", "visitors"]
);
read_endpoint!(
    devices,
    "/v1/analytics/devices",
    "Views and visitors per device type, browser and OS.",
    Devices,
    &["device", "views", "visitors"]
);
read_endpoint!(
    events,
    "/v1/analytics/events",
    "Every event name with its count and visitors.",
    Breakdown<EventRow>,
    &["name", "count", "visitors"]
);
read_endpoint!(
    timeseries,
    "/v1/analytics/timeseries",
    "Page views and visitors per day (per hour for ranges of up to 7 days).",
    Timeseries,
    &["date", "views", "visitors"]
);
read_endpoint!(
    entry_pages,
    "/v1/analytics/entry-pages",
    "Visits and visitors per page a visit began on.",
    Breakdown<VisitPageRow>,
    &["page", "visits", "visitors"]
);
read_endpoint!(
    exit_pages,
    "/v1/analytics/exit-pages",
    "Visits and visitors per page a visit ended on.",
    Breakdown<VisitPageRow>,
    &["page", "visits", "visitors"]
);

/// Views and visitors per external referrer host; with `goal=`, each row adds that source's
/// conversions of the goal, their rate and, for a goal with a currency, its revenue.
#[utoipa::path(get, path = "/v1/analytics/referrers", tag = "analytics", security(("session" = [])),
    params(ReadParams, GoalParam),
    responses((status = 200, description = "JSON, or CSV with `Accept: text/csv`", content((Breakdown<ReferrerRow> = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 404, description = "an unknown segment or goal"), (status = 422, description = "bad parameters, every one listed")))]
pub async fn referrers(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    format: Format,
    Query(q): Query<HashMap<String, String>>,
    Reading(query): Reading,
) -> ApiResult<Response> {
    let read = state.events.reader(access.project.id, &query).await?;
    let goal = goal(&state, &access, &q).await?;
    let rows = conversions::referrers(&*read, goal.as_ref(), &query.filters).await?;
    format.respond(rows, source_columns("referrer", goal.is_some()))
}

/// Views and visitors per UTM source, medium and campaign; with `goal=`, each row adds its
/// conversions of the goal, their rate and, for a goal with a currency, its revenue.
#[utoipa::path(get, path = "/v1/analytics/utm", tag = "analytics", security(("session" = [])),
    params(ReadParams, GoalParam),
    responses((status = 200, description = "JSON, or CSV (the sources) with `Accept: text/csv`", content((Utm = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 404, description = "an unknown segment or goal"), (status = 422, description = "bad parameters, every one listed")))]
pub async fn utm(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    format: Format,
    Query(q): Query<HashMap<String, String>>,
    Reading(query): Reading,
) -> ApiResult<Response> {
    let read = state.events.reader(access.project.id, &query).await?;
    let goal = goal(&state, &access, &q).await?;
    let rows = conversions::utm(&*read, goal.as_ref(), &query.filters).await?;
    format.respond(rows, source_columns("utm_source", goal.is_some()))
}

/// The CSV columns of a source read: a goal's figures when one is named.
fn source_columns(key: &'static str, goal: bool) -> &'static [&'static str] {
    match (key, goal) {
        ("referrer", false) => &["referrer", "views", "visitors"],
        ("referrer", true) => &[
            "referrer",
            "views",
            "visitors",
            "conversions",
            "conversion_rate",
        ],
        (_, false) => &["utm_source", "views", "visitors"],
        (_, true) => &[
            "utm_source",
            "views",
            "visitors",
            "conversions",
            "conversion_rate",
        ],
    }
}

/// What the source reads take besides the others' parameters.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Documents the query; `goal` reads it.
pub struct GoalParam {
    /// A goal of the project: each row adds its conversions (404 when unknown).
    goal: Option<String>,
}

/// The goal `goal=` names, of the project read (404 for any other id).
async fn goal(
    state: &AppState,
    access: &ProjectAccess<Viewer>,
    q: &HashMap<String, String>,
) -> Result<Option<Goal>, ApiError> {
    match q.get("goal").map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(raw) => Ok(Some(
            goals::of_project(&state.db, access.project.id, raw).await?,
        )),
    }
}

/// A custom property's values on one event name, with occurrences and visitors.
#[utoipa::path(get, path = "/v1/analytics/properties", tag = "analytics", security(("session" = [])),
    params(ReadParams, ("property" = String, Query, description = "the property's name; `event` names the event and is required here")),
    responses((status = 200, description = "JSON, or CSV with `Accept: text/csv`", content((Breakdown<PropertyRow> = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 422, description = "bad parameters, every one listed")))]
pub async fn properties(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    format: Format,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let mut asked = PropertyQuery::parse(&q, chrono::Utc::now())?;
    with_segment(&state, &q, &mut asked.read.filters).await?;
    let read = state.events.reader(access.project.id, &asked.read).await?;
    format.respond(
        read.properties(&asked.event, &asked.property).await?,
        &["value", "count", "visitors"],
    )
}

/// Within visits, the pages viewed right after and right before `page`, most visits first:
/// `(exit)` when the visit ended there, `(entrance)` when it began there (repeats in a row, a
/// reload, are no step). Filters count the visits holding a matching event.
#[utoipa::path(get, path = "/v1/analytics/journeys", tag = "analytics", security(("session" = [])),
    params(ReadParams),
    responses((status = 200, body = Journeys), (status = 403, description = "not a member"), (status = 404, description = "an unknown segment"), (status = 422, description = "no `page` (required here: the page whose neighbours are counted, not a filter), or another bad parameter")))]
pub async fn journeys(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Journeys>> {
    let mut asked = JourneyQuery::parse(&q, chrono::Utc::now())?;
    with_segment(&state, &q, &mut asked.read.filters).await?;
    let read = state.events.reader(access.project.id, &asked.read).await?;
    Ok(Json(read.journeys(&asked.page).await?))
}

/// Distinct visitors of the last 5 minutes, page views of the last 30, and the last 5 minutes'
/// top 10 pages by visitors, from the stored raw events.
#[utoipa::path(get, path = "/v1/analytics/realtime", tag = "analytics", security(("session" = [])),
    params(ReadParams),
    responses((status = 200, description = "JSON, or CSV (the pages) with `Accept: text/csv`", content((Realtime = "application/json"), (String = "text/csv"))), (status = 403, description = "not a member"), (status = 422, description = "bad project_id or filter")))]
pub async fn realtime(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    format: Format,
    Reading(query): Reading,
) -> ApiResult<Response> {
    // The windows are fixed (the last minutes): only the filters apply.
    let now = chrono::Utc::now();
    format.respond(
        state
            .events
            .realtime(access.project.id, now, &query.filters)
            .await?,
        &["page", "visitors"],
    )
}
