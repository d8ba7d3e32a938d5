//! Property tests (proptest) for the analytics event validator, which takes arbitrary outside
//! input at volume: each property runs a few hundred generated cases, shrinks failures to a minimal
//! input, and fails the build's test run.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use shipmate_analytics::events::parse_body;
use shipmate_core::error::Refusal;
use shipmate_core::AppError;

/// Any JSON value, nested a few levels.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,30}".prop_map(Value::String),
        "[a-z]{0,3000}".prop_map(Value::String),
        Just(Value::String("nul\u{0}inside".to_owned())),
    ];
    leaf.prop_recursive(3, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("name".to_owned()),
                    Just("url".to_owned()),
                    Just("referrer".to_owned()),
                    Just("properties".to_owned()),
                    Just("screen_width".to_owned()),
                    Just("events".to_owned()),
                    Just("utm_source".to_owned()),
                    "[a-z]{1,8}",
                ],
                inner,
                0..8
            )
            .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Whatever arrives, the validator answers: accepted events within the contract's limits, or a
    /// client error that names fields — never a panic, never an internal error.
    #[test]
    fn the_event_validator_accepts_only_what_the_contract_allows(body in json()) {
        match parse_body(body) {
            Ok(events) => {
                prop_assert!((1..=100).contains(&events.len()));
                for e in events {
                    prop_assert!(!e.name.is_empty() && e.name.chars().count() <= 100);
                    // Postgres refuses NUL: an accepted event must be storable.
                    prop_assert!(!serde_json::to_string(&e).unwrap().contains("\\u0000"));
                    prop_assert!(e.url.as_ref().is_none_or(|u| u.chars().count() <= 2_048));
                    prop_assert!(e.referrer.as_ref().is_none_or(|u| u.chars().count() <= 2_048));
                    if let Some(p) = e.properties {
                        prop_assert!(serde_json::to_string(&p).unwrap().len() <= 4_096);
                        prop_assert!(p.values().all(|v| !v.is_object() && !v.is_array()));
                    }
                }
            }
            Err(AppError::Client { kind, errors, .. }) => {
                prop_assert_eq!(kind, Refusal::Invalid);
                prop_assert!(!errors.is_empty());
            }
            Err(other) => prop_assert!(false, "not a client error: {other}"),
        }
    }

    /// Batches of valid events keep their size up to 100 and are refused beyond it.
    #[test]
    fn batches_of_valid_events_are_counted_exactly(n in 1usize..130) {
        let events: Vec<Value> = (0..n)
            .map(|i| serde_json::json!({"name": format!("e{i}"), "url": "https://example.com/"}))
            .collect();
        let parsed = parse_body(serde_json::json!({ "events": events }));
        if n <= 100 {
            prop_assert_eq!(parsed.unwrap().len(), n);
        } else {
            prop_assert!(parsed.is_err());
        }
    }
}
