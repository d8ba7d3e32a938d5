//! The rows of the ranked reads (pages, sources, countries, devices, events, entry and exit
//! pages): a value with its count and visitors, and what lets the api add to them (a goal's
//! conversions, imported days) without knowing which read they belong to.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::revenue::GoalRevenue;

/// A breakdown row: views and distinct visitors for one value of a dimension, named by the
/// dimension (`{"page": "/pricing", "views": 10, "visitors": 7}`). A source's row (referrers,
/// UTM) adds a goal's conversions when the read names one (`goal=`).
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
        ranked!($name, $field, views);
    };
    ($name:ident, $field:ident, source) => {
        #[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
        pub struct $name {
            pub $field: String,
            pub views: i64,
            pub visitors: i64,
            /// With `goal=`: this source's visitors who reached the goal.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub conversions: Option<i64>,
            /// With `goal=`: `conversions` in percent of this source's visitors, one decimal.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub conversion_rate: Option<f64>,
            /// With `goal=` naming a goal with a currency: its revenue from this source's
            /// converted visitors, in that currency.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub revenue: Option<GoalRevenue>,
        }

        impl From<(String, i64, i64)> for $name {
            fn from((key, views, visitors): (String, i64, i64)) -> Self {
                $name {
                    $field: key,
                    views,
                    visitors,
                    conversions: None,
                    conversion_rate: None,
                    revenue: None,
                }
            }
        }

        ranked!($name, $field, views);

        impl SourceRow for $name {
            fn convert(&mut self, conversions: i64, rate: f64, revenue: Option<GoalRevenue>) {
                self.conversions = Some(conversions);
                self.conversion_rate = Some(rate);
                self.revenue = revenue;
            }
        }
    };
}

/// A row of a ranked read: its value, and its count (views, visits or occurrences) and visitors.
pub trait Ranked: From<(String, i64, i64)> {
    fn key(&self) -> &str;
    fn count(&self) -> i64;
    fn visitors(&self) -> i64;
    /// The count and the visitors, to add to.
    fn counts(&mut self) -> (&mut i64, &mut i64);
}

macro_rules! ranked {
    ($name:ident, $field:ident, $count:ident) => {
        impl Ranked for $name {
            fn key(&self) -> &str {
                &self.$field
            }
            fn count(&self) -> i64 {
                self.$count
            }
            fn visitors(&self) -> i64 {
                self.visitors
            }
            fn counts(&mut self) -> (&mut i64, &mut i64) {
                (&mut self.$count, &mut self.visitors)
            }
        }
    };
}

/// A row of a source (referrer, UTM value) that a goal's conversions are added to.
pub trait SourceRow: Ranked {
    fn convert(&mut self, conversions: i64, rate: f64, revenue: Option<GoalRevenue>);
}

/// A page's views and visitors, and how far and how long its visitors read it: the medians of its
/// `engagement` events (sent by `sm.plus.js` when the page is hidden or left), null without any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PageRow {
    pub page: String,
    pub views: i64,
    pub visitors: i64,
    /// Median scroll depth, in percent (0 to 100).
    pub scroll_depth: Option<i64>,
    /// Median engaged time, in whole seconds.
    pub time_on_page: Option<i64>,
}

impl From<(String, i64, i64)> for PageRow {
    fn from((page, views, visitors): (String, i64, i64)) -> Self {
        PageRow {
            page,
            views,
            visitors,
            scroll_depth: None,
            time_on_page: None,
        }
    }
}

ranked!(PageRow, page, views);

breakdown_row!(ReferrerRow, referrer, source);
breakdown_row!(CountryRow, country);
breakdown_row!(DeviceRow, device);
breakdown_row!(BrowserRow, browser);
breakdown_row!(OsRow, os);
breakdown_row!(UtmSourceRow, utm_source, source);
breakdown_row!(UtmMediumRow, utm_medium, source);
breakdown_row!(UtmCampaignRow, utm_campaign, source);

/// An entry or exit page: the visits that began (ended) there and their visitors.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct VisitPageRow {
    pub page: String,
    pub visits: i64,
    pub visitors: i64,
}

impl From<(String, i64, i64)> for VisitPageRow {
    fn from((page, visits, visitors): (String, i64, i64)) -> Self {
        VisitPageRow {
            page,
            visits,
            visitors,
        }
    }
}
ranked!(VisitPageRow, page, visits);

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventRow {
    pub name: String,
    pub count: i64,
    pub visitors: i64,
}

impl From<(String, i64, i64)> for EventRow {
    fn from((name, count, visitors): (String, i64, i64)) -> Self {
        EventRow {
            name,
            count,
            visitors,
        }
    }
}
ranked!(EventRow, name, count);
