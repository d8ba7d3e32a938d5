//! Search analytics' reads: an index's searches over a range of days, from the rollups (blocks of
//! 1 to 128 days, see the migration `search_rollup_spans`) and the searches logged since the last
//! roll-up; and the roll-up itself, which the workers' housekeeping runs every minute (one at a
//! time, each search once).

use std::collections::HashMap;

use chrono::{DateTime, Days, NaiveDate, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::AppResult;
pub use shipmate_types::search_analytics::{LowConfidenceQuery, QueryCount, TopQuery};

/// Each list of the read holds at most this many queries.
const LIST: usize = 20;

/// The longest rollup block is 2^SPANS days.
pub const SPANS: u32 = 7;

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
    // One snapshot: a roll-up committing between the reads would count its searches twice.
    sqlx::query!("set transaction isolation level repeatable read")
        .execute(&mut *tx)
        .await?;
    let rolled_to = sqlx::query_scalar!("select rolled_to from kb_search_rolled")
        .fetch_one(&mut *tx)
        .await?;
    let (spans, starts): (Vec<i16>, Vec<NaiveDate>) =
        blocks(from, to, rolled_to.date_naive()).into_iter().unzip();
    let rolled = sqlx::query_as!(
        Row,
        r#"select r.query_key, sum(r.searches)::int8 as "searches!", sum(r.empty)::int8 as "empty!",
                  sum(r.clicked)::int8 as "clicked!", sum(r.score_sum) as "score_sum!",
                  sum(r.scored)::int8 as "scored!"
           from unnest($2::int2[], $3::date[]) b(span, start)
           join kb_search_rollups r on r.index_id = $1 and r.span = b.span and r.start = b.start
           group by r.query_key"#,
        index_id,
        &spans,
        &starts
    )
    .fetch_all(&mut *tx)
    .await?;
    // Clicks come after their searches: only those since the window opened (a minute earlier,
    // for a click whose statement started just before its search's row was written) are read.
    let fresh = sqlx::query_as!(
        Row,
        r#"with window_opens as (
             select greatest($2::date::timestamp at time zone 'utc', $4) as at
           )
           select s.query_key, count(*) as "searches!",
                  count(*) filter (where s.results = 0) as "empty!",
                  count(c.search_id) as "clicked!",
                  coalesce(sum(s.top_score), 0) as "score_sum!", count(s.top_score) as "scored!"
           from window_opens w
           join kb_searches s on s.created_at >= w.at
           left join (select distinct search_id from kb_search_clicks, window_opens w
                      where created_at >= w.at - interval '1 minute') c on c.search_id = s.id
           where s.index_id = $1
             and s.created_at < ($3::date + 1)::timestamp at time zone 'utc'
           group by s.query_key"#,
        index_id,
        from,
        to,
        rolled_to
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

/// The whole rollup blocks `(span, start)` that hold exactly the rolled searches of the days from
/// `from` to `to`, when the rollups hold nothing after the day `last`: from `from` on, each block
/// the longest that starts there (its start a multiple of its length) and ends by `to`, or past
/// it when nothing is rolled past `to`. At most two blocks of each length.
fn blocks(from: NaiveDate, to: NaiveDate, last: NaiveDate) -> Vec<(i16, NaiveDate)> {
    let epoch = NaiveDate::default();
    let day = |d: NaiveDate| (d - epoch).num_days();
    let (open, end) = (to >= last, day(to.min(last)));
    let mut at = day(from);
    let mut out = Vec::new();
    while at <= end {
        let span = (0..=SPANS)
            .rev()
            .find(|k| at % (1 << k) == 0 && (open || at + (1 << k) - 1 <= end))
            .unwrap_or(0);
        out.push((span as i16, epoch + Days::new(at as u64)));
        at += 1 << span;
    }
    out
}

/// Rolls the searches logged up to a minute ago and not rolled yet into the rollups; answers how
/// many. The marker row's lock makes concurrent workers take turns, and a click arriving meanwhile
/// waits for it (see `search_log::click`).
pub async fn roll_up(db: &PgPool) -> AppResult<i64> {
    let mut tx = db.begin().await?;
    let rolled_to = sqlx::query_scalar!("select rolled_to from kb_search_rolled for update")
        .fetch_one(&mut *tx)
        .await?;
    // A minute back: a search's row is stamped when its statement starts, so one stamped just
    // before the cut may commit after this snapshot is taken.
    let until: DateTime<Utc> = sqlx::query_scalar!(
        r#"select date_trunc('minute', now()) - interval '1 minute' as "until!""#
    )
    .fetch_one(&mut *tx)
    .await?;
    if until <= rolled_to {
        return Ok(0);
    }
    let rolled = sqlx::query_scalar!(
        r#"with logged as (
             select s.index_id, (s.created_at at time zone 'utc')::date as day, s.query_key,
                    count(*) as searches, count(*) filter (where s.results = 0) as empty,
                    count(c.hit) as clicked, coalesce(sum(s.top_score), 0) as score_sum,
                    count(s.top_score) as scored
             from kb_searches s
             left join (select distinct search_id as hit from kb_search_clicks
                        where created_at >= $1::timestamptz - interval '1 minute') c on c.hit = s.id
             where s.created_at >= $1 and s.created_at < $2
             group by 1, 2, 3
           ), added as (
             insert into kb_search_rollups as r
                    (index_id, span, start, query_key, searches, empty, clicked, score_sum, scored)
             select index_id, k, day - ((day - date '1970-01-01') % (1 << k)), query_key,
                    sum(searches), sum(empty), sum(clicked), sum(score_sum), sum(scored)
             from logged cross join generate_series(0, $3) k
             group by 1, 2, 3, 4
             on conflict (index_id, span, start, query_key) do update
             set searches = r.searches + excluded.searches, empty = r.empty + excluded.empty,
                 clicked = r.clicked + excluded.clicked,
                 score_sum = r.score_sum + excluded.score_sum, scored = r.scored + excluded.scored
           )
           select coalesce(sum(searches), 0)::int8 as "searches!" from logged"#,
        rolled_to,
        until,
        SPANS as i32
    )
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query!("update kb_search_rolled set rolled_to = $1", until)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(rolled)
}

