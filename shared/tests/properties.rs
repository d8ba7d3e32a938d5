//! Property tests (proptest) for the two parsers that take arbitrary outside input at volume: the
//! document chunker and the analytics event validator. Each property runs a few hundred generated
//! cases, shrinks failures to a minimal input, and fails the build's test run.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use shipmate_core::error::Refusal;
use shipmate_core::AppError;
use shipmate_kb::chunking::chunk;
use shipmate_shared::analytics::events::parse_body;

/// Text with Markdown structure, Unicode and whitespace runs mixed in.
fn document() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z ]{1,80}",
        "\\PC{1,40}",
        Just("\n\n".to_owned()),
        Just("\n# Heading\n".to_owned()),
        Just("\n- item\n".to_owned()),
        Just("\n```rust\nfn main() {}\n```\n".to_owned()),
        Just("[link](https://example.com) ".to_owned()),
        "[ \t\n]{1,10}",
        "[日本語テキストé🚀]{1,20}",
    ];
    prop::collection::vec(piece, 0..200).prop_map(|p| p.concat())
}

fn non_space(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

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

    /// Chunks are non-blank slices of the document, within the size limit, and together hold
    /// every visible character (overlap may repeat some).
    #[test]
    fn chunks_cover_the_document_within_their_size(doc in document(), max_tokens in 32usize..512) {
        let chunks = chunk(&doc, shipmate_types::ContentType::Markdown, None, max_tokens);
        let limit = 200.min(max_tokens - 2).max(16) * 4;
        for c in &chunks {
            prop_assert!(!c.trim().is_empty());
            prop_assert!(doc.contains(c.as_str()));
            prop_assert!(c.chars().count() <= limit, "{} chars over {limit}", c.chars().count());
        }
        prop_assert!(chunks.iter().map(|c| non_space(c)).sum::<usize>() >= non_space(&doc));
        prop_assert_eq!(chunks.is_empty(), doc.trim().is_empty());
    }

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
