//! `shipmate projects ...`

use serde_json::{json, Value};

use super::{field, resolve_project, Ctx};
use crate::cli::ProjectsCommand;
use crate::client::Auth;
use crate::output::{items, pairs, print_json, print_table, table, text, when};

pub async fn run(ctx: &Ctx, command: ProjectsCommand) -> anyhow::Result<()> {
    match command {
        ProjectsCommand::Create { name, slug } => {
            let body = json!({ "name": name, "slug": slug });
            let project = ctx
                .client
                .post("/v1/projects", Auth::Session, Some(&body))
                .await?;
            if ctx.json {
                return print_json(&project);
            }
            println!(
                "Created project {} ({})",
                text(&project["name"]),
                text(&project["slug"])
            );
            println!("{}", details(&project));
            Ok(())
        }
        ProjectsCommand::List => {
            let list = ctx.client.get("/v1/projects", Auth::Session, &[]).await?;
            if ctx.json {
                return print_json(&list);
            }
            let mut t = table(&["ID", "NAME", "SLUG", "CREATED"]);
            for p in items(&list, "data") {
                t.add_row(vec![
                    text(&p["id"]),
                    text(&p["name"]),
                    text(&p["slug"]),
                    when(&p["created_at"]),
                ]);
            }
            print_table(
                &t,
                "No projects yet. Create one with `shipmate projects create`.",
            );
            Ok(())
        }
        ProjectsCommand::Show { project } => {
            let project = resolve_project(&ctx.client, &project).await?;
            if ctx.json {
                return print_json(&project);
            }
            println!("{}", details(&project));
            Ok(())
        }
        ProjectsCommand::RotateKey { project } => {
            let project = resolve_project(&ctx.client, &project).await?;
            let id = field(&project, "id")?;
            let rotated = ctx
                .client
                .post(
                    &format!("/v1/projects/{id}/api-key/rotate"),
                    Auth::Session,
                    None,
                )
                .await?;
            if ctx.json {
                return print_json(&rotated);
            }
            println!(
                "New API key for {}: {}",
                text(&rotated["slug"]),
                text(&rotated["api_key"])
            );
            eprintln!(
                "The previous key stops working now; update your sites and SDK configuration."
            );
            Ok(())
        }
    }
}

fn details(project: &Value) -> comfy_table::Table {
    pairs(&[
        ("ID", text(&project["id"])),
        ("Name", text(&project["name"])),
        ("Slug", text(&project["slug"])),
        ("API key", text(&project["api_key"])),
        ("Created", when(&project["created_at"])),
    ])
}
