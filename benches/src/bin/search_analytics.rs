//! Search analytics (#41): `GET /v1/indexes/:id/analytics` over 1,000,000 logged searches of one
//! index spread over the last 90 days (5,000 distinct queries, the popular ones far more often,
//! a tenth of the searches clicked 20 s later, a twentieth with no result), read over 7, 30 and 90 days,
//! before and after the log is rolled up. benches/README.md has the figures.

use std::time::{Duration, Instant};

use clap::Parser;
use shipmate_benches::{ms, percentile, start};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 1_000_000)]
    searches: i64,
    #[arg(long, default_value_t = 5_000)]
    queries: i64,
    /// Reads measured per period, one at a time (after 5 to warm up).
    #[arg(long, default_value_t = 50)]
    requests: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let bench = start(&[]).await?;
    let (_, key) = bench.project("search-stats-bench").await?;
    let index: serde_json::Value = bench
        .http
        .post(format!("{}/v1/indexes", bench.base))
        .header("X-Project-Key", &key)
        .json(&serde_json::json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"}))
        .send()
        .await?
        .json()
        .await?;
    let index_id = index["id"].as_str().unwrap_or_default().to_owned();
    let db = sqlx::PgPool::connect(&bench.db_url).await?;
    let t = Instant::now();
    // Query i of n is searched about n / i times as often as the first (a Zipf-like tail).
    sqlx::raw_sql(&format!(
        "insert into kb_searches (id, index_id, query, query_key, mode, results, top_score, created_at)
         select gen_random_uuid(), '{index_id}', q, q, 'vector',
                case when i % 20 = 0 then 0 else 5 end,
                (i % 100) / 100.0,
                now() - (i % 90) * interval '1 day' - (i % 86400) * interval '1 second'
         from (select i, 'query ' || floor(power({queries}, random()))::int as q
               from generate_series(1, {searches}) i) s;
         insert into kb_search_clicks (search_id, document_id, position, created_at)
         select id, gen_random_uuid(), 1, created_at + interval '20 seconds'
         from kb_searches where results > 0 and random() < 0.1;",
        queries = a.queries,
        searches = a.searches,
    ))
    .execute(&db)
    .await?;
    for table in ["kb_searches", "kb_search_clicks"] {
        sqlx::raw_sql(&format!("vacuum analyze {table}"))
            .execute(&db)
            .await?;
    }
    println!(
        "search analytics: {} searches of {} queries over 90 days (seeded in {:.1} s)",
        a.searches,
        a.queries,
        t.elapsed().as_secs_f64()
    );
    for rolled in [false, true] {
        if rolled {
            let t = Instant::now();
            let searches = shipmate_kb::search_stats::roll_up(&db).await?;
            sqlx::raw_sql("vacuum analyze kb_search_rollups")
                .execute(&db)
                .await?;
            println!(
                "rolled up {searches} searches (to a minute ago) in {:.1} s",
                t.elapsed().as_secs_f64()
            );
        }
        for period in ["7d", "30d", "90d"] {
            let url = format!(
                "{}/v1/indexes/{index_id}/analytics?period={period}",
                bench.base
            );
            let mut took: Vec<Duration> = Vec::with_capacity(a.requests);
            for i in 0..a.requests + 5 {
                let t = Instant::now();
                let res = bench
                    .http
                    .get(&url)
                    .header("X-Project-Key", &key)
                    .send()
                    .await?;
                anyhow::ensure!(res.status().is_success(), "{url}: {}", res.status());
                let _ = res.bytes().await?;
                if i >= 5 {
                    took.push(t.elapsed());
                }
            }
            println!(
                "analytics over {period}, {}: p50 {}, p95 {}, p99 {} ({} requests)",
                if rolled { "rolled up" } else { "from the log" },
                ms(percentile(&mut took, 50.0)),
                ms(percentile(&mut took, 95.0)),
                ms(percentile(&mut took, 99.0)),
                took.len()
            );
        }
    }
    bench.finish().await
}
