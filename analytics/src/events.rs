//! Incoming events: validated at the api, queued as one job per request.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::visitor::Visitor;
use super::MAX_BATCH;
use shipmate_core::error::FieldError;
use shipmate_core::{AppError, AppResult};
use shipmate_types::analytics::Event;
use shipmate_types::input::Input;

/// One event as submitted. A replayed job is recognised by its queue entry (`store::insert`), so
/// events carry no id of their own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IncomingEvent {
    pub name: String,
    pub url: Option<String>,
    pub referrer: Option<String>,
    pub utm_source: Option<String>,
    pub utm_medium: Option<String>,
    pub utm_campaign: Option<String>,
    pub screen_width: Option<i32>,
    pub properties: Option<Map<String, Value>>,
    /// Entries queued before revenue existed have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revenue: Option<Money>,
}

/// An event's revenue as stored: whole millionths of the unit, and the ISO 4217 code.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Money {
    pub micros: i64,
    pub currency: String,
}

/// One request's events as queued: the client only as the api derived it (`Visitor`), never its
/// IP address or user agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EventBatch {
    pub project_id: Uuid,
    pub received_at: DateTime<Utc>,
    /// `None` for a known bot: its events are counted as dropped, not stored.
    #[serde(default)]
    pub visitor: Option<Visitor>,
    pub events: Vec<IncomingEvent>,
    /// Read only from entries queued by the release before this one, which carried the raw client
    /// for the worker to derive from: such entries may still wait on Redis at the upgrade, and the
    /// worker derives them once rather than losing them. Never serialized, so no new entry carries
    /// them (and plain fields, not `flatten`, keep reading fast). Remove in the next release.
    #[serde(default, rename = "ip", skip_serializing)]
    pub legacy_ip: Option<String>,
    #[serde(default, rename = "user_agent", skip_serializing)]
    pub legacy_user_agent: Option<String>,
}

impl EventBatch {
    pub fn new(
        project_id: Uuid,
        received_at: DateTime<Utc>,
        visitor: Option<Visitor>,
        events: Vec<IncomingEvent>,
    ) -> Self {
        EventBatch {
            project_id,
            received_at,
            visitor,
            events,
            legacy_ip: None,
            legacy_user_agent: None,
        }
    }
}

/// Parses one event object or `{"events": [...]}` (1 to 100).
pub fn parse_body(body: Value) -> AppResult<Vec<IncomingEvent>> {
    let list = match body {
        Value::Object(mut m) if m.contains_key("events") => match m.remove("events") {
            Some(Value::Array(list)) => list,
            _ => {
                return Err(AppError::invalid(
                    "validation_failed",
                    "events",
                    "must be an array",
                ))
            }
        },
        other => vec![other],
    };
    if list.is_empty() || list.len() > MAX_BATCH {
        return Err(AppError::invalid(
            "validation_failed",
            "events",
            format!("must hold 1 to {MAX_BATCH} events"),
        ));
    }
    let mut errors = Vec::new();
    let mut out = Vec::with_capacity(list.len());
    let batched = list.len() > 1;
    for (i, v) in list.into_iter().enumerate() {
        match parse_event(v) {
            Ok(e) => out.push(e),
            Err(AppError::Client { errors: errs, .. }) => {
                errors.extend(errs.into_iter().map(|e| FieldError {
                    field: if batched {
                        format!("events[{i}].{}", e.field)
                    } else {
                        e.field
                    },
                    message: e.message,
                }))
            }
            Err(e) => return Err(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(AppError::validation(errors))
    }
}

fn parse_event(v: Value) -> AppResult<IncomingEvent> {
    let e = Input::new(v)?.parse::<Event>()?;
    Ok(IncomingEvent {
        name: e.name.unwrap_or_else(|| "page_view".into()),
        url: e.url,
        referrer: e.referrer,
        utm_source: e.utm_source,
        utm_medium: e.utm_medium,
        utm_campaign: e.utm_campaign,
        screen_width: e.screen_width,
        properties: e.properties,
        // Checked by the body's reader: the amount parses.
        revenue: e.revenue.and_then(|r| {
            Some(Money {
                micros: shipmate_types::revenue::micros(&r.amount)?,
                currency: r.currency,
            })
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn single_and_batched_events() {
        let one = parse_body(json!({"url": "https://a.example/x"})).unwrap();
        assert_eq!(one[0].name, "page_view");
        let many = parse_body(json!({"events": [{"name": "signup"}, {"name": "buy", "properties": {"plan": "pro", "n": 2}}]})).unwrap();
        assert_eq!(many.len(), 2);
    }

    #[test]
    fn bad_events_name_their_position() {
        let Err(AppError::Client { errors, .. }) =
            parse_body(json!({"events": [{"name": "ok"}, {"screen_width": "wide"}]}))
        else {
            panic!()
        };
        assert_eq!(errors[0].field, "events[1].screen_width");
        assert!(parse_body(json!({"events": []})).is_err());
        assert!(parse_body(json!({"properties": {"nested": {"a": 1}}})).is_err());
        let too_many: Vec<Value> = (0..101).map(|_| json!({})).collect();
        assert!(parse_body(json!({ "events": too_many })).is_err());
    }

    #[test]
    fn queued_batches_carry_no_raw_client_and_old_entries_still_read() {
        let mut batch = EventBatch::new(
            Uuid::nil(),
            Utc::now(),
            None,
            parse_body(json!({})).unwrap(),
        );
        batch.legacy_ip = Some("81.2.69.142".into());
        batch.legacy_user_agent = Some("Mozilla/5.0".into());
        let queued = serde_json::to_value(&batch).unwrap();
        assert!(
            queued.get("ip").is_none() && queued.get("user_agent").is_none(),
            "{queued}"
        );
        let old = json!({"project_id": Uuid::nil(), "received_at": Utc::now(), "ip": "81.2.69.142",
            "user_agent": "Mozilla/5.0", "events": queued["events"]});
        let read: EventBatch = serde_json::from_value(old).unwrap();
        assert_eq!(
            (
                read.legacy_ip.as_deref(),
                read.legacy_user_agent.as_deref(),
                read.visitor
            ),
            (Some("81.2.69.142"), Some("Mozilla/5.0"), None)
        );
    }
}
