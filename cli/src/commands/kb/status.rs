//! `shipmate kb status`: an index's documents by status, and with `--wait` a progress bar of
//! documents ready over all until none is pending (a bulk load's progress); `shipmate kb
//! analytics`: what the index was searched for; `shipmate kb gaps`: what the project's indexes
//! were searched for and did not have.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};
use shipmate_types::common::List;
use shipmate_types::kb::Index;
use shipmate_types::search_analytics::{SearchAnalytics, SearchGap};

use crate::client::{Auth, Client};
use crate::commands::seg;
use crate::ctx::Ctx;
use crate::output::{plural, print_json, print_table, table};

/// How often `--wait` asks again: the counts are one query, and a bulk load takes minutes.
const POLL: Duration = Duration::from_secs(1);

/// Prints the index's counts; with `wait`, first waits until no document is pending. Fails when
/// waiting ended with failed documents, so scripts can tell.
pub async fn run(ctx: &Ctx, pid: &str, index: &str, wait: bool) -> anyhow::Result<()> {
    let now = if wait {
        until_done(&ctx.client, pid, index).await?
    } else {
        fetch(&ctx.client, pid, index).await?
    };
    if ctx.json {
        print_json(&serde_json::to_value(&now)?)?;
    } else {
        println!("{}", line(&now));
    }
    if wait {
        no_failures(&now)?;
    }
    Ok(())
}

/// Polls the index until no document is pending, with a bar of documents ready of all.
pub async fn until_done(client: &Client, pid: &str, index: &str) -> anyhow::Result<Index> {
    let mut now = fetch(client, pid, index).await?;
    let bar = bar(now.document_count);
    while now.documents_pending > 0 {
        bar.set_length(now.document_count as u64);
        bar.set_position(now.documents_ready as u64);
        tokio::time::sleep(POLL).await;
        now = fetch(client, pid, index).await?;
    }
    bar.finish_and_clear();
    Ok(now)
}

/// `docs: 9,990 of 10,000 documents ready, 0 pending, 10 failed`.
pub fn line(index: &Index) -> String {
    format!(
        "{}: {} of {} ready, {} pending, {} failed",
        index.name,
        index.documents_ready,
        plural(index.document_count as u64, "document", "documents"),
        index.documents_pending,
        index.documents_failed
    )
}

pub fn no_failures(index: &Index) -> anyhow::Result<()> {
    if index.documents_failed > 0 {
        bail!(
            "{} failed to embed; searches skip them, and each one's `error` says why",
            plural(index.documents_failed as u64, "document", "documents")
        );
    }
    Ok(())
}

async fn fetch(client: &Client, pid: &str, index: &str) -> anyhow::Result<Index> {
    Ok(client
        .get_as(
            &format!("/v1/indexes/{}", seg(index)),
            Auth::InProject(pid),
            &[],
        )
        .await?)
}

/// Documents ready of all, on stderr; hidden when stderr is not a terminal.
fn bar(len: i64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{bar:30}] {pos}/{len} ready ({per_sec}, {eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Prints the index's search analytics over `period`.
pub async fn analytics(ctx: &Ctx, pid: &str, index: &str, period: &str) -> anyhow::Result<()> {
    let path = format!("/v1/indexes/{}/analytics", seg(index));
    let read = ctx
        .client
        .get(&path, Auth::InProject(pid), &[("period", period)])
        .await?;
    ctx.show(&read, |a: SearchAnalytics| {
        println!(
            "{} from {} to {}: no result {:.1}%, clicked {:.1}%",
            plural(u64::try_from(a.searches).unwrap_or(0), "search", "searches"),
            a.from,
            a.to,
            a.no_result_rate * 100.0,
            a.click_through_rate * 100.0
        );
        let mut t = table(&["QUERY", "SEARCHES", "TOP SCORE", "CLICKS"]);
        for q in a.top_queries {
            let score = q
                .avg_top_score
                .map_or_else(|| "-".to_owned(), |s| format!("{s:.2}"));
            t.add_row(vec![
                q.query,
                q.count.to_string(),
                score,
                q.clicks.to_string(),
            ]);
        }
        print_table(&t, "No searches in this period.");
        for (title, list) in [
            (
                "No result",
                a.no_result_queries
                    .into_iter()
                    .map(|q| (q.query, q.count))
                    .collect::<Vec<_>>(),
            ),
            (
                "Low confidence",
                a.low_confidence_queries
                    .into_iter()
                    .map(|q| (q.query, q.count))
                    .collect(),
            ),
        ] {
            if !list.is_empty() {
                println!("\n{title}:");
                for (query, count) in list {
                    println!("  {count:>5}  {query}");
                }
            }
        }
        Ok(())
    })
}

/// `kb gaps`: what people searched the project's indexes for and did not find, each gap with the
/// closest public request.
pub async fn gaps(ctx: &Ctx, pid: &str, period: &str) -> anyhow::Result<()> {
    let path = format!("/v1/projects/{}/insights/search-gaps", seg(pid));
    let read = ctx
        .client
        .get(&path, Auth::Session, &[("period", period)])
        .await?;
    ctx.show(&read, |gaps: List<SearchGap>| {
        let mut t = table(&[
            "QUERY",
            "SEARCHES",
            "CLOSEST REQUEST",
            "STATUS",
            "SIMILARITY",
        ]);
        for g in gaps.data {
            let (title, status, similarity) = match g.similar_feedback {
                Some(f) => (f.title, f.status, format!("{:.0}%", f.similarity * 100.0)),
                None => ("-".into(), "-".into(), "-".into()),
            };
            t.add_row(vec![
                g.query,
                g.searches.to_string(),
                title,
                status,
                similarity,
            ]);
        }
        print_table(
            &t,
            "No gaps in this period: every search found something confident.",
        );
        Ok(())
    })
}
