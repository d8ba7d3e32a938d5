//! Page views as the workers store them, for tests that place each one by hand.

use chrono::{DateTime, Utc};
use serde_json::json;
use shipmate_analytics::enrich::Enriched;
use shipmate_analytics::seam::Stored;
use uuid::Uuid;

/// A page view of `visitor` on `path` at `ts`, queued as entry `entry`, from a desktop Firefox on
/// Linux in Germany.
pub fn page_view(
    project_id: Uuid,
    entry: i64,
    ts: DateTime<Utc>,
    visitor: i64,
    path: &str,
) -> Stored {
    Stored {
        entry,
        project_id,
        ts,
        // As queued: the fields an event leaves out are none.
        event: serde_json::from_value(json!({"name": "page_view"})).expect("an event"),
        enriched: Enriched {
            path: Some(path.into()),
            referrer_host: None,
            utm_source: None,
            utm_medium: None,
            utm_campaign: None,
            device: "desktop".into(),
            browser: "Firefox".into(),
            os: "Linux".into(),
            country: Some("DE".into()),
            visitor,
        },
    }
}
