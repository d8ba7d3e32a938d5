//! Property tests (proptest) for the document chunker, which takes arbitrary outside text at
//! volume: each property runs a few hundred generated cases, shrinks failures to a minimal input,
//! and fails the build's test run.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shipmate_kb::chunking::chunk;

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
}
