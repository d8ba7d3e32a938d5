//! Splitting documents into chunks sized in model tokens, with overlap, Markdown-aware.

use rayon::prelude::*;
use shipmate_types::ContentType;
use text_splitter::{ChunkConfig, MarkdownSplitter, TextSplitter};
use tokenizers::Tokenizer;

/// Chunks of about this many tokens: small enough to stay specific, large enough for context.
const TARGET_TOKENS: usize = 200;
const OVERLAP_TOKENS: usize = 32;
/// Without a local tokenizer (vendor models), about four characters make a token.
const CHARS_PER_TOKEN: usize = 4;
/// No chunk holds more tokens than this, whatever the model reads (the API contract's bound).
pub const MAX_CHUNK_TOKENS: usize = 512;

/// Splits many texts at once on rayon's pool (a batch upload's documents), each as [`chunk`]
/// would, in order.
pub fn chunk_all(
    texts: &[(String, ContentType)],
    tokenizer: Option<&Tokenizer>,
    max_tokens: usize,
) -> Vec<Vec<String>> {
    texts
        .par_iter()
        .map(|(text, kind)| chunk(text, *kind, tokenizer, max_tokens))
        .collect()
}

/// Splits `content` for a model that reads at most `max_tokens` (special tokens included), and
/// never into chunks over [`MAX_CHUNK_TOKENS`]. Plain text is split by sentences and paragraphs;
/// Markdown (and HTML, already turned into Markdown) along its structure too.
///
/// Chunks are sized by characters first (about four to a token), then each is measured once in
/// the model's tokens and split again only if it does not fit. Sizing every candidate in tokens
/// (text-splitter's tokenizer sizer) re-encodes the text many times and cost ~50 ms per 10 KB
/// upload; this costs one encode per chunk.
pub fn chunk(
    content: &str,
    kind: ContentType,
    tokenizer: Option<&Tokenizer>,
    max_tokens: usize,
) -> Vec<String> {
    let max_tokens = max_tokens.min(MAX_CHUNK_TOKENS);
    let size = TARGET_TOKENS.min(max_tokens.saturating_sub(2)).max(16);
    let overlap = OVERLAP_TOKENS.min(size / 4);
    let markdown = match kind {
        ContentType::Plain => false,
        ContentType::Html => true,
        ContentType::Markdown => looks_like_markdown(content),
    };
    let rough = split(
        content,
        config(size * CHARS_PER_TOKEN, overlap * CHARS_PER_TOKEN),
        markdown,
    );
    let fitted: Vec<String> = match tokenizer {
        None => rough,
        Some(t) => {
            let limit = max_tokens.saturating_sub(2).max(16);
            rough
                .into_iter()
                .flat_map(|c| {
                    let fits = t
                        .encode(c.as_str(), false)
                        .map(|e| e.get_ids().len() <= limit)
                        .unwrap_or(true);
                    if fits {
                        vec![c]
                    } else {
                        split(&c, config(size, overlap).with_sizer(t), markdown)
                    }
                })
                .collect()
        }
    };
    fitted
        .into_iter()
        .filter(|c| !c.trim().is_empty())
        .collect()
}

fn config(size: usize, overlap: usize) -> ChunkConfig<text_splitter::Characters> {
    // `overlap < size` always holds here; the fallback only keeps this total.
    ChunkConfig::new(size)
        .with_overlap(overlap)
        .unwrap_or_else(|_| ChunkConfig::new(size))
}

fn split<S: text_splitter::ChunkSizer>(
    content: &str,
    config: ChunkConfig<S>,
    markdown: bool,
) -> Vec<String> {
    if markdown {
        MarkdownSplitter::new(config)
            .chunks(content)
            .map(str::to_owned)
            .collect()
    } else {
        TextSplitter::new(config)
            .chunks(content)
            .map(str::to_owned)
            .collect()
    }
}

/// Headings, fences, lists or links at line starts suggest Markdown.
pub fn looks_like_markdown(content: &str) -> bool {
    content.lines().take(200).any(|l| {
        let l = l.trim_start();
        l.starts_with("# ")
            || l.starts_with("## ")
            || l.starts_with("```")
            || l.starts_with("- ")
            || l.starts_with("* ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_splits_with_overlap_and_short_text_stays_whole() {
        let text = (0..400)
            .map(|i| format!("Sentence number {i} talks about things."))
            .collect::<Vec<_>>()
            .join(" ");
        let chunks = chunk(&text, ContentType::Plain, None, 256);
        assert!(chunks.len() > 5);
        assert!(chunks.iter().all(|c| c.len() <= 800));
        assert_eq!(
            chunk("Just one line.", ContentType::Markdown, None, 256),
            vec!["Just one line.".to_string()]
        );
        assert!(chunk("   ", ContentType::Markdown, None, 256).is_empty());
    }

    #[test]
    fn markdown_is_detected() {
        assert!(looks_like_markdown("# Title\n\nBody"));
        assert!(!looks_like_markdown("Plain prose, nothing else."));
    }
}
