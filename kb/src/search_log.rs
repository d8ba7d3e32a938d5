//! Search analytics: every search logged per index (query, mode, filter keys, result count, top
//! similarity, time), the results people open reported as clicks, and the index's read over a
//! range of days: top, no-result and low-confidence queries, no-result and click-through rates.

use sqlx::types::chrono::NaiveDate;
use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::{AppError, AppResult};
pub use shipmate_types::search_analytics::{
    ClickRecorded, LowConfidenceQuery, QueryCount, SearchAnalytics, SearchClick, TopQuery,
};
use shipmate_types::SearchMode;

/// Each list of the read holds at most this many queries.
const LIST: usize = 20;

/// How analytics groups queries: lowercase, runs of white space as one space.
pub fn key(query: &str) -> String {
    query
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One search as it is logged.
pub struct Logged<'a> {
    pub index_id: Uuid,
    pub query: &'a str,
    pub mode: SearchMode,
    pub filter_keys: Vec<String>,
    pub results: usize,
    /// The best cosine similarity (vector and hybrid searches).
    pub top_score: Option<f64>,
}

/// Logs the search; answers its id.
pub async fn log(db: &PgPool, s: Logged<'_>) -> AppResult<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query!(
        "insert into kb_searches (id, index_id, query, query_key, mode, filter_keys, results, top_score)
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
        id,
        s.index_id,
        s.query,
        key(s.query),
        s.mode.as_str(),
        &s.filter_keys,
        i32::try_from(s.results).unwrap_or(i32::MAX),
        s.top_score
    )
    .execute(db)
    .await?;
    Ok(id)
}

/// Records that a result of the search was opened (once per document; a repeat changes nothing).
/// A search of another index is not found.
pub async fn click(db: &PgPool, index_id: Uuid, search_id: Uuid, c: &SearchClick) -> AppResult<()> {
    let done = sqlx::query!(
        "insert into kb_search_clicks (search_id, document_id, position)
         select id, $3, $4 from kb_searches where id = $1 and index_id = $2
         on conflict (search_id, document_id) do nothing",
        search_id,
        index_id,
        c.document_id,
        c.position
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        let known = sqlx::query_scalar!(
            r#"select exists (select 1 from kb_searches where id = $1 and index_id = $2) as "known!""#,
            search_id,
            index_id
        )
        .fetch_one(db)
        .await?;
        if !known {
            return Err(AppError::not_found("search"));
        }
    }
    Ok(())
}

/// One query's figures over the range.
struct Group {
    query: String,
    count: i64,
    avg_top_score: Option<f64>,
    empty: i64,
    clicked: i64,
}

/// The index's searches from `from` to `to` (UTC days, both included); `low` is the similarity
/// under which a query's mean top score is low confidence.
pub async fn read(
    db: &PgPool,
    index_id: Uuid,
    from: NaiveDate,
    to: NaiveDate,
    low: f64,
) -> AppResult<Reading> {
    let start = from.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    let end = to
        .succ_opt()
        .unwrap_or(to)
        .and_hms_opt(0, 0, 0)
        .unwrap_or_default()
        .and_utc();
    let groups = sqlx::query_as!(
        Group,
        r#"select s.query_key as "query!", count(*) as "count!", avg(s.top_score) as avg_top_score,
                  count(*) filter (where s.results = 0) as "empty!",
                  count(*) filter (where exists (
                      select 1 from kb_search_clicks c where c.search_id = s.id)) as "clicked!"
           from kb_searches s
           where s.index_id = $1 and s.created_at >= $2 and s.created_at < $3
           group by s.query_key"#,
        index_id,
        start,
        end
    )
    .fetch_all(db)
    .await?;
    Ok(Reading::of(groups, low))
}

/// The read's figures, before the api adds the range.
pub struct Reading {
    pub searches: i64,
    pub no_result_rate: f64,
    pub click_through_rate: f64,
    pub top_queries: Vec<TopQuery>,
    pub no_result_queries: Vec<QueryCount>,
    pub low_confidence_queries: Vec<LowConfidenceQuery>,
}

impl Reading {
    fn of(mut groups: Vec<Group>, low: f64) -> Reading {
        let searches: i64 = groups.iter().map(|g| g.count).sum();
        let rate = |n: i64| {
            if searches == 0 {
                0.0
            } else {
                n as f64 / searches as f64
            }
        };
        let empty: i64 = groups.iter().map(|g| g.empty).sum();
        let clicked: i64 = groups.iter().map(|g| g.clicked).sum();
        // Most searched first; ties by the query, so the lists are stable.
        groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.query.cmp(&b.query)));
        let mut no_result: Vec<QueryCount> = groups
            .iter()
            .filter(|g| g.empty > 0)
            .map(|g| QueryCount {
                query: g.query.clone(),
                count: g.empty,
            })
            .collect();
        no_result.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.query.cmp(&b.query)));
        no_result.truncate(LIST);
        let low_confidence = groups
            .iter()
            .filter_map(|g| {
                let avg = g.avg_top_score.filter(|s| *s < low)?;
                Some(LowConfidenceQuery {
                    query: g.query.clone(),
                    count: g.count,
                    avg_top_score: avg,
                })
            })
            .take(LIST)
            .collect();
        Reading {
            searches,
            no_result_rate: rate(empty),
            click_through_rate: rate(clicked),
            top_queries: groups
                .iter()
                .take(LIST)
                .map(|g| TopQuery {
                    query: g.query.clone(),
                    count: g.count,
                    avg_top_score: g.avg_top_score,
                    clicks: g.clicked,
                })
                .collect(),
            no_result_queries: no_result,
            low_confidence_queries: low_confidence,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::key;

    #[test]
    fn queries_group_whatever_their_case_and_spacing() {
        assert_eq!(key("  Reset   my PASSWORD "), "reset my password");
        assert_eq!(key("reset\tmy\npassword"), "reset my password");
    }
}
