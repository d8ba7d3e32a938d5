//! Search gaps: what people searched the project's indexes for and did not find (no result, or
//! only low-confidence ones), with queries close in meaning taken as one gap.

use std::collections::HashMap;

use sqlx::types::chrono::NaiveDate;
use sqlx::PgPool;
use uuid::Uuid;

use super::search_stats;
use shipmate_core::AppResult;

/// Queries whose embeddings (the bundled local model's) are at least this similar are one gap:
/// MiniLM puts rewordings of one question above it and different questions on a topic below.
pub const SAME_GAP: f32 = 0.7;

/// A query people were not helped by, and how often.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    pub query: String,
    pub searches: i64,
}

/// The queries of every index of the project from `from` to `to` that found nothing, or whose
/// mean top similarity is under `low`, most searched first. A query's searches are its empty
/// ones, or all of them when it is low confidence; summed over the indexes.
pub async fn missed(
    db: &PgPool,
    project_id: Uuid,
    from: NaiveDate,
    to: NaiveDate,
    low: f64,
) -> AppResult<Vec<Missed>> {
    let indexes = sqlx::query_scalar!(
        "select id from kb_indexes where project_id = $1",
        project_id
    )
    .fetch_all(db)
    .await?;
    let mut searches: HashMap<String, i64> = HashMap::new();
    for index in indexes {
        let r = search_stats::read(db, index, from, to, low).await?;
        let mut here: HashMap<String, i64> = HashMap::new();
        for q in r.no_result_queries {
            here.insert(q.query, q.count);
        }
        for q in r.low_confidence_queries {
            let n = here.entry(q.query).or_default();
            *n = (*n).max(q.count);
        }
        for (query, n) in here {
            *searches.entry(query).or_default() += n;
        }
    }
    let mut out: Vec<Missed> = searches
        .into_iter()
        .map(|(query, searches)| Missed { query, searches })
        .collect();
    out.sort_by(|a, b| {
        b.searches
            .cmp(&a.searches)
            .then_with(|| a.query.cmp(&b.query))
    });
    Ok(out)
}

/// Groups `missed` (most searched first, each with its unit-length embedding): a query joins the
/// first group whose leading query it is [`SAME_GAP`] similar to, else leads a new one. Answers
/// each group's leader, its searches summed, and the leader's embedding; most searched first.
pub fn group(missed: Vec<(Missed, Vec<f32>)>) -> Vec<(Missed, Vec<f32>)> {
    let mut groups: Vec<(Missed, Vec<f32>)> = Vec::new();
    for (m, v) in missed {
        let same = groups
            .iter_mut()
            .find(|(_, lead)| cosine(lead, &v) >= SAME_GAP);
        match same {
            Some((lead, _)) => lead.searches += m.searches,
            None => groups.push((m, v)),
        }
    }
    groups.sort_by(|(a, _), (b, _)| {
        b.searches
            .cmp(&a.searches)
            .then_with(|| a.query.cmp(&b.query))
    });
    groups
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| {
        v.iter()
            .map(|x| x * x)
            .sum::<f32>()
            .sqrt()
            .max(f32::EPSILON)
    };
    dot / (norm(a) * norm(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missed(query: &str, searches: i64) -> Missed {
        Missed {
            query: query.into(),
            searches,
        }
    }

    #[test]
    fn close_queries_are_one_gap_led_by_the_most_searched() {
        let groups = group(vec![
            (missed("export invoices", 5), vec![1.0, 0.0, 0.0]),
            (missed("dark mode", 4), vec![0.0, 1.0, 0.0]),
            (missed("invoice export", 3), vec![0.9, 0.1, 0.0]),
            (missed("sso", 1), vec![0.0, 0.0, 1.0]),
        ]);
        let led: Vec<_> = groups
            .into_iter()
            .map(|(m, _)| (m.query, m.searches))
            .collect();
        assert_eq!(
            led,
            [
                ("export invoices".to_owned(), 8),
                ("dark mode".to_owned(), 4),
                ("sso".to_owned(), 1)
            ]
        );
    }
}
