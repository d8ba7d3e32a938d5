//! Typo tolerance for keyword and hybrid search. A query word of five or more letters that the
//! index does not hold is widened to the index's words within one edit of it (nine or more
//! letters: two), counting typos as Meilisearch does: a letter missing, added or replaced, or two
//! neighbours swapped. The search then reads `word` as `word OR correction ...` inside the parsed
//! query (the `kb_query` SQL function), so every other rule of keyword search (phrases, `-word`,
//! languages) still holds.
//! Candidates come from the trigram index of the index's words (`kb_words`), which finds letters
//! replaced, added or missing, and from exact lookups of the word with a letter dropped or two
//! neighbours swapped (a swap in a short word shares too few trigrams); each is checked here by
//! its edit distance.

use std::collections::BTreeSet;

use shipmate_core::AppResult;
use sqlx::PgPool;
use uuid::Uuid;

/// Shorter words are taken as typed: one edit away from a four-letter word lies another word.
const MIN_LETTERS: usize = 5;
/// From this length a word may be two edits away from what was meant.
const TWO_EDITS_FROM: usize = 9;
/// Corrections kept per word, the closest first.
const MOST: usize = 5;

/// The misspelt words of a keyword query, each with what it is read as (`word OR correction
/// ...`), for `kb_query`; empty when every word is taken as typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Widened {
    pub words: Vec<String>,
    pub alternatives: Vec<String>,
}

/// The misspelt words of `query` and the words of the index each may have meant.
pub async fn widen(db: &PgPool, index_id: Uuid, query: &str) -> AppResult<Widened> {
    let words: Vec<String> = tokens(query)
        .filter(|t| t.eligible())
        .map(|t| t.text.to_lowercase())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if words.is_empty() {
        return Ok(Widened::default());
    }
    // A word the index holds as typed is taken as meant.
    let known = sqlx::query_scalar!(
        "select word from kb_words where index_id = $1 and word = any($2)",
        index_id,
        &words
    )
    .fetch_all(db)
    .await?;
    let unknown: Vec<&String> = words.iter().filter(|w| !known.contains(w)).collect();
    if unknown.is_empty() {
        return Ok(Widened::default());
    }
    let near: Vec<String> = unknown
        .iter()
        .flat_map(|w| dropped_or_swapped(w))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let unknown_words: Vec<String> = unknown.iter().map(|w| w.to_string()).collect();
    let found = sqlx::query_scalar!(
        r#"select word as "word!" from kb_words where index_id = $1 and word = any($2)
           union
           select w.word from unnest($3::text[]) q(word)
           join kb_words w on w.index_id = $1 and lower(w.word) % q.word"#,
        index_id,
        &near,
        &unknown_words
    )
    .fetch_all(db)
    .await?;
    let mut widened = Widened::default();
    for word in unknown {
        let near = closest(word, &found);
        if !near.is_empty() {
            widened
                .alternatives
                .push(format!("{word} OR {}", near.join(" OR ")));
            widened.words.push(word.clone());
        }
    }
    Ok(widened)
}

/// The words of `found` within the edits `word` allows, the closest first (then alphabetically).
fn closest<'a>(word: &str, found: &'a [String]) -> Vec<&'a str> {
    let allowed = if word.chars().count() >= TWO_EDITS_FROM {
        2
    } else {
        1
    };
    let mut near: Vec<(usize, &str)> = found
        .iter()
        .map(|f| (edits(word, f), f.as_str()))
        .filter(|(d, _)| (1..=allowed).contains(d))
        .collect();
    near.sort();
    near.into_iter().take(MOST).map(|(_, f)| f).collect()
}

/// `word` with one letter dropped, or two neighbours swapped.
fn dropped_or_swapped(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::with_capacity(2 * chars.len());
    for i in 0..chars.len() {
        let mut dropped = chars.clone();
        dropped.remove(i);
        out.push(dropped.into_iter().collect());
        if i + 1 < chars.len() {
            let mut swapped = chars.clone();
            swapped.swap(i, i + 1);
            out.push(swapped.into_iter().collect());
        }
    }
    out.retain(|v| v != word);
    out
}

/// Edits between `a` and `b`: insertions, deletions, replacements and swaps of neighbours
/// (optimal string alignment).
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// A run of letters or digits in a query, and where it stands.
struct Token<'a> {
    text: &'a str,
    quoted: bool,
    negated: bool,
}

impl Token<'_> {
    /// A word typos may widen: letters only (codes such as `E1234` are meant exactly), long
    /// enough, outside a phrase, not excluded.
    fn eligible(&self) -> bool {
        !self.quoted
            && !self.negated
            && self.text.chars().count() >= MIN_LETTERS
            && self.text.chars().all(char::is_alphabetic)
    }
}

/// The query's runs of letters and digits, as web search reads them.
fn tokens(query: &str) -> impl Iterator<Item = Token<'_>> {
    let mut quoted = false;
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut previous = ' ';
    let mut before_word = ' ';
    for (i, c) in query
        .char_indices()
        .chain(std::iter::once((query.len(), ' ')))
    {
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
                before_word = previous;
            }
        } else {
            if let Some(s) = start.take() {
                out.push(Token {
                    text: &query[s..i],
                    quoted,
                    negated: before_word == '-',
                });
            }
            if c == '"' {
                quoted = !quoted;
            }
        }
        previous = c;
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_count_swaps_as_one() {
        assert_eq!(edits("password", "pasword"), 1);
        assert_eq!(edits("house", "hosue"), 1);
        assert_eq!(edits("house", "horse"), 1);
        assert_eq!(edits("documentation", "docmuentaton"), 2);
        assert_eq!(edits("house", "mouses"), 2);
    }

    #[test]
    fn drops_and_swaps_are_one_edit_each() {
        let near = dropped_or_swapped("hosue");
        assert!(near.iter().any(|n| n == "house"));
        assert!(near.iter().any(|n| n == "hose"));
        assert_eq!(near.len(), 5 + 4);
        assert!(near.iter().all(|n| edits("hosue", n) == 1));
    }

    #[test]
    fn only_long_plain_words_outside_phrases_are_widened() {
        let eligible: Vec<_> =
            tokens("reset \"pasword here\" -exclude passwrd E1234x or paddle-boat")
                .filter(Token::eligible)
                .map(|t| t.text)
                .collect();
        assert_eq!(eligible, ["reset", "passwrd", "paddle"]);
    }

    #[test]
    fn the_closest_words_within_the_edits_allowed() {
        let found = [
            "password".to_owned(),
            "passport".to_owned(),
            "pass".to_owned(),
        ];
        assert_eq!(closest("passwrd", &found), ["password"]);
        let found = ["documentation".to_owned(), "documented".to_owned()];
        assert_eq!(closest("docmuentaton", &found), ["documentation"]);
    }
}
