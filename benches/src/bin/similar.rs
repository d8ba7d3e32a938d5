//! "Is this already asked?": `GET /v1/feedback/by-project/:slug/similar` latency on a board of
//! 10,000 embedded entries, the query's embedding included (each query is new text, so the api's
//! query cache never answers). benches/README.md has the figures.

use std::time::{Duration, Instant};

use clap::Parser;
use shipmate_benches::{ms, percentile, start};

#[derive(Parser)]
struct Args {
    /// Entries on the board.
    #[arg(long, default_value_t = 10_000)]
    entries: usize,
    /// Queries measured, one at a time.
    #[arg(long, default_value_t = 300)]
    queries: usize,
}

const VERBS: &[&str] = &[
    "Add",
    "Support",
    "Allow",
    "Improve",
    "Let us",
    "Please add",
    "Enable",
    "Make it possible to",
    "Offer",
    "Provide",
];
const OBJECTS: &[&str] = &[
    "dark mode",
    "CSV export",
    "Slack notifications",
    "two-factor login",
    "keyboard shortcuts",
    "custom domains",
    "a mobile app",
    "SAML single sign-on",
    "bulk editing",
    "an audit log",
    "webhooks for invoices",
    "PDF reports",
    "Zapier triggers",
    "team permissions",
    "recurring tasks",
    "a public API",
    "Google Sheets sync",
    "offline mode",
    "calendar integration",
    "email digests",
    "multi-currency billing",
    "image uploads in comments",
    "dashboard widgets",
    "time tracking",
    "GitHub issue links",
    "saved filters",
    "tags on projects",
    "a Kanban view",
    "Jira import",
    "read receipts",
];
const QUALIFIERS: &[&str] = &[
    "for the whole team",
    "on the free plan",
    "in the settings page",
    "for admins only",
    "with a weekly schedule",
    "from the dashboard",
    "for large accounts",
    "in every report",
    "across workspaces",
    "on mobile too",
];

fn sentence(i: usize) -> String {
    let v = VERBS[i % VERBS.len()];
    let o = OBJECTS[(i / VERBS.len()) % OBJECTS.len()];
    let q = QUALIFIERS[(i / (VERBS.len() * OBJECTS.len())) % QUALIFIERS.len()];
    format!("{v} {o} {q} #{i}")
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let bench = start(&[]).await?;
    let (project, _) = bench.project("similar-bench").await?;
    let db = sqlx::PgPool::connect(&bench.db_url).await?;
    let project: uuid::Uuid = project.parse()?;
    let titles: Vec<String> = (0..args.entries).map(sentence).collect();
    sqlx::query!(
        "insert into feedback (id, project_id, title, type, status)
         select gen_random_uuid(), $1, t, 'feature', 'planned' from unnest($2::text[]) as t",
        project,
        &titles
    )
    .execute(&db)
    .await?;
    let t = Instant::now();
    let worker = bench.start_worker(&[])?;
    loop {
        let left: i64 =
            sqlx::query_scalar!(r#"select count(*) as "n!" from feedback where embedding is null"#)
                .fetch_one(&db)
                .await?;
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let embedded = t.elapsed();
    let _ = worker.send(true);

    let mut samples = Vec::with_capacity(args.queries);
    for i in 0..args.queries + 20 {
        // New text each time: "could we get <object> <qualifier> please" (no entry has it verbatim).
        let o = OBJECTS[i % OBJECTS.len()];
        let q = QUALIFIERS[(i * 7) % QUALIFIERS.len()];
        let text = format!("could we get {o} {q} please ({i})");
        let url = format!(
            "{}/v1/feedback/by-project/similar-bench/similar?q={}",
            bench.base,
            url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>()
        );
        let t = Instant::now();
        let res = bench.http.get(url).send().await?;
        anyhow::ensure!(res.status().is_success(), "similar: {}", res.status());
        let _ = res.bytes().await?;
        // The first 20 warm the model's sessions and Postgres' buffers.
        if i >= 20 {
            samples.push(t.elapsed());
        }
    }
    println!(
        "similar entries, {} entries on one board ({} embedded by one worker in {:.1} s)",
        args.entries,
        args.entries,
        embedded.as_secs_f64()
    );
    println!(
        "  {} queries, each new text (embedding included): p50 {}, p95 {}, p99 {}",
        samples.len(),
        ms(percentile(&mut samples, 0.50)),
        ms(percentile(&mut samples, 0.95)),
        ms(percentile(&mut samples, 0.99))
    );
    bench.finish().await?;
    Ok(())
}
