//! Web analytics: the events sent, and the reads.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

mod rows;
pub use rows::*;

use crate::input::{FromInput, Input};

string_enum! {
    /// The window a read covers, ending now.
    #[derive(Default)]
    Period {
        Days7 = "7d",
        #[default]
        Days30 = "30d",
        Days90 = "90d",
        /// A range given by `from` and `to` (answers say so; a request needs both).
        Custom = "custom",
    }
}

string_enum! {
    /// A time series' bucket: hours for 7 days, days otherwise.
    Interval { Hour = "hour", Day = "day" }
}

/// One event sent by the browser script or a server (`POST /v1/events`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct Event {
    /// `page_view` when absent; a custom event's name otherwise (at most 100 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 100)]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048)]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048)]
    pub referrer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub utm_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub utm_medium: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub utm_campaign: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0, maximum = 100000)]
    pub screen_width: Option<i32>,
    /// A flat object of custom properties (at most 4 KB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = properties)]
    pub properties: Option<Map<String, Value>>,
    /// Money the event brought: `{"amount": "12.50", "currency": "EUR"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = crate::revenue::read)]
    pub revenue: Option<crate::revenue::Revenue>,
}

/// An event's custom properties: a flat object (strings, numbers, booleans) of at most 4 KB.
fn properties(input: &mut Input, field: &str) -> Option<Map<String, Value>> {
    let props = input.opt_object(field, 4_096)?;
    if props.values().any(|v| v.is_object() || v.is_array()) {
        input.error(field, "must be a flat object (strings, numbers, booleans)");
    }
    Some(props)
}

/// Up to 100 events in one request.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventBatch {
    #[schema(max_items = 100)]
    pub events: Vec<Event>,
}

/// The body of `POST /v1/events`: one event, or a batch.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum EventPayload {
    Batch(EventBatch),
    One(Box<Event>),
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Overview {
    pub period: Period,
    pub page_views: i64,
    pub unique_visitors: i64,
    pub top_page: Option<String>,
    pub top_referrer: Option<String>,
    /// Visits: a visitor's events with gaps under 30 minutes, with at least one page view.
    pub visits: i64,
    /// Percent of visits with one page view (0 to 100, one decimal).
    pub bounce_rate: f64,
    /// Median visit duration in seconds (first event to last).
    pub visit_duration: i64,
    /// With `compare=previous`: the same numbers for as many days just before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Figures>,
}

/// The overview's numbers for a range (`previous` with `compare=previous`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Figures {
    pub page_views: i64,
    pub unique_visitors: i64,
    pub visits: i64,
    pub bounce_rate: f64,
    pub visit_duration: i64,
}

/// A custom property's value on one event name: occurrences and visitors.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PropertyRow {
    pub value: String,
    pub count: i64,
    pub visitors: i64,
}

/// A goal: reaching a custom event, or viewing a page (exactly one of them).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Goal {
    pub id: uuid::Uuid,
    pub project_id: uuid::Uuid,
    pub name: String,
    pub event: Option<String>,
    pub page: Option<String>,
    pub currency: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A goal's conversions over a range.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GoalRow {
    pub id: uuid::Uuid,
    pub name: String,
    pub event: Option<String>,
    pub page: Option<String>,
    /// Every visitor of the range (with the filters).
    pub visitors: i64,
    /// Those who reached the goal.
    pub conversions: i64,
    /// `conversions` in percent of `visitors` (0 to 100, one decimal).
    pub conversion_rate: f64,
    /// For a goal with a currency: the revenue of its events in that currency; `null` otherwise.
    pub revenue: Option<crate::revenue::GoalRevenue>,
    /// Its events with revenue in another currency, left out of `revenue` (not converted).
    pub revenue_skipped: i64,
}

/// A funnel step: a page view or a custom event.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
pub struct Step {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
}

impl Step {
    /// The page path or event name.
    pub fn label(&self) -> &str {
        self.page
            .as_deref()
            .or(self.event.as_deref())
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Funnel {
    pub id: uuid::Uuid,
    pub project_id: uuid::Uuid,
    pub name: String,
    pub steps: Vec<Step>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FunnelList {
    pub data: Vec<Funnel>,
}

/// A step's visitors: those who reached it after every earlier step, the same day.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StepRow {
    pub label: String,
    pub visitors: i64,
    /// `visitors` in percent of the first step's (0 to 100, one decimal).
    pub conversion_rate: f64,
}

/// A funnel over a range (`GET /v1/analytics/funnels/:id`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FunnelReport {
    pub id: uuid::Uuid,
    pub name: String,
    pub period: Period,
    pub steps: Vec<StepRow>,
}

/// A read-only dashboard link (`POST /v1/projects/:id/analytics/share`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShareLink {
    pub id: uuid::Uuid,
    pub url: String,
    /// The segment the link shows, only it; `null`: all the project's figures.
    pub segment_id: Option<uuid::Uuid>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShareLinkList {
    pub data: Vec<ShareLink>,
}

/// Where visits went right after (or came from right before) one page: visits per page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct JourneyRow {
    /// A page path, or `(exit)` / `(entrance)` when the visit ended there / began there.
    pub page: String,
    pub visits: i64,
}

/// `GET /v1/analytics/journeys`: the pages viewed right after and right before `page` within
/// visits, most visits first (100 at most each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Journeys {
    pub period: Period,
    pub page: String,
    pub next: Vec<JourneyRow>,
    pub previous: Vec<JourneyRow>,
}

/// A saved segment: a name for a set of read filters, applied to any read with `segment=<id>`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Segment {
    pub id: uuid::Uuid,
    pub project_id: uuid::Uuid,
    pub name: String,
    /// Filter name to value, as the reads take them (`{"country": "DE", "device": "mobile"}`).
    pub filters: std::collections::BTreeMap<String, String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SegmentList {
    pub data: Vec<Segment>,
}

