//! Search analytics' writes: every search logged per index (query, mode, filter keys, result
//! count, top similarity, time), and the results people open reported as clicks. The reads and the
//! rollups are in `search_stats`.

use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::{AppError, AppResult};
pub use shipmate_types::search_analytics::{ClickRecorded, SearchAnalytics, SearchClick};
use shipmate_types::SearchMode;

/// How analytics groups queries: lowercase, runs of white space as one space.
pub fn key(query: &str) -> String {
    query
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One search as it is logged.
#[derive(serde::Serialize)]
pub struct Logged {
    pub id: Uuid,
    pub index_id: Uuid,
    pub query: String,
    pub query_key: String,
    pub mode: &'static str,
    pub filter_keys: Vec<String>,
    pub results: i32,
    /// The best cosine similarity (vector and hybrid searches).
    pub top_score: Option<f64>,
}

impl Logged {
    pub fn new(
        index_id: Uuid,
        (query, mode): (&str, SearchMode),
        filter_keys: Vec<String>,
        results: usize,
        top_score: Option<f64>,
    ) -> Logged {
        Logged {
            id: Uuid::now_v7(),
            index_id,
            query: query.to_owned(),
            query_key: key(query),
            mode: mode.as_str(),
            filter_keys,
            results: i32::try_from(results).unwrap_or(i32::MAX),
            top_score,
        }
    }
}

/// Writes logged searches in one statement, committed without waiting for the WAL to reach the
/// disk (`synchronous_commit` off for this transaction alone): they are the record of reads, not
/// accepted writes, and a crash of PostgreSQL may lose at most the last moment's rows, never leave
/// a wrong one.
pub async fn write(db: &PgPool, rows: &[Logged]) -> AppResult<()> {
    sqlx::query!(
        "with async_commit as (select set_config('synchronous_commit', 'off', true))
         insert into kb_searches (id, index_id, query, query_key, mode, filter_keys, results, top_score)
         select r.id, r.index_id, r.query, r.query_key, r.mode, r.filter_keys, r.results, r.top_score
         from async_commit, jsonb_to_recordset($1) as r(id uuid, index_id uuid, query text,
              query_key text, mode text, filter_keys text[], results int, top_score float8)",
        sqlx::types::Json(rows) as _
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Records that a result of the search was opened (once per document; a repeat changes nothing).
/// A search of another index is not found. The first click of a search whose day is already
/// rolled up counts in its rollup too, so the figures stay exact.
pub async fn click(db: &PgPool, index_id: Uuid, search_id: Uuid, c: &SearchClick) -> AppResult<()> {
    let mut tx = db.begin().await?;
    let done = sqlx::query!(
        "insert into kb_search_clicks (search_id, document_id, position)
         select id, $3, $4 from kb_searches where id = $1 and index_id = $2
         on conflict (search_id, document_id) do nothing",
        search_id,
        index_id,
        c.document_id,
        c.position
    )
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 1 {
        // A roll-up in progress holds the marker: wait for it, then (a new statement, a new
        // snapshot) see the rows it wrote. A search already rolled counts its first click in
        // each block holding its day.
        let rolled_to = sqlx::query_scalar!("select rolled_to from kb_search_rolled for share")
            .fetch_one(&mut *tx)
            .await?;
        sqlx::query!(
            "update kb_search_rollups r set clicked = r.clicked + 1
             from kb_searches s, (select (created_at at time zone 'utc')::date as day
                                  from kb_searches where id = $1) d, generate_series(0, $3) k
             where s.id = $1 and s.created_at < $2
               and (select count(*) from kb_search_clicks c where c.search_id = $1) = 1
               and r.index_id = s.index_id and r.query_key = s.query_key and r.span = k
               and r.start = d.day - ((d.day - date '1970-01-01') % (1 << k))",
            search_id,
            rolled_to,
            crate::search_stats::SPANS as i32
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
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

#[cfg(test)]
mod tests {
    use super::key;

    #[test]
    fn queries_group_whatever_their_case_and_spacing() {
        assert_eq!(key("  Reset   my PASSWORD "), "reset my password");
        assert_eq!(key("reset\tmy\npassword"), "reset my password");
    }
}
