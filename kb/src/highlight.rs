//! Highlights: the passages of each result's chunk that match the query's words, the words marked
//! with `<mark>` and everything else HTML-escaped. PostgreSQL's `ts_headline` picks the passages,
//! with the chunk's own language (as its words were indexed), between private markers that no
//! text holds; the escaping happens here, after, so no chunk's markup survives.

use serde_json::Map;
use sqlx::PgPool;

use super::language;
use super::search::dashes_as_spaces;
use super::typos::Widened;
use shipmate_core::AppResult;
use shipmate_types::kb::SearchResult;

const START: char = '\u{1}';
const STOP: char = '\u{2}';
const BETWEEN: char = '\u{3}';

/// Up to three passages of about 8 to 25 words each.
const OPTIONS: &str =
    "StartSel=\"\u{1}\", StopSel=\"\u{2}\", FragmentDelimiter=\"\u{3}\", MaxFragments=3, MaxWords=25, MinWords=8";

/// The highlights of each result, in order (empty where no word of the query occurs).
/// `widened` reads misspelt words as the keyword search read them, so the words found are marked.
pub async fn of(
    db: &PgPool,
    (query, widened): (&str, &Widened),
    results: &[SearchResult],
) -> AppResult<Vec<Vec<String>>> {
    if results.is_empty() {
        return Ok(Vec::new());
    }
    let contents: Vec<String> = results.iter().map(|r| r.chunk_content.clone()).collect();
    let configs: Vec<String> = results
        .iter()
        .map(|r| {
            let none = Map::new();
            let meta = r.metadata.as_object().unwrap_or(&none);
            language::of_metadata(meta).to_owned()
        })
        .collect();
    let rows = sqlx::query!(
        r#"select u.i as "i!", ts_headline(u.cfg::regconfig, u.content,
                  kb_query(u.cfg::regconfig, $1, $5, $6), $4) as "headline!"
           from unnest($2::text[], $3::text[]) with ordinality as u(content, cfg, i)
           order by u.i"#,
        dashes_as_spaces(query),
        &contents,
        &configs,
        OPTIONS,
        &widened.words,
        &widened.alternatives
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| passages(&r.headline)).collect())
}

/// The marked passages of a headline, escaped, the markers as `<mark>` (a passage without a
/// match is the chunk's opening, which `ts_headline` gives when nothing matches: left out).
fn passages(headline: &str) -> Vec<String> {
    headline
        .split(BETWEEN)
        .filter(|p| p.contains(START))
        .map(|p| {
            let mut out = String::with_capacity(p.len() + 16);
            for c in p.trim().chars() {
                match c {
                    START => out.push_str("<mark>"),
                    STOP => out.push_str("</mark>"),
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '"' => out.push_str("&quot;"),
                    '\'' => out.push_str("&#39;"),
                    c => out.push(c),
                }
            }
            out
        })
        .collect()
}

/// Sets each result's `highlights`.
pub fn attach(results: &mut [SearchResult], highlights: Vec<Vec<String>>) {
    for (r, h) in results.iter_mut().zip(highlights) {
        r.highlights = Some(h);
    }
}

#[cfg(test)]
mod tests {
    use super::passages;

    #[test]
    fn passages_are_escaped_apart_from_the_marks() {
        let h = "a <b>\u{1}reset\u{2}</b> & go\u{3}nothing here\u{3}\u{1}Reset\u{2} \"now\"";
        assert_eq!(
            passages(h),
            [
                "a &lt;b&gt;<mark>reset</mark>&lt;/b&gt; &amp; go",
                "<mark>Reset</mark> &quot;now&quot;"
            ]
        );
    }
}
