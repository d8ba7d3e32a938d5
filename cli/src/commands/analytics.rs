//! `shipmate stats`: the overview and the top pages of a period.

use serde_json::{json, Value};

use super::{project_id, Ctx};
use crate::cli::StatsArgs;
use crate::client::Auth;
use crate::output::{align_right, items, pairs, print_json, print_table, table, text};

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
        return print_json(&json!({ "overview": overview, "pages": pages }));
    }
    println!("Last {} days ({})", args.period.days(), args.period);
    let summary = pairs(&[
        ("Page views", text(&overview["page_views"])),
        ("Unique visitors", text(&overview["unique_visitors"])),
        ("Top page", text(&overview["top_page"])),
        ("Top referrer", text(&overview["top_referrer"])),
    ]);
    println!("{summary}");
    println!();
    let mut t = table(&["PAGE", "VIEWS", "VISITORS"]);
    for p in items(&pages, "data") {
        t.add_row(vec![
            text(&p["page"]),
            count(&p["views"]),
            count(&p["visitors"]),
        ]);
    }
    align_right(&mut t, &[1, 2]);
    print_table(&t, "No page views in this period.");
    Ok(())
}

fn count(v: &Value) -> String {
    v.as_i64().map_or_else(|| text(v), |n| n.to_string())
}
