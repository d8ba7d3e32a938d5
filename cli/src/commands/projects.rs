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
            let mut t = table(&["ID", "NAME", "SLUG", "ROLE", "CREATED"]);
            for p in items(&list, "data") {
                t.add_row(vec![
                    text(&p["id"]),
                    text(&p["name"]),
                    text(&p["slug"]),
                    text(&p["role"]),
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
        ProjectsCommand::RotateKey {
            project,
            publishable,
        } => {
            let project = resolve_project(&ctx.client, &project).await?;
            let id = field(&project, "id")?;
            let (path, which, field_name) = if publishable {
                ("publishable-key", "publishable key", "publishable_key")
            } else {
                ("api-key", "secret API key", "api_key")
            };
            let rotated = ctx
                .client
                .post(
                    &format!("/v1/projects/{id}/{path}/rotate"),
                    Auth::Session,
                    None,
                )
                .await?;
            if ctx.json {
                return print_json(&rotated);
            }
            println!(
                "New {which} for {}: {}",
                text(&rotated["slug"]),
                text(&rotated[field_name])
            );
            eprintln!("The previous key stops working now; update what uses it.");
            Ok(())
        }
        ProjectsCommand::Snippet { project } => {
            let project = resolve_project(&ctx.client, &project).await?;
            let key = field(&project, "publishable_key")?;
            let base = ctx.client.base();
            let tag = format!(
                "<script defer data-project=\"{key}\" data-api=\"{base}\" src=\"{base}/sdk/sm.js\"></script>"
            );
            if ctx.json {
                return print_json(&json!({ "script_tag": tag }));
            }
            println!("{tag}");
            eprintln!(
                "Paste it into the <head> of every page; it carries the publishable key only."
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
        ("Your role", text(&project["role"])),
        ("Publishable key", text(&project["publishable_key"])),
        (
            "Secret API key (server-side only)",
            match project["api_key"].as_str() {
                Some(k) => k.to_owned(),
                None => "(shown to owners and admins)".to_owned(),
            },
        ),
        ("Created", when(&project["created_at"])),
    ])
}