/// Deletes the searches (and their clicks) logged more than `days` ago and rolled up: their
/// figures stay in the rollups, and nobody clicks a month-old search. Answers how many.
pub async fn purge_log(db: &PgPool, days: i32) -> AppResult<u64> {
    let gone = sqlx::query!(
        "delete from kb_searches s using kb_indexes i
         where s.index_id = i.id
           and s.created_at < least((select rolled_to from kb_search_rolled),
                                    now() - make_interval(days => $1))",
        days
    )
    .execute(db)
    .await?;
    Ok(gone.rows_affected())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap_or_default()
    }

    /// The days a list of blocks holds, in order.
    fn days(blocks: &[(i16, NaiveDate)]) -> Vec<NaiveDate> {
        blocks
            .iter()
            .flat_map(|(k, start)| (0..1u64 << k).map(move |i| *start + Days::new(i)))
            .collect()
    }

    #[test]
    fn blocks_hold_exactly_the_range_when_more_is_rolled() {
        let (from, to) = (d("2026-01-03"), d("2026-05-20"));
        let b = blocks(from, to, d("2026-11-27"));
        let held = days(&b);
        assert_eq!(held.first(), Some(&from));
        assert_eq!(held.last(), Some(&to));
        assert!(held.windows(2).all(|w| w[1] == w[0] + Days::new(1)));
        assert!(b.len() <= 2 * (SPANS as usize + 1), "{b:?}");
        for (k, start) in b {
            let n = (start - NaiveDate::default()).num_days();
            assert_eq!(n % (1 << k), 0, "block of 2^{k} days starting {start}");
        }
    }

    #[test]
    fn a_range_reaching_the_last_rolled_day_takes_longer_blocks() {
        // 90 days up to today, rolled to yesterday: few blocks, the last running past today.
        let (from, to) = (d("2026-08-31"), d("2026-11-28"));
        let b = blocks(from, to, d("2026-11-27"));
        assert!(b.len() <= SPANS as usize + 1, "{b:?}");
        let held = days(&b);
        assert_eq!(held.first(), Some(&from));
        assert!(held.contains(&d("2026-11-27")));
        assert!(held.windows(2).all(|w| w[1] == w[0] + Days::new(1)));
    }

    #[test]
    fn nothing_rolled_in_the_range_takes_no_block() {
        assert!(blocks(d("2026-11-28"), d("2026-11-28"), d("2026-11-27")).is_empty());
    }
}
