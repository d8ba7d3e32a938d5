//! `shipmate stats`: the overview and the top pages of a period.

use serde_json::json;
use shipmate_types::analytics::{Breakdown, Overview, PageRow};

use super::project_id;
use crate::cli::StatsArgs;
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, or_dash, pairs, print_json, print_table, table};

pub async fn stats(ctx: &Ctx, args: StatsArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let query = [
        ("project_id", pid.as_str()),
        ("period", args.period.as_str()),
    ];
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
