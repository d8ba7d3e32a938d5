//! `shipmate stats`: the overview and the top pages of a period (or one read as CSV);
//! `shipmate analytics show|goals|properties|realtime`: any read with the same range and filters
//! as the API, as a table, JSON (`--json`) or the server's CSV (`--csv`).

use serde_json::{json, Value};
use shipmate_types::analytics::{Breakdown, Journeys, Overview, PageRow, Realtime};

use super::project_id;
use crate::cli::{AnalyticsCommand, FilterArgs, RangeArgs, ReadArgs, RealtimeArgs, StatsArgs};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, or_dash, pairs, print_json, print_table, table};

/// The query of a read: project, window and filters, plus `extra`.
async fn query(
    ctx: &Ctx,
    project: &str,
    range: Option<&RangeArgs>,
    filters: &FilterArgs,
    extra: &[(&'static str, String)],
) -> anyhow::Result<Vec<(&'static str, String)>> {
    let mut q = vec![("project_id", project_id(&ctx.client, project).await?)];
    q.extend(range.map(RangeArgs::query).unwrap_or_default());
    q.extend(filters.query());
    q.extend(extra.iter().cloned());
    Ok(q)
}

fn pairs_of<'a>(q: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    q.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

async fn csv(ctx: &Ctx, path: &str, q: &[(&'static str, String)]) -> anyhow::Result<()> {
    let text = ctx
        .client
        .get_text(path, Auth::Session, &pairs_of(q), "text/csv")
        .await?;
    print!("{text}");
    Ok(())
}

pub async fn stats(ctx: &Ctx, args: StatsArgs) -> anyhow::Result<()> {
    let q = query(
        ctx,
        &args.project.project,
        Some(&args.range),
        &args.filters,
        &[],
    )
    .await?;
    if let Some(read) = &args.csv {
        return csv(ctx, &format!("/v1/analytics/{read}"), &q).await;
    }
    let query = pairs_of(&q);
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
    match (args.range.from, args.range.to) {
        (Some(from), Some(to)) => println!("{from} to {to}"),
        _ => println!(
            "Last {} days ({})",
            args.range.period.days(),
            args.range.period
        ),
    }
    let summary = pairs(&[
        ("Page views", overview.page_views.to_string()),
        ("Unique visitors", overview.unique_visitors.to_string()),
        ("Visits", overview.visits.to_string()),
        ("Bounce rate", format!("{}%", overview.bounce_rate)),
        ("Visit duration", format!("{} s", overview.visit_duration)),
        ("Top page", or_dash(overview.top_page)),
        ("Top referrer", or_dash(overview.top_referrer)),
    ]);
    println!("{summary}");
    println!();
    // Engagement medians (sm.plus.js) when any page has them.
    let engaged = pages.data.iter().any(|p| p.scroll_depth.is_some());
    let mut t = match engaged {
        true => table(&["PAGE", "VIEWS", "VISITORS", "SCROLL", "TIME"]),
        false => table(&["PAGE", "VIEWS", "VISITORS"]),
    };
    for p in pages.data {
        let mut row = vec![p.page, p.views.to_string(), p.visitors.to_string()];
        if engaged {
            row.push(
                p.scroll_depth
                    .map_or_else(|| "-".into(), |d| format!("{d}%")),
            );
            row.push(
                p.time_on_page
                    .map_or_else(|| "-".into(), |s| format!("{s} s")),
            );
        }
        t.add_row(row);
    }
    align_right(&mut t, &[1, 2, 3, 4]);
    print_table(&t, "No page views in this period.");
    Ok(())
}

pub async fn run(ctx: &Ctx, command: AnalyticsCommand) -> anyhow::Result<()> {
    match command {
        AnalyticsCommand::Realtime(args) => realtime(ctx, args).await,
        AnalyticsCommand::Show(show) => {
            anyhow::ensure!(
                show.goal.is_none() || ["referrers", "utm"].contains(&show.read.as_str()),
                "--goal goes with referrers or utm"
            );
            let mut extra = vec![];
            if show.compare {
                extra.push(("compare", "previous".to_owned()));
            }
            extra.extend(show.goal.map(|g| ("goal", g)));
            read(
                ctx,
                &format!("/v1/analytics/{}", show.read),
                show.args,
                &extra,
            )
            .await
        }
        AnalyticsCommand::Goals(args) => read(ctx, "/v1/analytics/goals", args, &[]).await,
        AnalyticsCommand::Segments(command) => super::segments::run(ctx, command).await,
        AnalyticsCommand::Alerts(command) => super::alerts::run(ctx, command).await,
        AnalyticsCommand::Imports(command) => super::imports::run(ctx, command).await,
        AnalyticsCommand::Journeys(args) => journeys(ctx, args).await,
        AnalyticsCommand::Properties(p) => {
            read(
                ctx,
                "/v1/analytics/properties",
                p.args,
                &[("property", p.property)],
            )
            .await
        }
    }
}

/// Any read: its CSV, its JSON, or a table of its rows (the overview as pairs).
async fn read(
    ctx: &Ctx,
    path: &str,
    args: ReadArgs,
    extra: &[(&'static str, String)],
) -> anyhow::Result<()> {
    let q = query(
        ctx,
        &args.project.project,
        Some(&args.range),
        &args.filters,
        extra,
    )
    .await?;
    if args.csv {
        return csv(ctx, path, &q).await;
    }
    let answer = ctx.client.get(path, Auth::Session, &pairs_of(&q)).await?;
    if ctx.json {
        return print_json(&answer.json);
    }
    print_rows(&answer.json);
    Ok(())
}

/// A cell's text: strings as they are, null as a dash, money as its total and currency, the rest
/// as JSON.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        Value::Object(m) if m.contains_key("total") && m.contains_key("currency") => {
            format!("{} {}", cell(&m["total"]), cell(&m["currency"]))
        }
        other => other.to_string(),
    }
}

/// The answer's rows (`data`, or its first list) as a table; without a list, its fields as pairs.
fn print_rows(answer: &Value) {
    let Some(obj) = answer.as_object() else {
        return;
    };
    // `data`, else every list (UTM's sources, mediums and campaigns), each under its name.
    let lists: Vec<(&String, &Vec<Value>)> = match obj.get_key_value("data") {
        Some((k, Value::Array(rows))) => vec![(k, rows)],
        _ => obj
            .iter()
            .filter_map(|(k, v)| v.as_array().map(|rows| (k, rows)))
            .collect(),
    };
    if lists.is_empty() {
        let fields: Vec<(String, String)> = obj
            .iter()
            .flat_map(|(k, v)| match v {
                Value::Object(inner) => inner
                    .iter()
                    .map(|(ik, iv)| (format!("{k} {ik}"), cell(iv)))
                    .collect::<Vec<_>>(),
                _ => vec![(k.clone(), cell(v))],
            })
            .collect();
        let fields: Vec<(&str, String)> = fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        println!("{}", pairs(&fields));
        return;
    }
    let named = lists.len() > 1;
    for (name, rows) in lists {
        if named {
            println!("{}", name.to_uppercase());
        }
        print_list(rows);
    }
}

fn print_list(rows: &[Value]) {
    let columns: Vec<String> = rows
        .first()
        .and_then(Value::as_object)
        .map(|r| r.keys().cloned().collect())
        .unwrap_or_default();
    let headers: Vec<String> = columns.iter().map(|c| c.to_uppercase()).collect();
    let mut t = table(&headers.iter().map(String::as_str).collect::<Vec<_>>());
    for row in rows {
        t.add_row(columns.iter().map(|c| cell(&row[c])).collect::<Vec<_>>());
    }
    print_table(&t, "Nothing in this period.");
}

async fn realtime(ctx: &Ctx, args: RealtimeArgs) -> anyhow::Result<()> {
    let q = query(ctx, &args.project.project, None, &args.filters, &[]).await?;
    let path = "/v1/analytics/realtime";
    if args.csv {
        return csv(ctx, path, &q).await;
    }
    let answer = ctx.client.get(path, Auth::Session, &pairs_of(&q)).await?;
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

/// Two tables: where visits went after the page, and where they came from.
async fn journeys(ctx: &Ctx, args: ReadArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.filters.page.is_some(),
        "name the page: --page /pricing"
    );
    let q = query(
        ctx,
        &args.project.project,
        Some(&args.range),
        &args.filters,
        &[],
    )
    .await?;
    let answer = ctx
        .client
        .get("/v1/analytics/journeys", Auth::Session, &pairs_of(&q))
        .await?;
    if ctx.json {
        return print_json(&answer.json);
    }
    let journeys: Journeys = answer.decode()?;
    for (head, rows) in [
        ("NEXT PAGE", &journeys.next),
        ("PREVIOUS PAGE", &journeys.previous),
    ] {
        let mut t = table(&[head, "VISITS"]);
        for r in rows {
            t.add_row(vec![r.page.clone(), r.visits.to_string()]);
        }
        align_right(&mut t, &[1]);
        print_table(&t, "No visits viewed this page in this period.");
        println!();
    }
    Ok(())
}
