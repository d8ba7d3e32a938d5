//! `shipmate webhooks ...`: a project's webhook endpoints and their deliveries (docs/webhooks.md).

use shipmate_types::common::List;
use shipmate_types::webhooks::{Delivery, NewWebhook, Webhook};
use shipmate_types::EventType;

use super::{project_id, seg};
use crate::cli::{ProjectArg, WebhooksCommand};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{or_dash, print_table, table, when};

pub async fn run(ctx: &Ctx, command: WebhooksCommand) -> anyhow::Result<()> {
    match command {
        WebhooksCommand::List { project } => list(ctx, &project).await,
        WebhooksCommand::Create {
            url,
            events,
            description,
            format,
            project,
        } => {
            let new = NewWebhook {
                url,
                events,
                description,
                format,
            };
            create(ctx, &project, &new).await
        }
        WebhooksCommand::Deliveries { webhook, project } => {
            deliveries(ctx, &project, &webhook).await
        }
        WebhooksCommand::Test { webhook, project } => {
            let path = format!("{}/test", hook_path(ctx, &project, &webhook).await?);
            let queued = ctx.client.post_empty(&path, Auth::Session).await?;
            ctx.done(
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
            let retried = ctx.client.post_empty(&path, Auth::Session).await?;
            ctx.show(&retried, |d: Delivery| {
                println!("Delivery {} queued again.", d.id);
                Ok(())
            })
        }
        WebhooksCommand::Delete { webhook, project } => {
            let path = hook_path(ctx, &project, &webhook).await?;
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted webhook {webhook}."))
        }
        WebhooksCommand::Events => {
            let events = ctx
                .client
                .get("/v1/webhooks/events", Auth::None, &[])
                .await?;
            ctx.show(&events, |events: List<EventType>| {
                for e in events.data {
                    println!("{e}");
                }
                Ok(())
            })
        }
    }
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
    ctx.show(&list, |list: List<Webhook>| {
        let mut t = table(&["ID", "URL", "FORMAT", "EVENTS", "ENABLED", "CREATED"]);
        for h in list.data {
            t.add_row(vec![
                h.id.to_string(),
                h.url,
                h.format.to_string(),
                h.events.join(","),
                (if h.enabled { "yes" } else { "no" }).to_owned(),
                when(h.created_at),
            ]);
        }
        print_table(
            &t,
            "No webhooks. Add one with `shipmate webhooks create <url>`.",
        );
        Ok(())
    })
}

async fn create(ctx: &Ctx, project: &ProjectArg, new: &NewWebhook) -> anyhow::Result<()> {
    let created = ctx
        .client
        .post(&hooks_path(ctx, project).await?, Auth::Session, new)
        .await?;
    ctx.show(&created, |hook: Webhook| {
        // The secret alone on stdout, so `secret=$(shipmate webhooks create ...)` works.
        eprintln!(
            "Added webhook {} for {}. Its signing secret (verify deliveries with it; docs/webhooks.md):",
            hook.id, hook.url,
        );
        println!("{}", hook.secret);
        Ok(())
    })
}

async fn deliveries(ctx: &Ctx, project: &ProjectArg, webhook: &str) -> anyhow::Result<()> {
    let path = format!("{}/deliveries", hook_path(ctx, project, webhook).await?);
    let list = ctx.client.get(&path, Auth::Session, &[]).await?;
    ctx.show(&list, |list: List<Delivery>| {
        let mut t = table(&[
            "ID",
            "TYPE",
            "STATUS",
            "ATTEMPTS",
            "LAST CODE",
            "NEXT ATTEMPT",
            "CREATED",
        ]);
        for d in list.data {
            t.add_row(vec![
                d.id.to_string(),
                d.kind.to_string(),
                d.status.to_string(),
                d.attempts.to_string(),
                or_dash(d.last_status_code),
                when(d.next_attempt_at),
                when(d.created_at),
            ]);
        }
        print_table(&t, "No deliveries yet.");
        Ok(())
    })
}
