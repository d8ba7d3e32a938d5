//! The differential tests' events (the same mix stored in both stores), their reads' queries and
//! funnel steps.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use shipmate_analytics::enrich::Enriched;
use shipmate_analytics::events::{IncomingEvent, Money};
use shipmate_analytics::seam::Stored;
use shipmate_analytics::ReadQuery;
use shipmate_types::analytics::Step;
use uuid::Uuid;

/// A small deterministic mix: visitors over yesterday and today, pages, sources, devices, a
/// custom event with properties. Every instant is at least two minutes old.
pub fn events(project_id: Uuid, now: DateTime<Utc>) -> Vec<Stored> {
    let pick = |i: usize, of: &[&str]| of[i % of.len()].to_owned();
    let opt = |i: usize, of: &[&str]| Some(pick(i, of)).filter(|s| !s.is_empty());
    (0..400)
        .map(|i| {
            let ts = now - Duration::minutes(2) - Duration::seconds((i * 263 % 172_000) as i64);
            let custom = i % 7 == 0;
            // Engagement as sm.plus.js sends it, now and then with a depth out of range or
            // not a number (left out of the medians).
            let engaged = i % 7 == 3;
            let properties = if custom {
                json!({"plan": pick(i / 7, &["pro", "free", "team"]), "n": i % 3, "trial": i % 2 == 0})
                    .as_object()
                    .cloned()
            } else if engaged {
                let depth = match i / 7 % 6 {
                    0 => json!("far"),
                    1 => json!(140),
                    _ => json!(i * 13 % 101),
                };
                json!({"scroll_depth": depth, "engaged_ms": i * 757})
                    .as_object()
                    .cloned()
            } else {
                None
            };
            Stored {
                entry: (ts.timestamp_millis() << 20) | i as i64,
                project_id,
                ts,
                event: IncomingEvent {
                    name: match (custom, engaged) {
                        (true, _) => "signup".into(),
                        (_, true) => "engagement".into(),
                        _ => "page_view".into(),
                    },
                    url: None,
                    referrer: None,
                    utm_source: None,
                    utm_medium: None,
                    utm_campaign: None,
                    screen_width: Some(1280),
                    properties,
                    // Signups bring revenue, now and then in another currency.
                    revenue: custom.then(|| Money {
                        micros: i as i64 * 1_250_000 + 990_000,
                        currency: if i % 3 == 0 { "USD" } else { "EUR" }.into(),
                    }),
                },
                enriched: Enriched {
                    path: opt(i, &["/", "/pricing", "/docs", "/blog", "/docs/start"]),
                    referrer_host: opt(i / 2, &["", "news.example", "search.example", ""]),
                    utm_source: opt(i / 3, &["", "newsletter", "ads"]),
                    utm_medium: opt(i / 5, &["", "email"]),
                    utm_campaign: opt(i / 11, &["", "launch"]),
                    device: pick(i / 2, &["desktop", "mobile", "tablet"]),
                    browser: pick(i / 3, &["Chrome", "Firefox", "Safari"]),
                    os: pick(i / 4, &["Linux", "Mac OS X", "Windows", "Android"]),
                    country: opt(i / 6, &["DE", "US", "", "FR"]),
                    // Runs of four events 263 s apart: visits of several pages, and bounces.
                    visitor: (ts.timestamp() / 86_400) * 1_000 + ((i / 4 + i % 3 / 2) % 37) as i64,
                },
            }
        })
        .collect()
}

/// The read of these query parameters (`period`, filters, ...) at `now`.
pub fn query(pairs: &[(&str, &str)], now: DateTime<Utc>) -> ReadQuery {
    let q: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ReadQuery::parse(&q, now).unwrap()
}

pub fn page(path: &str) -> Step {
    Step {
        page: Some(path.into()),
        event: None,
    }
}

/// The first funnel `reads` reads: four steps, a signup among them.
pub fn checkout() -> Vec<Step> {
    let signup = Step {
        page: None,
        event: Some("signup".into()),
    };
    vec![page("/"), page("/pricing"), signup, page("/docs")]
}
