//! Search: nearest chunks by cosine similarity (`vector`), PostgreSQL full-text rank (`keyword`),
//! or both fused by reciprocal rank (`hybrid`), each narrowed by a metadata filter.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sqlx::types::Json;
use sqlx::PgPool;

use super::filter::Filter;
use super::indexes::IndexRef;
use super::typos::Widened;
use shipmate_core::AppResult;
use uuid::Uuid;

pub use shipmate_types::kb::{SearchQuery, SearchResult, SearchResults};
pub use shipmate_types::SearchMode;

/// A checked search request.
#[derive(Debug, Clone)]
pub struct Search {
    pub query: String,
    pub top_k: i64,
    pub mode: SearchMode,
    pub filter: Filter,
    /// Add each result's matching passages (`highlights`).
    pub highlight: bool,
    /// Widen misspelt words in keyword and hybrid modes (`super::typos`).
    pub typo_tolerance: bool,
}

impl From<SearchQuery> for Search {
    fn from(body: SearchQuery) -> Search {
        Search {
            query: body.query,
            top_k: body.top_k.unwrap_or(5),
            mode: body.mode.unwrap_or(SearchMode::Vector),
            filter: Filter::of(body.filter),
            highlight: body.highlight.unwrap_or(false),
            typo_tolerance: body.typo_tolerance.unwrap_or(true),
        }
    }
}

/// Below this many ready chunks an exact scan is faster than the graph and has perfect recall
/// (the default of `SHIPMATE_SEARCH_EXACT_BELOW`).
pub const EXACT_BELOW: i64 = 10_000;

/// The same under a metadata filter. Counting what passes a filter fetches every matching row
/// (the GIN index only proposes them), 5 ms at 10,000 beside the query's embedding on two cores,
/// while the graph's iterative scan keeps its recall down to a few thousand matches.
const EXACT_BELOW_FILTERED: i64 = 2_000;

/// Reciprocal rank fusion's constant: a result's fused score is the sum of 1 / (K + rank).
const RRF_K: f64 = 60.0;

/// How many candidates each list gives a hybrid search to fuse.
const HYBRID_CANDIDATES: i64 = 50;

const COLUMNS: &str = "c.document_id, c.content as chunk_content, c.ordinal as chunk_index";

/// How long an answer of [`is_small`] is reused for the same index and filter.
const SIZE_TTL: Duration = Duration::from_secs(5);

/// Answers of [`is_small`] of the last few seconds, per index and filter. Counting is on a
/// search's critical path (a filter's count reads up to 2,000 matching rows), and a tenant's
/// searches repeat the same filter: a few seconds' stale answer only picks the slower of two right
/// plans while an index crosses the threshold.
#[derive(Default)]
pub struct Sizes(Mutex<HashMap<(Uuid, String), (bool, Instant)>>);

impl Sizes {
    /// Answers beyond this many are dropped together (the next searches count again).
    const MOST: usize = 10_000;

    pub async fn is_small(
        &self,
        db: &PgPool,
        index: &IndexRef,
        filter: &Filter,
        exact_below: i64,
    ) -> AppResult<bool> {
        let key = (index.id, format!("{filter:?}"));
        let seen = |sizes: &Self| {
            let known = sizes.0.lock().unwrap_or_else(|e| e.into_inner());
            known
                .get(&key)
                .filter(|(_, at)| at.elapsed() < SIZE_TTL)
                .map(|(small, _)| *small)
        };
        if let Some(small) = seen(self) {
            return Ok(small);
        }
        let small = is_small(db, index, filter, exact_below).await?;
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if known.len() >= Self::MOST {
            known.clear();
        }
        known.insert(key, (small, Instant::now()));
        Ok(small)
    }
}

/// Whether the chunks the search may return are few enough for an exact scan (checked beside the
/// query embedding). A selective filter thus scans exactly the rows the GIN index finds.
async fn is_small(
    db: &PgPool,
    index: &IndexRef,
    filter: &Filter,
    exact_below: i64,
) -> AppResult<bool> {
    let (cond, binds) = filter.sql(2);
    let below = if filter.is_empty() {
        exact_below
    } else {
        exact_below.min(EXACT_BELOW_FILTERED)
    };
    if below <= 0 {
        return Ok(false);
    }
    let sql = format!(
        "select count(*) < {below} from (select 1 from kb_chunks c where c.index_id = $1 and c.ready{cond} limit {below}) s"
    );
    let mut q = sqlx::query_scalar(&sql).bind(index.id);
    for b in binds {
        q = q.bind(Json(b));
    }
    Ok(q.fetch_one(db).await?)
}

