//! Answers from an index: the retrieved chunks numbered from 1 in the prompt, and the `[n]` the
//! model writes mapped back to them.

use shipmate_types::kb::{Citation, SearchResult};

use super::chat::Message;

const INSTRUCTIONS: &str = "You answer questions from a knowledge base. Use only the numbered \
sources the user gives. Cite every source you use as [n] right after the sentence it supports, \
for example [1] or [2][3]. If the sources do not hold the answer, say that you do not know. Answer \
in the language of the question.";

/// The conversation that asks `question` of `chunks` (in rank order: the best is [1]).
pub fn prompt(question: &str, chunks: &[SearchResult]) -> Vec<Message> {
    let mut sources = String::new();
    for (n, chunk) in chunks.iter().enumerate() {
        sources.push_str(&format!("[{}] {}\n\n", n + 1, chunk.chunk_content.trim()));
    }
    if chunks.is_empty() {
        sources.push_str("(no source matches the question)\n\n");
    }
    vec![
        Message {
            role: "system",
            content: INSTRUCTIONS.into(),
        },
        Message {
            role: "user",
            content: format!("Sources:\n\n{sources}Question: {}", question.trim()),
        },
    ]
}

/// The chunks `answer` cites, in the order first cited; numbers beyond the sources are ignored.
pub fn citations(answer: &str, chunks: &[SearchResult]) -> Vec<Citation> {
    let mut cited: Vec<usize> = Vec::new();
    for n in cited_numbers(answer) {
        if (1..=chunks.len()).contains(&n) && !cited.contains(&n) {
            cited.push(n);
        }
    }
    cited
        .into_iter()
        .map(|n| {
            let c = &chunks[n - 1];
            Citation {
                document_id: c.document_id,
                chunk_index: c.chunk_index,
                chunk_content: c.chunk_content.clone(),
                metadata: c.metadata.clone(),
                feedback: c.feedback.clone(),
            }
        })
        .collect()
}

/// Every number in brackets of digits and commas: `[1]`, `[2][3]`, `[2, 3]`.
fn cited_numbers(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.split('[').skip(1).flat_map(|after| {
        let inside = after.split_once(']').map(|(inside, _)| inside);
        let numbers: Option<Vec<usize>> = inside
            .filter(|s| s.len() <= 40)
            .and_then(|s| s.split(',').map(|n| n.trim().parse().ok()).collect());
        numbers.unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn chunk(content: &str) -> SearchResult {
        SearchResult {
            document_id: Uuid::now_v7(),
            chunk_content: content.into(),
            chunk_index: 0,
            score: 1.0,
            metadata: serde_json::json!({}),
            highlights: None,
            feedback: None,
        }
    }

    #[test]
    fn sources_are_numbered_in_rank_order() {
        let messages = prompt(" why? ", &[chunk("first"), chunk("second")]);
        assert_eq!(
            messages[1].content,
            "Sources:\n\n[1] first\n\n[2] second\n\nQuestion: why?"
        );
    }

    #[test]
    fn citations_in_the_order_first_cited_without_repeats_or_strangers() {
        let chunks = [chunk("a"), chunk("b"), chunk("c")];
        let answer = "C says so [3]. B agrees [2, 3][3]; see [9], [x] and [1 and 2].";
        let cited: Vec<_> = citations(answer, &chunks)
            .into_iter()
            .map(|c| c.chunk_content)
            .collect();
        assert_eq!(cited, ["c", "b"]);
    }
}