/// `POST /v1/analytics/segments`: one to ten of the reads' filters.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewSegment {
    pub project_id: uuid::Uuid,
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// Filter name (`page`, `referrer`, `country`, `device`, `browser`, `os`, `utm_source`,
    /// `utm_medium`, `utm_campaign`, `event`) to its exact value.
    #[input(with = segment_filters)]
    #[schema(value_type = std::collections::HashMap<String, String>)]
    pub filters: Map<String, Value>,
}

/// A segment's filters: an object of 1 to 10 entries (their names and values are checked where
/// the filters are known, `shipmate_analytics::query`).
fn segment_filters(input: &mut Input, field: &str) -> Option<Map<String, Value>> {
    match input.opt_object(field, 16_384) {
        Some(m) if (1..=10).contains(&m.len()) => Some(m),
        Some(_) => {
            input.error(field, "must hold 1 to 10 filters");
            None
        }
        None => {
            input.error(field, "is required: an object of filter names and values");
            None
        }
    }
}

/// `POST /v1/projects/:id/analytics/share`: optionally locked to a segment of the project.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewShareLink {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment_id: Option<uuid::Uuid>,
}

/// A one-dimension breakdown over a period.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Breakdown<T> {
    pub period: Period,
    pub data: Vec<T>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Devices {
    pub period: Period,
    pub data: Vec<DeviceRow>,
    pub browsers: Vec<BrowserRow>,
    pub operating_systems: Vec<OsRow>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Utm {
    pub period: Period,
    pub sources: Vec<UtmSourceRow>,
    pub mediums: Vec<UtmMediumRow>,
    pub campaigns: Vec<UtmCampaignRow>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Point {
    /// The bucket's start.
    pub date: DateTime<Utc>,
    pub views: i64,
    pub visitors: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Timeseries {
    pub period: Period,
    pub interval: Interval,
    pub data: Vec<Point>,
}

impl Period {
    pub fn days(self) -> i64 {
        match self {
            Period::Days7 => 7,
            Period::Days30 => 30,
            Period::Days90 => 90,
            // A custom range carries its own days; asked without them it is refused.
            Period::Custom => 30,
        }
    }
}

/// A page and its distinct visitors in the last minutes (`GET /v1/analytics/realtime`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RealtimePage {
    pub page: String,
    pub visitors: i64,
}

/// Who is on the site now, from the stored raw events (not the daily summaries).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Realtime {
    /// Distinct visitors with any event in the last 5 minutes.
    pub visitors: i64,
    /// Page views in the last 30 minutes.
    pub page_views: i64,
    /// The last 5 minutes' pages by distinct visitors, most first, at most 10.
    #[schema(max_items = 10)]
    pub pages: Vec<RealtimePage>,
}

/// `POST /v1/analytics/goals`: exactly one of `event` and `page`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
#[input(before = one_target)]
pub struct NewGoal {
    pub project_id: uuid::Uuid,
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 100)]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048)]
    pub page: Option<String>,
    /// An ISO 4217 code: the goal's row adds the revenue of its conversions in that currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = crate::revenue::read_currency)]
    #[schema(min_length = 3, max_length = 3)]
    pub currency: Option<String>,
}

/// `POST /v1/analytics/funnels`: 2 to 8 steps, each exactly one of `page` and `event`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewFunnel {
    pub project_id: uuid::Uuid,
    #[schema(min_length = 1, max_length = 200)]
    pub name: String,
    #[schema(min_items = 2, max_items = 8)]
    #[input(with = steps)]
    pub steps: Vec<Step>,
}

/// A goal names an event or a page: exactly one of them.
fn one_target(input: &mut Input) -> Option<()> {
    // A blank string names nothing, as `opt_string` reads it.
    let given = |f: &str| match input.raw(f) {
        Some(Value::String(s)) => !s.trim().is_empty(),
        other => other.is_some(),
    };
    let message = match (given("event"), given("page")) {
        (true, true) => "give either event or page, not both",
        (false, false) => "give either event or page",
        _ => return Some(()),
    };
    input.error("event", message);
    input.error("page", message);
    Some(())
}

pub const MIN_STEPS: usize = 2;
pub const MAX_STEPS: usize = 8;

/// A funnel's steps, one problem per bad step (`steps[i]`, `steps[i].page`).
fn steps(input: &mut Input, field: &str) -> Option<Vec<Step>> {
    let Some(Value::Array(items)) = input.raw(field).cloned() else {
        input.error(
            field,
            format!("is required: a list of {MIN_STEPS} to {MAX_STEPS} steps"),
        );
        return None;
    };
    if !(MIN_STEPS..=MAX_STEPS).contains(&items.len()) {
        input.error(field, format!("must hold {MIN_STEPS} to {MAX_STEPS} steps"));
        return None;
    }
    let mut steps = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        let text = |v: Option<&Value>, max: usize| match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= max => {
                Ok(Some(s.trim().to_owned()))
            }
            Some(_) => Err(format!(
                "must be a non-empty string of at most {max} characters"
            )),
        };
        let (page, event) = match &item {
            Value::Object(o) => (text(o.get("page"), 2048), text(o.get("event"), 100)),
            _ => {
                input.error(&at, "must be an object with page or event");
                continue;
            }
        };
        match (page, event) {
            (Err(m), _) => input.error(&format!("{at}.page"), m),
            (_, Err(m)) => input.error(&format!("{at}.event"), m),
            (Ok(None), Ok(None)) | (Ok(Some(_)), Ok(Some(_))) => {
                input.error(&at, "must have exactly one of page and event")
            }
            (Ok(page), Ok(event)) => steps.push(Step { page, event }),
        }
    }
    Some(steps)
}