/// From this many dimensions up the graph holds sign bits (see the migration `kb_quantized_graph`)
/// and its candidates are re-ranked by their full vectors.
pub const QUANTIZED_FROM: i32 = 1024;

/// How many of the bit graph's nearest a search re-ranks: sign bits order the neighbourhood only
/// roughly, so the true top 10 are sought among many more. Measured on 100,000 chunks of 1,024
/// dimensions, an exact scan of the bits re-ranking its nearest 100 found all of the true top 10;
/// the graph's candidates are what lose recall (see `BITS_EF_SEARCH`).
/// Under a filter each candidate's row is read to check it, so the pool is smaller: a tenth of the
/// chunks matching means ten candidates read for each one kept.
fn rerank_pool(limit: i64, filtered: bool) -> i64 {
    match filtered {
        false => (limit * 10).clamp(100, 400),
        true => (limit * 4).clamp(40, 400),
    }
}

/// The bit graph's search breadth. Hamming distances are small integers with many ties, which
/// the graph navigates worse than cosine: at the connection's 200 (`db::connect`) it found 8.9
/// of the true top 10 on 100,000 chunks, at 800 it found 9.8, in 7 ms; comparing bits is cheap.
const BITS_EF_SEARCH: &str = "800";

/// The `limit` ready chunks closest to `query`: an exact scan when `small`, else the graph.
pub async fn vector(
    db: &PgPool,
    index: &IndexRef,
    query: &[f32],
    limit: i64,
    small: bool,
    filter: &Filter,
) -> AppResult<Vec<SearchResult>> {
    let vector = pgvector::Vector::from(query.to_vec());
    let dims = index.dimensions;
    // Past the exact threshold the graph is the plan, with the filter checked per row.
    let (cond, binds) = if small {
        filter.sql(4)
    } else {
        filter.sql_per_row(4)
    };
    // The dimensions as a literal: a partial index's predicate must be provable from the plan.
    let rows = format!("from kb_chunks c where c.index_id = $2 and c.ready and c.dims = {dims}");
    // The graph indexes are on typed expressions; the query must match them to use one.
    let sql = if small {
        format!(
            "select {COLUMNS}, (1 - (c.embedding <=> $1))::float8 as score, c.metadata
             {rows}{cond} order by c.embedding <=> $1 limit $3"
        )
    } else if dims >= QUANTIZED_FROM {
        let bits = format!("binary_quantize(c.embedding)::bit({dims})");
        let pool = rerank_pool(limit, !filter.is_empty());
        format!(
            "select {COLUMNS}, (1 - (c.embedding <=> $1))::float8 as score, c.metadata
             from (select c.* {rows}{cond}
                   order by {bits} <~> binary_quantize($1)::bit({dims}) limit {pool}) c
             order by c.embedding <=> $1 limit $3"
        )
    } else {
        let distance = format!("c.embedding::vector({dims}) <=> $1::vector({dims})");
        format!(
            "select {COLUMNS}, (1 - ({distance}))::float8 as score, c.metadata
             {rows}{cond} order by {distance} limit $3"
        )
    };
    let mut q = sqlx::query_as::<_, SearchResult>(&sql)
        .bind(&vector)
        .bind(index.id)
        .bind(limit);
    for b in binds {
        q = q.bind(Json(b));
    }
    let mut results = if !small && dims >= QUANTIZED_FROM {
        // The breadth for this statement only, so the other graphs keep the connection's.
        let mut tx = db.begin().await?;
        sqlx::query_scalar!(
            r#"select set_config('hnsw.ef_search', $1, true) as "set!""#,
            BITS_EF_SEARCH
        )
        .fetch_one(&mut *tx)
        .await?;
        let results = q.fetch_all(&mut *tx).await?;
        tx.commit().await?;
        results
    } else {
        q.fetch_all(db).await?
    };
    // Iterative scans run in relaxed order (see `db::connect`): the few rows out of order are
    // sorted here.
    results.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(results)
}

