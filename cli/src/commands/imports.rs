//! `shipmate analytics imports list|upload|delete`: Plausible's export, applied by the workers.

use std::time::{Duration, Instant};

use anyhow::Context;
use shipmate_types::imports::{AnalyticsImport, ImportList};

use super::{project_id, seg};
use crate::cli::{ImportUploadArgs, ImportsCommand};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::multipart::Multipart;
use crate::output::{print_json, print_table, table};

/// How long `upload --wait` waits for a worker.
const WAIT: Duration = Duration::from_secs(600);

pub async fn run(ctx: &Ctx, command: ImportsCommand) -> anyhow::Result<()> {
    match command {
        ImportsCommand::List(args) => {
            let project = project_id(&ctx.client, &args.project.project).await?;
            let answer = ctx
                .client
                .get(
                    "/v1/analytics/imports",
                    Auth::Session,
                    &[("project_id", project.as_str())],
                )
                .await?;
            if ctx.json {
                return print_json(&answer.json);
            }
            let list: ImportList = answer.decode()?;
            let mut t = table(&["ID", "FILE", "STATUS", "DAYS", "ROWS"]);
            for i in &list.data {
                t.add_row(vec![
                    i.id.to_string(),
                    i.file_name.clone(),
                    status(i),
                    match (i.from, i.to) {
                        (Some(f), Some(t)) => format!("{f} to {t}"),
                        _ => "-".into(),
                    },
                    i.rows.to_string(),
                ]);
            }
            print_table(&t, "No imports yet.");
            Ok(())
        }
        ImportsCommand::Upload(args) => upload(ctx, args).await,
        ImportsCommand::Delete(args) => {
            let path = format!("/v1/analytics/imports/{}", seg(&args.id));
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted import {}", args.id))
        }
    }
}

fn status(i: &AnalyticsImport) -> String {
    match i.status.as_str() {
        "pending" => format!("pending ({}%)", i.progress),
        "failed" => format!("failed: {}", i.error.as_deref().unwrap_or("-")),
        other => other.to_owned(),
    }
}

async fn upload(ctx: &Ctx, args: ImportUploadArgs) -> anyhow::Result<()> {
    let project = project_id(&ctx.client, &args.project.project).await?;
    let data = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export.zip".into());
    let kind = if name.ends_with(".zip") {
        "application/zip"
    } else {
        "text/csv"
    };
    let (content_type, body) = Multipart::new().file("file", &name, kind, &data).finish();
    let path = format!("/v1/analytics/imports?project_id={}", seg(&project));
    let mut answer = ctx
        .client
        .post_raw(&path, Auth::Session, &content_type, body)
        .await?;
    let mut made: AnalyticsImport = answer.decode()?;
    let deadline = Instant::now() + WAIT;
    while args.wait && made.status == "pending" {
        anyhow::ensure!(Instant::now() < deadline, "still pending after {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
        answer = ctx
            .client
            .get(
                "/v1/analytics/imports",
                Auth::Session,
                &[("project_id", project.as_str())],
            )
            .await?;
        let list: ImportList = answer.decode()?;
        made = list
            .data
            .into_iter()
            .find(|i| i.id == made.id)
            .context("the import was deleted meanwhile")?;
        answer.json = serde_json::to_value(&made)?;
    }
    if made.status == "failed" {
        anyhow::bail!(
            "import {} failed: {}",
            made.id,
            made.error.as_deref().unwrap_or("-")
        );
    }
    ctx.done(
        &answer,
        &format!("Import {} of {name}: {}", made.id, status(&made)),
    )
}
