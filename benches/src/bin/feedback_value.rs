//! The members' feedback list sorted by customer value (#40): `GET /v1/feedback?sort=mrr` (and
//! `must_have`, and `top` beside them) on one project of 100,000 entries and 1,000,000 upvotes
//! from 50,000 end users of 2,000 companies, pages 1 to 5 of 50; one entry's voters; and the public
//! board read anonymously, before and after a private and a segment board take a tenth each.
//! benches/README.md has the figures.

use std::time::{Duration, Instant};

use clap::Parser;
use shipmate_benches::{ms, percentile, start};

const SLUG: &str = "value-bench";

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
    /// Drops this index after seeding (repeatable): what it is worth, measured back to back.
    #[arg(long = "drop-index", value_name = "NAME")]
    drop_index: Vec<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let bench = start(&[]).await?;
    let (project, _) = bench.project(SLUG).await?;
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
    for index in &a.drop_index {
        sqlx::raw_sql(&format!("drop index {index}"))
            .execute(&db)
            .await?;
    }
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
        let mut took = measure(&bench, a.requests, Some(&bench.token), |page| {
            format!("/v1/feedback?project_id={project}&sort={sort}&per_page=50&page={page}")
        })
        .await?;
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
    let mut took = measure(&bench, a.requests, Some(&bench.token), |_| {
        format!("/v1/feedback/{top}/voters")
    })
    .await?;
    report("one entry's voters", &mut took);

    // What board visibility costs the public's reads: the anonymous board (sort=top) with the
    // default board only (no filter), then with a private and a segment board holding a tenth of
    // the entries each (the listing keeps to the public board).
    let public = |page: usize| format!("/v1/feedback/by-project/{SLUG}?per_page=50&page={page}");
    let mut took = measure(&bench, a.requests, None, public).await?;
    report("public board, one board", &mut took);
    for (slug, mut body) in [
        ("internal", serde_json::json!({"visibility": "private"})),
        (
            "enterprise",
            serde_json::json!({"visibility": "segment", "segment": {"plan": "enterprise"}}),
        ),
    ] {
        body["name"] = slug.into();
        body["slug"] = slug.into();
        let res = bench
            .http
            .post(format!("{}/v1/projects/{project}/boards", bench.base))
            .bearer_auth(&bench.token)
            .json(&body)
            .send()
            .await?;
        anyhow::ensure!(res.status().is_success(), "board: {}", res.status());
    }
    sqlx::raw_sql(&format!(
        "update feedback f set board_id = b.id from feedback_boards b
         where b.project_id = '{project}' and f.project_id = '{project}'
           and b.slug = (case get_byte(uuid_send(f.id), 15) % 10 when 0 then 'internal'
                                                                 when 1 then 'enterprise' end)"
    ))
    .execute(&db)
    .await?;
    sqlx::raw_sql("vacuum analyze feedback")
        .execute(&db)
        .await?;
    let mut took = measure(&bench, a.requests, None, public).await?;
    report(
        "public board, three boards (private and segment a tenth each)",
        &mut took,
    );
    bench.finish().await
}

/// `requests` timed GETs one at a time (after 20 to warm up), `path(i)` each, with a session or none.
async fn measure(
    bench: &shipmate_benches::Bench,
    requests: usize,
    token: Option<&str>,
    path: impl Fn(usize) -> String,
) -> anyhow::Result<Vec<Duration>> {
    let mut took = Vec::with_capacity(requests);
    for i in 0..requests + 20 {
        let url = format!("{}{}", bench.base, path(1 + i % 5));
        let t = Instant::now();
        let mut req = bench.http.get(&url);
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let res = req.send().await?;
        anyhow::ensure!(res.status().is_success(), "{url}: {}", res.status());
        let _ = res.bytes().await?;
        if i >= 20 {
            took.push(t.elapsed());
        }
    }
    Ok(took)
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
