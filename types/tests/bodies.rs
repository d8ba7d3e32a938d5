//! The derived readers (`#[derive(FromInput)]`) keep the rules the hand-written ones had: every
//! wrong field in one answer, limits from the schema attributes, partial updates, and the
//! problem codes the contract names.

use serde_json::{json, Value};
use shipmate_types::changelog::EntryChanges;
use shipmate_types::feedback::FeedbackChanges;
use shipmate_types::input::{FromInput, Input, Invalid};
use shipmate_types::testimonials::NewTestimonial;

fn read<T: FromInput>(body: Value) -> Result<T, Invalid> {
    Input::new(body)?.parse()
}

fn fields(e: Invalid) -> Vec<String> {
    e.errors.into_iter().map(|e| e.field).collect()
}

#[test]
fn every_wrong_field_is_listed_at_once() {
    let bad = read::<NewTestimonial>(json!({
        "author_name": "",
        "author_email": "nope",
        "content": "x".repeat(5_001),
        "rating": 6,
        "tweet_url": "ftp://example.com/1",
    }))
    .unwrap_err();
    assert_eq!(bad.code, "validation_failed");
    assert_eq!(
        fields(bad),
        [
            "author_name",
            "author_email",
            "content",
            "rating",
            "tweet_url"
        ]
    );
    let good = read::<NewTestimonial>(json!({
        "author_name": " Ada ",
        "author_email": "ada@example.com",
        "content": "x".repeat(5_000),
        "rating": 5.0,
    }))
    .unwrap();
    assert_eq!((good.author_name.as_str(), good.rating), ("Ada", 5));
    assert_eq!(good.tweet_url, None);
}

#[test]
fn a_partial_update_checks_only_what_was_sent_and_refuses_it_empty() {
    let none = read::<EntryChanges>(json!({})).unwrap();
    assert!(none.title.is_none() && none.feedback_ids.is_none());
    let bad = read::<EntryChanges>(json!({"title": "  ", "feedback_ids": ["x"]})).unwrap_err();
    assert_eq!(fields(bad), ["title", "feedback_ids"]);
}

#[test]
fn a_change_names_something_and_an_unknown_status_has_its_own_code() {
    let empty = read::<FeedbackChanges>(json!({})).unwrap_err();
    assert_eq!(fields(empty), ["status"]);
    let unknown = read::<FeedbackChanges>(json!({"status": "finished"})).unwrap_err();
    assert_eq!(unknown.code, "invalid_status");
    let known = read::<FeedbackChanges>(json!({"status": "planned", "on_roadmap": true})).unwrap();
    assert_eq!(known.on_roadmap, Some(true));
}