/// The `limit` ready chunks ranked highest by `ts_rank_cd` for `query`, in web-search syntax
/// (`"exact phrase"`, `or`, `-word`), its misspelt words read as `widened` says. The query is
/// read in the filter's language when it pins one, else in English (see [`super::language`]).
pub async fn keyword(
    db: &PgPool,
    index: &IndexRef,
    (query, widened): (&str, &Widened),
    limit: i64,
    filter: &Filter,
) -> AppResult<Vec<SearchResult>> {
    let config = filter
        .language()
        .and_then(super::language::config)
        .unwrap_or(super::language::DEFAULT);
    let (cond, binds) = filter.sql(7);
    let sql = format!(
        "select {COLUMNS}, ts_rank_cd(c.tsv, q)::float8 as score, c.metadata
         from kb_chunks c, kb_query($1::regconfig, $4, $5, $6) q
         where c.index_id = $2 and c.ready and c.tsv @@ q{cond}
         order by score desc, c.id limit $3"
    );
    let mut q = sqlx::query_as::<_, SearchResult>(&sql)
        .bind(config)
        .bind(index.id)
        .bind(limit)
        .bind(dashes_as_spaces(query))
        .bind(&widened.words)
        .bind(&widened.alternatives);
    for b in binds {
        q = q.bind(Json(b));
    }
    Ok(q.fetch_all(db).await?)
}

/// Keeps `-` only where it negates a word (`-word`): PostgreSQL 15's `websearch_to_tsquery`
/// fails with "tsquery stack too small" on runs of dashes (a Markdown table's `|-----|` row, a
/// pasted rule), which real queries hold.
pub(crate) fn dashes_as_spaces(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    let mut chars = query.chars().peekable();
    while let Some(c) = chars.next() {
        let negates = c == '-' && chars.peek().is_some_and(|n| n.is_alphanumeric());
        out.push(if c == '-' && !negates { ' ' } else { c });
    }
    out
}

/// How many candidates a mode asks each list for.
pub fn candidates(mode: SearchMode, top_k: i64) -> i64 {
    match mode {
        SearchMode::Hybrid => HYBRID_CANDIDATES.max(top_k),
        _ => top_k,
    }
}

/// Reciprocal rank fusion of ranked lists: each chunk scores the sum of 1 / (60 + rank) over the
/// lists it is in (rank from 1); the best `top_k`, ties in the order first seen.
pub fn fuse(lists: Vec<Vec<SearchResult>>, top_k: i64) -> Vec<SearchResult> {
    let mut fused: Vec<SearchResult> = Vec::new();
    let mut at: HashMap<(uuid::Uuid, i32), usize> = HashMap::new();
    for list in lists {
        for (rank, mut r) in list.into_iter().enumerate() {
            let add = 1.0 / (RRF_K + rank as f64 + 1.0);
            match at.get(&(r.document_id, r.chunk_index)) {
                Some(&i) => fused[i].score += add,
                None => {
                    at.insert((r.document_id, r.chunk_index), fused.len());
                    r.score = add;
                    fused.push(r);
                }
            }
        }
    }
    // A stable sort keeps first-seen order among equal scores.
    fused.sort_by(|a, b| b.score.total_cmp(&a.score));
    fused.truncate(usize::try_from(top_k).unwrap_or(0));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dashes_before_a_word_stay() {
        assert_eq!(dashes_as_spaces("----- | --- x"), "      |     x");
        assert_eq!(
            dashes_as_spaces("tokio -async --sync"),
            "tokio -async  -sync"
        );
    }
    use serde_json::json;

    fn result(doc: u128, chunk: i32) -> SearchResult {
        SearchResult {
            document_id: uuid::Uuid::from_u128(doc),
            chunk_content: format!("{doc}/{chunk}"),
            chunk_index: chunk,
            score: 0.5,
            metadata: json!({}),
            highlights: None,
            feedback: None,
        }
    }

    #[test]
    fn fusion_adds_reciprocal_ranks_and_favours_chunks_in_both_lists() {
        let vector = vec![result(1, 0), result(2, 0), result(3, 1)];
        let keyword = vec![result(3, 1), result(4, 0)];
        let fused = fuse(vec![vector, keyword], 3);
        assert_eq!(fused.len(), 3);
        assert_eq!(fused[0].chunk_content, "3/1");
        assert!((fused[0].score - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-12);
        assert_eq!(fused[1].chunk_content, "1/0");
        assert!((fused[1].score - 1.0 / 61.0).abs() < 1e-12);
        // Rank 2 in either list: the one seen first (the vector list's) comes first.
        assert_eq!(fused[2].chunk_content, "2/0");
    }
}
