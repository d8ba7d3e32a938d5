//! The members' feedback list sorted by customer value (#40): `GET /v1/feedback?sort=mrr` (and
//! `must_have`, and `top` beside them) on one project of 100,000 entries and 1,000,000 upvotes
//! from 50,000 end users of 2,000 companies, pages 1 to 5 of 50; and one entry's voters.
//! benches/README.md has the figures.

use std::time::{Duration, Instant};

use clap::Parser;
use shipmate_benches::{ms, percentile, start};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = 100_000)]
    entries: i64,
    /// Upvotes per entry (from distinct end users).
    #[arg(long, default_value_t = 10)]
    votes_per_entry: i64,
    #[arg(long, default_value_t = 50_000)]
    end_users: i64,
    #[arg(long, default_value_t = 2_000)]
    companies: i64,
    /// Requests measured per sort, one at a time (after 20 to warm up).
    #[arg(long, default_value_t = 200)]
    requests: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let bench = start(&[]).await?;
    let (project, _) = bench.project("value-bench").await?;
    let db = sqlx::PgPool::connect(&bench.db_url).await?;
    let t = Instant::now();
    // The same rows the api writes, made in bulk; the entries' value is then summed as a vote's
    // recount would (one statement for all).
    let seed = format!(
        "insert into companies (id, project_id, external_id, name, mrr, plan)
         select gen_random_uuid(), '{project}', 'c' || i, 'Company ' || i, (i * 37) % 5000, 'plan ' || (i % 4)
         from generate_series(1, {companies}) i;
         insert into end_users (id, project_id, sub, name, email, company_id)
         select gen_random_uuid(), '{project}', 'u' || i, 'User ' || i, 'u' || i || '@example.com',
                (select id from companies where project_id = '{project}' and external_id = 'c' || (1 + i % {companies}))
         from generate_series(1, {users}) i;
         insert into feedback (id, project_id, title, type, status, moderation, on_roadmap, created_at)
         select gen_random_uuid(), '{project}', 'Request ' || i, 'feature', 'planned', 'approved', true,
                now() - i * interval '1 minute'
         from generate_series(1, {entries}) i;
         create temporary table u as
             select row_number() over (order by id) - 1 as n, id from end_users where project_id = '{project}';
         create temporary table f as
             select row_number() over (order by id) - 1 as n, id from feedback where project_id = '{project}';
         insert into feedback_votes (feedback_id, end_user_id, value, importance)
         select f.id, u.id, 1, (array['nice_to_have', 'important', 'must_have'])[1 + (f.n + k) % 3]
         from f cross join generate_series(0, {per} - 1) k
         join u on u.n = (f.n * 7 + k * 4999) % {users};
         update feedback e set upvotes = c.up, nice_to_have = c.nice, important = c.imp, must_have = c.must
         from (select feedback_id, count(*) as up,
                      count(*) filter (where importance = 'nice_to_have') as nice,
                      count(*) filter (where importance = 'important') as imp,
                      count(*) filter (where importance = 'must_have') as must
               from feedback_votes group by feedback_id) c
         where e.id = c.feedback_id;
         update feedback e set mrr = c.mrr
         from (select d.feedback_id, sum(co.mrr) as mrr
               from (select distinct v.feedback_id, eu.company_id from feedback_votes v
                     join end_users eu on eu.id = v.end_user_id) d
               join companies co on co.id = d.company_id group by d.feedback_id) c
         where e.id = c.feedback_id;",
        companies = a.companies,
        users = a.end_users,
        entries = a.entries,
        per = a.votes_per_entry,
    );
    sqlx::raw_sql(&seed).execute(&db).await?;
    // One statement each: VACUUM refuses to run inside the seed's implicit transaction.
    for table in ["feedback", "feedback_votes", "end_users", "companies"] {
        sqlx::raw_sql(&format!("vacuum analyze {table}"))
            .execute(&db)
            .await?;
    }
    let votes: i64 = sqlx::query_scalar!(r#"select count(*) as "n!" from feedback_votes"#)
        .fetch_one(&db)
        .await?;
    println!(
        "customer value: {} entries, {votes} upvotes, {} end users of {} companies (seeded in {:.1} s)",
        a.entries,
        a.end_users,
        a.companies,
        t.elapsed().as_secs_f64()
    );

    for sort in ["mrr", "must_have", "top"] {
        let mut took = Vec::with_capacity(a.requests);
        for i in 0..a.requests + 20 {
            let page = 1 + i % 5;
            let url = format!(
                "{}/v1/feedback?project_id={project}&sort={sort}&per_page=50&page={page}",
                bench.base
            );
            let t = Instant::now();
            let res = bench.http.get(url).bearer_auth(&bench.token).send().await?;
            anyhow::ensure!(res.status().is_success(), "{sort}: {}", res.status());
            let _ = res.bytes().await?;
            if i >= 20 {
                took.push(t.elapsed());
            }
        }
        report(
            &format!("members' list, sort={sort}, pages 1-5 of 50"),
            &mut took,
        );
    }

    let top: uuid::Uuid = sqlx::query_scalar!(
        "select id from feedback where project_id = $1::text::uuid order by mrr desc limit 1",
        project
    )
    .fetch_one(&db)
    .await?;
    let mut took = Vec::with_capacity(a.requests);
    for i in 0..a.requests + 20 {
        let t = Instant::now();
        let res = bench
            .http
            .get(format!("{}/v1/feedback/{top}/voters", bench.base))
            .bearer_auth(&bench.token)
            .send()
            .await?;
        anyhow::ensure!(res.status().is_success(), "voters: {}", res.status());
        let _ = res.bytes().await?;
        if i >= 20 {
            took.push(t.elapsed());
        }
    }
    report("one entry's voters", &mut took);
    bench.finish().await
}

fn report(what: &str, took: &mut [Duration]) {
    println!(
        "{what}: p50 {}, p95 {}, p99 {} ({} requests)",
        ms(percentile(took, 50.0)),
        ms(percentile(took, 95.0)),
        ms(percentile(took, 99.0)),
        took.len()
    );
}
