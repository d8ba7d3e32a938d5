//! `shipmate analytics alerts list|create|delete`: alerts on the last hour's visitors or a goal's
//! conversions, checked by the workers.

use serde_json::Value;
use shipmate_types::alerts::{Alert, AlertList};

use super::{project_id, seg};
use crate::cli::AlertsCommand;
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{print_json, print_table, table};

pub async fn run(ctx: &Ctx, command: AlertsCommand) -> anyhow::Result<()> {
    match command {
        AlertsCommand::List(args) => {
            let project = project_id(&ctx.client, &args.project.project).await?;
            let answer = ctx
                .client
                .get(
                    "/v1/analytics/alerts",
                    Auth::Session,
                    &[("project_id", project.as_str())],
                )
                .await?;
            if ctx.json {
                return print_json(&answer.json);
            }
            let list: AlertList = answer.decode()?;
            let mut t = table(&["ID", "KIND", "THRESHOLD", "LAST HOUR", "GOING OFF"]);
            for a in &list.data {
                t.add_row(vec![
                    a.id.to_string(),
                    a.kind.as_str().to_owned(),
                    a.threshold.to_string(),
                    a.value.map_or_else(|| "-".into(), |v| v.to_string()),
                    if a.firing { "yes" } else { "no" }.into(),
                ]);
            }
            print_table(&t, "No alerts yet.");
            Ok(())
        }
        AlertsCommand::Create(args) => {
            let mut body = serde_json::json!({
                "project_id": project_id(&ctx.client, &args.project.project).await?,
                "kind": args.kind,
                "threshold": args.threshold,
            });
            if let Some(goal) = args.goal {
                body["goal_id"] = Value::String(goal);
            }
            let answer = ctx
                .client
                .post("/v1/analytics/alerts", Auth::Session, &body)
                .await?;
            let alert: Alert = answer.decode()?;
            ctx.done(
                &answer,
                &format!("Set alert {} ({})", alert.id, alert.kind.as_str()),
            )
        }
        AlertsCommand::Delete(args) => {
            let path = format!("/v1/analytics/alerts/{}", seg(&args.id));
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted alert {}", args.id))
        }
    }
}
