//! Search analytics' writes: every search logged per index (query, mode, filter keys, result
//! count, top similarity, time), and the results people open reported as clicks. The reads and the
//! daily rollups are in `search_stats`.

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
pub struct Logged<'a> {
    pub index_id: Uuid,
    pub query: &'a str,
    pub mode: SearchMode,
    pub filter_keys: Vec<String>,
    pub results: usize,
    /// The best cosine similarity (vector and hybrid searches).
    pub top_score: Option<f64>,
}

/// Logs the search; answers its id. The row is committed without waiting for the WAL to reach
/// the disk (`synchronous_commit` off for this statement alone): it is the record of a read, not
/// an accepted write, and a crash of PostgreSQL may lose at most the last moment's rows, never
/// leave a wrong one; the search does not wait for the flush.
pub async fn log(db: &PgPool, s: Logged<'_>) -> AppResult<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query!(
        "with async_commit as (select set_config('synchronous_commit', 'off', true))
         insert into kb_searches (id, index_id, query, query_key, mode, filter_keys, results, top_score)
         select $1, $2, $3, $4, $5, $6, $7, $8 from async_commit",
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
        // snapshot) see the rows it wrote.
        let until = sqlx::query_scalar!("select until from kb_search_rolled for share")
            .fetch_one(&mut *tx)
            .await?;
        sqlx::query!(
            "update kb_search_daily d set clicked = d.clicked + 1
             from kb_searches s
             where s.id = $1 and (select count(*) from kb_search_clicks k where k.search_id = $1) = 1
               and (s.created_at at time zone 'utc')::date <= $2
               and d.index_id = s.index_id and d.day = (s.created_at at time zone 'utc')::date
               and d.query_key = s.query_key",
            search_id,
            until
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
