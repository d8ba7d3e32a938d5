//! Search analytics' reads: an index's searches over a range of days, from the daily rollups of
//! closed days and the logged searches of the days not yet rolled; and the roll-up itself, which
//! the workers' housekeeping runs every minute (idempotent: one roll-up at a time, each day once).

use std::collections::HashMap;

use sqlx::types::chrono::{NaiveDate, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::AppResult;
pub use shipmate_types::search_analytics::{LowConfidenceQuery, QueryCount, TopQuery};

/// Each list of the read holds at most this many queries.
const LIST: usize = 20;

/// One query's figures over the range (summed from rollups and logged searches).
#[derive(Default)]
struct Group {
    count: i64,
    empty: i64,
    clicked: i64,
    score_sum: f64,
    scored: i64,
}

/// One row of either source.
struct Row {
    query_key: String,
    searches: i64,
    empty: i64,
    clicked: i64,
    score_sum: f64,
    scored: i64,
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
    let mut tx = db.begin().await?;
    // One snapshot: a roll-up committing between the two reads would count its days twice.
    sqlx::query!("set transaction isolation level repeatable read")
        .execute(&mut *tx)
        .await?;
    let rolled = sqlx::query_as!(
        Row,
        r#"select query_key as "query_key!", sum(searches) as "searches!", sum(empty) as "empty!",
                  sum(clicked) as "clicked!", sum(score_sum) as "score_sum!", sum(scored) as "scored!"
           from kb_search_daily
           where index_id = $1 and day between $2 and least($3, (select until from kb_search_rolled))
           group by query_key"#,
        index_id,
        from,
        to
    )
    .fetch_all(&mut *tx)
    .await?;
    let fresh = sqlx::query_as!(
        Row,
        r#"select s.query_key, count(*) as "searches!",
                  count(*) filter (where s.results = 0) as "empty!",
                  count(*) filter (where exists (
                      select 1 from kb_search_clicks c where c.search_id = s.id)) as "clicked!",
                  coalesce(sum(s.top_score), 0) as "score_sum!", count(s.top_score) as "scored!"
           from kb_searches s
           where s.index_id = $1
             and s.created_at >= (greatest($2, (select until from kb_search_rolled) + 1))::timestamp at time zone 'utc'
             and s.created_at < ($3::date + 1)::timestamp at time zone 'utc'
           group by s.query_key"#,
        index_id,
        from,
        to
    )
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let mut groups: HashMap<String, Group> = HashMap::new();
    for r in rolled.into_iter().chain(fresh) {
        let g = groups.entry(r.query_key).or_default();
        g.count += r.searches;
        g.empty += r.empty;
        g.clicked += r.clicked;
        g.score_sum += r.score_sum;
        g.scored += r.scored;
    }
    Ok(Reading::of(groups.into_iter().collect(), low))
}

/// Rolls every closed day (UTC) not rolled yet into `kb_search_daily`; answers how many days. The
/// marker row's lock makes concurrent workers take turns, and a click arriving meanwhile waits for
/// it (see `search_log::click`).
pub async fn roll_up(db: &PgPool) -> AppResult<i64> {
    let yesterday = Utc::now().date_naive().pred_opt().unwrap_or_default();
    let mut tx = db.begin().await?;
    let until = sqlx::query_scalar!("select until from kb_search_rolled for update")
        .fetch_one(&mut *tx)
        .await?;
    if until >= yesterday {
        return Ok(0);
    }
    // From the first logged day after the marker (not the marker's own, which may be 1970).
    sqlx::query!(
        "insert into kb_search_daily (index_id, day, query_key, searches, empty, clicked, score_sum, scored)
         select s.index_id, (s.created_at at time zone 'utc')::date, s.query_key, count(*),
                count(*) filter (where s.results = 0),
                count(*) filter (where exists (select 1 from kb_search_clicks c where c.search_id = s.id)),
                coalesce(sum(s.top_score), 0), count(s.top_score)
         from kb_searches s
         where s.created_at >= ($1::date + 1)::timestamp at time zone 'utc'
           and s.created_at < ($2::date + 1)::timestamp at time zone 'utc'
         group by 1, 2, 3",
        until,
        yesterday
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!("update kb_search_rolled set until = $1", yesterday)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok((yesterday - until).num_days())
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
    fn of(mut groups: Vec<(String, Group)>, low: f64) -> Reading {
        let searches: i64 = groups.iter().map(|(_, g)| g.count).sum();
        let rate = |n: i64| {
            if searches == 0 {
                0.0
            } else {
                n as f64 / searches as f64
            }
        };
        let empty: i64 = groups.iter().map(|(_, g)| g.empty).sum();
        let clicked: i64 = groups.iter().map(|(_, g)| g.clicked).sum();
        let mean = |g: &Group| (g.scored > 0).then(|| g.score_sum / g.scored as f64);
        // Most searched first; ties by the query, so the lists are stable.
        groups.sort_by(|(qa, a), (qb, b)| b.count.cmp(&a.count).then_with(|| qa.cmp(qb)));
        let mut no_result: Vec<QueryCount> = groups
            .iter()
            .filter(|(_, g)| g.empty > 0)
            .map(|(q, g)| QueryCount {
                query: q.clone(),
                count: g.empty,
            })
            .collect();
        no_result.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.query.cmp(&b.query)));
        no_result.truncate(LIST);
        let low_confidence = groups
            .iter()
            .filter_map(|(q, g)| {
                let avg = mean(g).filter(|s| *s < low)?;
                Some(LowConfidenceQuery {
                    query: q.clone(),
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
                .map(|(q, g)| TopQuery {
                    query: q.clone(),
                    count: g.count,
                    avg_top_score: mean(g),
                    clicks: g.clicked,
                })
                .collect(),
            no_result_queries: no_result,
            low_confidence_queries: low_confidence,
        }
    }
}
