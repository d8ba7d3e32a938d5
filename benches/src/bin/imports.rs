//! Imports of Plausible's export: one year of daily rows for `--pages` pages (and a site's
//! sources, countries, devices, browsers, operating systems, entry and exit pages and custom
//! events), zipped as Plausible's exporter writes it (stored CSVs with quoted names). Prints the
//! time to check the upload (what the api does before answering), to apply it as a worker does
//! (read, store, mark done), and the p95 of reads over 90 days that add the imported days.
//! Run: `cargo run --release -p shipmate-benches --bin imports` (see benches/README.md).

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

use chrono::{Days, Utc};
use clap::Parser;
use shipmate_analytics::imports::{apply, plausible, store};
use shipmate_benches::{ms, start};

#[derive(Parser)]
struct Args {
    /// Pages with a row every day of the year.
    #[arg(long, default_value_t = 1000)]
    pages: usize,
    /// Reads of each read over 90 days (its p95 is printed).
    #[arg(long, default_value_t = 20)]
    reps: usize,
}

/// One table: Plausible's header, then a row per day and value.
fn table(header: &str, days: &[String], values: usize, row: impl Fn(usize) -> String) -> String {
    let mut out = header.to_owned();
    out.push('\n');
    for day in days {
        for v in 0..values {
            let _ = writeln!(out, "\"{day}\",{}", row(v));
        }
    }
    out
}

fn export(pages: usize) -> anyhow::Result<(String, Vec<u8>)> {
    let today = Utc::now().date_naive();
    let days: Vec<String> = (1..=365)
        .rev()
        .map(|n| (today - Days::new(n)).format("%Y-%m-%d").to_string())
        .collect();
    let suffix = format!(
        "{}_{}",
        days[0].replace('-', ""),
        days[364].replace('-', "")
    );
    let q = |s: &str| format!("\"{s}\"");
    let files = [
        ("visitors", table("\"date\",\"visitors\",\"pageviews\",\"bounces\",\"visits\",\"visit_duration\"", &days, 1, |_| "900,2400,300,1000,90000".into())),
        ("sources", table("\"date\",\"source\",\"referrer\",\"utm_source\",\"utm_medium\",\"utm_campaign\",\"utm_content\",\"utm_term\",\"pageviews\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\"", &days, 50, |v| format!("\"S{v}\",{},{},\"\",\"\",\"\",\"\",20,9,10,900,3", q(&format!("ref{v}.example")), q(&format!("src{}", v % 10))))),
        ("pages", table("\"date\",\"hostname\",\"page\",\"visits\",\"visitors\",\"pageviews\",\"total_scroll_depth\",\"total_scroll_depth_visits\",\"total_time_on_page\",\"total_time_on_page_visits\"", &days, pages, |v| format!("\"acme.example\",{},3,2,4,0,0,0,0", q(&format!("/page/{v}"))))),
        ("entry_pages", table("\"date\",\"entry_page\",\"visitors\",\"entrances\",\"visit_duration\",\"bounces\",\"pageviews\"", &days, 200, |v| format!("{},4,5,300,2,9", q(&format!("/page/{v}"))))),
        ("exit_pages", table("\"date\",\"exit_page\",\"visitors\",\"visit_duration\",\"exits\",\"bounces\",\"pageviews\"", &days, 200, |v| format!("{},4,300,5,2,9", q(&format!("/page/{v}"))))),
        ("custom_events", table("\"date\",\"name\",\"link_url\",\"path\",\"visitors\",\"events\"", &days, 5, |v| format!("{},\"\",\"\",3,4", q(&format!("Event {v}"))))),
        ("locations", table("\"date\",\"country\",\"region\",\"city\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"", &days, 50, |v| format!("\"{}{}\",\"\",0,10,11,500,3,25", (b'A' + (v / 26) as u8) as char, (b'A' + (v % 26) as u8) as char))),
        ("devices", table("\"date\",\"device\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"", &days, 4, |v| format!("{},200,250,20000,70,600", q(["Desktop", "Laptop", "Mobile", "Tablet"][v])))),
        ("browsers", table("\"date\",\"browser\",\"browser_version\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"", &days, 10, |v| format!("{},\"1\",90,100,9000,30,240", q(&format!("Browser {v}"))))),
        ("operating_systems", table("\"date\",\"operating_system\",\"operating_system_version\",\"visitors\",\"visits\",\"visit_duration\",\"bounces\",\"pageviews\"", &days, 8, |v| format!("{},\"1\",110,120,11000,40,300", q(&format!("OS {v}"))))),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut rows = 0;
    for (name, text) in &files {
        rows += text.lines().count() - 1;
        zip.start_file(format!("imported_{name}_{suffix}.csv"), stored)?;
        zip.write_all(text.as_bytes())?;
    }
    let bytes = zip.finish()?.into_inner();
    println!(
        "export: 365 days x {pages} pages, {rows} CSV rows in 10 files, ZIP {:.1} MB",
        bytes.len() as f64 / 1e6
    );
    Ok((
        format!("acme_example_{}.zip", days[364].replace('-', "")),
        bytes,
    ))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let b = start(&[]).await?;
    let result = async {
        let (project, _) = b.project("imports").await?;
        let db = sqlx::PgPool::connect(&b.db_url).await?;
        let (name, bytes) = export(args.pages)?;

        let t = Instant::now();
        let check = bytes.clone();
        let n = name.clone();
        tokio::task::spawn_blocking(move || plausible::tables(&n, check).map(|_| ()))
            .await?
            .map_err(|u| anyhow::anyhow!(u.0))?;
        let made = store::create(&db, project.parse()?, &name, &bytes).await?;
        println!(
            "upload checked and stored (the api's part): {}",
            ms(t.elapsed())
        );

        let t = Instant::now();
        let claimed = apply::claim(&db)
            .await?
            .ok_or_else(|| anyhow::anyhow!("no pending import"))?;
        anyhow::ensure!(apply::apply(&db, claimed).await?, "the import failed");
        let took = t.elapsed();
        let rows = store::list(&db, made.project_id)
            .await?
            .first()
            .map_or(0, |i| i.rows);
        println!(
            "import applied (read, {rows} daily rows stored, done): {:.2} s ({:.0} rows/s)",
            took.as_secs_f64(),
            rows as f64 / took.as_secs_f64()
        );
        for what in ["overview", "pages", "referrers", "devices", "timeseries"] {
            let p95 = b
                .reads_p95(
                    &[format!("{what}?project_id={project}&period=90d")],
                    args.reps,
                )
                .await?;
            println!("read {what}, 90 imported days: p95 {}", ms(p95));
        }
        anyhow::Ok(())
    }
    .await;
    b.finish().await?;
    result
}
