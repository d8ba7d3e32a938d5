//! Web analytics: the events sent, and the reads.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

string_enum! {
    /// The window a read covers, ending now.
    #[derive(Default)]
    Period {
        Days7 = "7d",
        #[default]
        Days30 = "30d",
        Days90 = "90d",
    }
}

string_enum! {
    /// A time series' bucket: hours for 7 days, days otherwise.
    Interval { Hour = "hour", Day = "day" }
}

/// One event sent by the browser script or a server (`POST /v1/events`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
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
    pub properties: Option<Map<String, Value>>,
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
    One(Event),
}

/// A breakdown row: views and distinct visitors for one value of a dimension, named by the
/// dimension (`{"page": "/pricing", "views": 10, "visitors": 7}`).
macro_rules! breakdown_row {
    ($name:ident, $field:ident) => {
        #[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
        pub struct $name {
            pub $field: String,
            pub views: i64,
            pub visitors: i64,
        }

        impl From<(String, i64, i64)> for $name {
            fn from((key, views, visitors): (String, i64, i64)) -> Self {
                $name {
                    $field: key,
                    views,
                    visitors,
                }
            }
        }
    };
}

breakdown_row!(PageRow, page);
breakdown_row!(ReferrerRow, referrer);
breakdown_row!(CountryRow, country);
breakdown_row!(DeviceRow, device);
breakdown_row!(BrowserRow, browser);
breakdown_row!(OsRow, os);
breakdown_row!(UtmSourceRow, utm_source);
breakdown_row!(UtmMediumRow, utm_medium);
breakdown_row!(UtmCampaignRow, utm_campaign);

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Overview {
    pub period: Period,
    pub page_views: i64,
    pub unique_visitors: i64,
    pub top_page: Option<String>,
    pub top_referrer: Option<String>,
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
pub struct EventRow {
    pub name: String,
    pub count: i64,
    pub visitors: i64,
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
