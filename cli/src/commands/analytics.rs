//! `shipmate stats`: the overview and the top pages of a period (or one read as CSV);
//! `shipmate analytics realtime`: who is on the site now.

use serde_json::json;
use shipmate_types::analytics::{Breakdown, Overview, PageRow, Realtime};

use super::project_id;
use crate::cli::{AnalyticsCommand, RealtimeArgs, StatsArgs};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, or_dash, pairs, print_json, print_table, table};

pub async fn stats(ctx: &Ctx, args: StatsArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let query = [
        ("project_id", pid.as_str()),
        ("period", args.period.as_str()),
    ];
    if let Some(read) = &args.csv {
        let path = format!("/v1/analytics/{read}");
        print!(
            "{}",
            ctx.client
                .get_text(&path, Auth::Session, &query, "text/csv")
                .await?
        );
        return Ok(());
    }
    let (overview, pages) = tokio::try_join!(
        ctx.client
            .get("/v1/analytics/overview", Auth::Session, &query),
        ctx.client.get("/v1/analytics/pages", Auth::Session, &query),
    )?;
    if ctx.json {
        // Two answers in one document, each as the server sent it.
        return print_json(&json!({ "overview": overview.json, "pages": pages.json }));
    }
    let overview: Overview = overview.decode()?;
    let pages: Breakdown<PageRow> = pages.decode()?;
    println!("Last {} days ({})", args.period.days(), args.period);
    let summary = pairs(&[
        ("Page views", overview.page_views.to_string()),
        ("Unique visitors", overview.unique_visitors.to_string()),
        ("Top page", or_dash(overview.top_page)),
        ("Top referrer", or_dash(overview.top_referrer)),
    ]);
    println!("{summary}");
    println!();
    let mut t = table(&["PAGE", "VIEWS", "VISITORS"]);
    for p in pages.data {
        t.add_row(vec![p.page, p.views.to_string(), p.visitors.to_string()]);
    }
    align_right(&mut t, &[1, 2]);
    print_table(&t, "No page views in this period.");
    Ok(())
}

pub async fn run(ctx: &Ctx, command: AnalyticsCommand) -> anyhow::Result<()> {
    match command {
        AnalyticsCommand::Realtime(args) => realtime(ctx, args).await,
    }
}

async fn realtime(ctx: &Ctx, args: RealtimeArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let query = [("project_id", pid.as_str())];
    let path = "/v1/analytics/realtime";
    if args.csv {
        print!(
            "{}",
            ctx.client
                .get_text(path, Auth::Session, &query, "text/csv")
                .await?
        );
        return Ok(());
    }
    let answer = ctx.client.get(path, Auth::Session, &query).await?;
    if ctx.json {
        return print_json(&answer.json);
    }
    let now: Realtime = answer.decode()?;
    let summary = pairs(&[
        ("Visitors (last 5 minutes)", now.visitors.to_string()),
        ("Page views (last 30 minutes)", now.page_views.to_string()),
    ]);
    println!("{summary}");
    println!();
    let mut t = table(&["PAGE", "VISITORS"]);
    for p in now.pages {
        t.add_row(vec![p.page, p.visitors.to_string()]);
    }
    align_right(&mut t, &[1]);
    print_table(&t, "No page views in the last 5 minutes.");
    Ok(())
}
