//! `shipmate analytics segments list|create|delete`: saved filters, read with `--segment ID`.

use serde_json::{Map, Value};
use shipmate_types::analytics::{Segment, SegmentList};

use super::{project_id, seg};
use crate::cli::{SegmentCreateArgs, SegmentsCommand};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{print_json, print_table, table};

/// A segment's filters as `name=value` pairs.
fn shown(segment: &Segment) -> String {
    let pairs: Vec<String> = segment
        .filters
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    pairs.join(" ")
}

pub async fn run(ctx: &Ctx, command: SegmentsCommand) -> anyhow::Result<()> {
    match command {
        SegmentsCommand::List(args) => {
            let project = project_id(&ctx.client, &args.project.project).await?;
            let answer = ctx
                .client
                .get(
                    "/v1/analytics/segments",
                    Auth::Session,
                    &[("project_id", project.as_str())],
                )
                .await?;
            if ctx.json {
                return print_json(&answer.json);
            }
            let list: SegmentList = answer.decode()?;
            let mut t = table(&["ID", "NAME", "FILTERS"]);
            for s in &list.data {
                t.add_row(vec![s.id.to_string(), s.name.clone(), shown(s)]);
            }
            print_table(&t, "No segments yet.");
            Ok(())
        }
        SegmentsCommand::Create(args) => create(ctx, *args).await,
        SegmentsCommand::Delete(args) => {
            let path = format!("/v1/analytics/segments/{}", seg(&args.id));
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted segment {}", args.id))
        }
    }
}

async fn create(ctx: &Ctx, args: SegmentCreateArgs) -> anyhow::Result<()> {
    let filters: Map<String, Value> = args
        .filters
        .filters()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), Value::String(v)))
        .collect();
    anyhow::ensure!(
        !filters.is_empty(),
        "give at least one filter (--country DE, --page /pricing, ...)"
    );
    let body = serde_json::json!({
        "project_id": project_id(&ctx.client, &args.project.project).await?,
        "name": args.name,
        "filters": filters,
    });
    let answer = ctx
        .client
        .post("/v1/analytics/segments", Auth::Session, &body)
        .await?;
    let segment: Segment = answer.decode()?;
    ctx.done(
        &answer,
        &format!(
            "Saved segment {} ({}): {}",
            segment.name,
            segment.id,
            shown(&segment)
        ),
    )
}
