//! Typo tolerance (contract part 3, "Knowledge base, further"): keyword and hybrid searches also
//! find the words of the index within one edit of a query word of five or more letters (two from
//! nine letters); `"typo_tolerance": false` turns it off; phrases, excluded words, short words and
//! codes are taken as typed. Real model, real worker.

use serde_json::{json, Value};

use crate::helpers::*;
use crate::kb_search_modes::search_with;
use crate::support::*;

const PASSWORDS: &str =
    "How to reset your password: open the settings, choose security, and press reset.";
const DOCS: &str =
    "Our documentation covers the importer. Error E1234 means the file is too large.";

fn documents(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["chunk_content"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn keyword_and_hybrid_searches_forgive_a_typo_unless_told_not_to() {
    let app = spawn_app().await;
    let (_, key, index) = project_with_index(&app, "kb-typos", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    for text in [PASSWORDS, DOCS] {
        let doc = upload(&app, &key, &index, text, json!({})).await;
        assert_eq!(wait_done(&app, &key, &index, &doc).await["status"], "ready");
    }
    let keyword = |query: &str, extra: Value| {
        let mut body = json!({"query": query, "mode": "keyword"});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (app, key, index) = (&app, key.clone(), index.clone());
        async move { documents(&search_with(app, &key, &index, body).await) }
    };

    // One edit: a letter missing, swapped with its neighbour, replaced, added.
    for typo in [
        "pasword",
        "passwrod",
        "passwerd",
        "passwordd",
        "reset my pasword",
    ] {
        assert_eq!(keyword(typo, json!({})).await, [PASSWORDS], "{typo}");
        assert!(
            keyword(typo, json!({"typo_tolerance": false}))
                .await
                .is_empty(),
            "{typo} without typo tolerance"
        );
    }
    // Nine letters and more: two edits (a swap and a missing letter).
    assert_eq!(keyword("docmuentaton", json!({})).await, [DOCS]);
    // Taken as typed: two edits on a short word, four letters, a phrase, a code.
    for exact in ["pasrowd", "rset", "\"pasword\"", "E1235"] {
        assert!(keyword(exact, json!({})).await.is_empty(), "{exact}");
    }
    // Widened inside the query: every other word must still occur (quarterly & (pasword |
    // password)), as it must without a typo; and a word the index holds is taken as typed.
    assert!(keyword("quarterly pasword", json!({})).await.is_empty());
    assert!(keyword("reset security pasword invoices", json!({}))
        .await
        .is_empty());
    // An excluded word is not widened: excluding "pasword" excludes nothing.
    assert_eq!(keyword("settings -pasword", json!({})).await, [PASSWORDS]);

    // Hybrid: the words found by a typo are marked in the highlights as keyword search found them.
    let hybrid = search_with(
        &app,
        &key,
        &index,
        json!({"query": "pasword", "mode": "hybrid", "highlight": true}),
    )
    .await;
    let marked = hybrid
        .iter()
        .find(|r| r["chunk_content"] == PASSWORDS)
        .unwrap();
    assert!(
        marked["highlights"][0]
            .as_str()
            .unwrap()
            .contains("<mark>password</mark>"),
        "{marked}"
    );
    let strict = search_with(
        &app,
        &key,
        &index,
        json!({"query": "pasword", "mode": "hybrid", "highlight": true, "typo_tolerance": false}),
    )
    .await;
    assert!(
        strict.iter().all(|r| r["highlights"] == json!([])),
        "{strict:?}"
    );
}
