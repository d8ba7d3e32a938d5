//! `shipmate webhooks ...`: a project's webhook endpoints and their deliveries (docs/webhooks.md).

use serde_json::{json, Value};

use super::{field, project_id, seg, Ctx};
use crate::cli::{ProjectArg, WebhooksCommand};
use crate::client::Auth;
use crate::output::{items, print_json, print_table, table, text, when};

pub async fn run(ctx: &Ctx, command: WebhooksCommand) -> anyhow::Result<()> {
    match command {
        WebhooksCommand::List { project } => list(ctx, &project).await,
        WebhooksCommand::Create {
            url,
            events,
            description,
            project,
        } => create(ctx, &project, &url, &events, description).await,
        WebhooksCommand::Deliveries { webhook, project } => {
            deliveries(ctx, &project, &webhook).await
        }
        WebhooksCommand::Test { webhook, project } => {
            let path = format!("{}/test", hook_path(ctx, &project, &webhook).await?);
            let queued = ctx.client.post(&path, Auth::Session, None).await?;
            done(
                ctx,
                &queued,
                "Ping queued; `shipmate webhooks deliveries` shows how it went.",
            )
        }
        WebhooksCommand::Retry {
            webhook,
            delivery,
            project,
        } => {
            let path = format!(
                "{}/deliveries/{}/retry",
                hook_path(ctx, &project, &webhook).await?,
                seg(&delivery)
            );
            let d = ctx.client.post(&path, Auth::Session, None).await?;
            done(
                ctx,
                &d,
                &format!("Delivery {} queued again.", text(&d["id"])),
            )
        }
        WebhooksCommand::Delete { webhook, project } => {
            let path = hook_path(ctx, &project, &webhook).await?;
            let d = ctx.client.delete(&path, Auth::Session, &[]).await?;
            done(ctx, &d, &format!("Deleted webhook {webhook}."))
        }
        WebhooksCommand::Events => {
            let events = ctx
                .client
                .get("/v1/webhooks/events", Auth::None, &[])
                .await?;
            if ctx.json {
                return print_json(&events);
            }
            for e in items(&events, "data") {
                println!("{}", text(e));
            }
            Ok(())
        }
    }
}

fn done(ctx: &Ctx, answer: &Value, message: &str) -> anyhow::Result<()> {
    if ctx.json {
        return print_json(answer);
    }
    println!("{message}");
    Ok(())
}

async fn hooks_path(ctx: &Ctx, project: &ProjectArg) -> anyhow::Result<String> {
    let pid = project_id(&ctx.client, &project.project).await?;
    Ok(format!("/v1/projects/{pid}/webhooks"))
}

async fn hook_path(ctx: &Ctx, project: &ProjectArg, webhook: &str) -> anyhow::Result<String> {
    Ok(format!(
        "{}/{}",
        hooks_path(ctx, project).await?,
        seg(webhook)
    ))
}

async fn list(ctx: &Ctx, project: &ProjectArg) -> anyhow::Result<()> {
    let list = ctx
        .client
        .get(&hooks_path(ctx, project).await?, Auth::Session, &[])
        .await?;
    if ctx.json {
        return print_json(&list);
    }
    let mut t = table(&["ID", "URL", "EVENTS", "ENABLED", "CREATED"]);
    for h in items(&list, "data") {
        let events: Vec<String> = items(h, "events").iter().map(text).collect();
        t.add_row(vec![
            text(&h["id"]),
            text(&h["url"]),
            events.join(","),
            text(&h["enabled"]),
            when(&h["created_at"]),
        ]);
    }
    print_table(
        &t,
        "No webhooks. Add one with `shipmate webhooks create <url>`.",
    );
    Ok(())
}

async fn create(
    ctx: &Ctx,
    project: &ProjectArg,
    url: &str,
    events: &[String],
    description: Option<String>,
) -> anyhow::Result<()> {
    let hook = ctx
        .client
        .post(
            &hooks_path(ctx, project).await?,
            Auth::Session,
            Some(&json!({ "url": url, "events": events, "description": description })),
        )
        .await?;
    if ctx.json {
        return print_json(&hook);
    }
    // The secret alone on stdout, so `secret=$(shipmate webhooks create ...)` works.
    eprintln!(
        "Added webhook {} for {}. Its signing secret (verify deliveries with it; docs/webhooks.md):",
        text(&hook["id"]),
        text(&hook["url"]),
    );
    println!("{}", field(&hook, "secret")?);
    Ok(())
}

async fn deliveries(ctx: &Ctx, project: &ProjectArg, webhook: &str) -> anyhow::Result<()> {
    let path = format!("{}/deliveries", hook_path(ctx, project, webhook).await?);
    let list = ctx.client.get(&path, Auth::Session, &[]).await?;
    if ctx.json {
        return print_json(&list);
    }
    let mut t = table(&[
        "ID",
        "TYPE",
        "STATUS",
        "ATTEMPTS",
        "LAST CODE",
        "NEXT ATTEMPT",
        "CREATED",
    ]);
    for d in items(&list, "data") {
        t.add_row(vec![
            text(&d["id"]),
            text(&d["type"]),
            text(&d["status"]),
            text(&d["attempts"]),
            text(&d["last_status_code"]),
            when(&d["next_attempt_at"]),
            when(&d["created_at"]),
        ]);
    }
    print_table(&t, "No deliveries yet.");
    Ok(())
}
