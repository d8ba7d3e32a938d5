//! `shipmate projects ...`

use serde_json::json;
use shipmate_types::common::List;
use shipmate_types::projects::{NewProject, ProjectView};

use super::{project_id, resolve_project};
use crate::cli::ProjectsCommand;
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{pairs, print_json, print_table, table, when};

pub async fn run(ctx: &Ctx, command: ProjectsCommand) -> anyhow::Result<()> {
    match command {
        ProjectsCommand::Create { name, slug } => {
            let created = ctx
                .client
                .post("/v1/projects", Auth::Session, &NewProject { name, slug })
                .await?;
            ctx.show(&created, |project: ProjectView| {
                println!("Created project {} ({})", project.name, project.slug);
                println!("{}", details(&project));
                Ok(())
            })
        }
        ProjectsCommand::List => {
            let list = ctx.client.get("/v1/projects", Auth::Session, &[]).await?;
            ctx.show(&list, |list: List<ProjectView>| {
                let mut t = table(&["ID", "NAME", "SLUG", "ROLE", "CREATED"]);
                for p in list.data {
                    t.add_row(vec![
                        p.id.to_string(),
                        p.name,
                        p.slug,
                        p.role.to_string(),
                        when(p.created_at),
                    ]);
                }
                print_table(
                    &t,
                    "No projects yet. Create one with `shipmate projects create`.",
                );
                Ok(())
            })
        }
        ProjectsCommand::Show { project } => {
            // By id, so `--json` prints the server's own answer for the project.
            let pid = project_id(&ctx.client, &project).await?;
            let project = ctx
                .client
                .get(&format!("/v1/projects/{pid}"), Auth::Session, &[])
                .await?;
            ctx.show(&project, |project: ProjectView| {
                println!("{}", details(&project));
                Ok(())
            })
        }
        ProjectsCommand::RotateKey {
            project,
            publishable,
        } => {
            let pid = project_id(&ctx.client, &project).await?;
            let (path, which) = if publishable {
                ("publishable-key", "publishable key")
            } else {
                ("api-key", "secret API key")
            };
            let rotated = ctx
                .client
                .post_empty(&format!("/v1/projects/{pid}/{path}/rotate"), Auth::Session)
                .await?;
            ctx.show(&rotated, |rotated: ProjectView| {
                let key = if publishable {
                    Some(rotated.publishable_key)
                } else {
                    rotated.api_key
                };
                let key = key.ok_or_else(|| {
                    anyhow::anyhow!("the server rotated the {which} but did not show it")
                })?;
                println!("New {which} for {}: {key}", rotated.slug);
                eprintln!("The previous key stops working now; update what uses it.");
                Ok(())
            })
        }
        ProjectsCommand::Snippet { project } => {
            let project = resolve_project(&ctx.client, &project).await?;
            let key = project.publishable_key;
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

fn details(project: &ProjectView) -> comfy_table::Table {
    pairs(&[
        ("ID", project.id.to_string()),
        ("Name", project.name.clone()),
        ("Slug", project.slug.clone()),
        ("Your role", project.role.to_string()),
        ("Publishable key", project.publishable_key.clone()),
        (
            "Secret API key (server-side only)",
            project
                .api_key
                .clone()
                .unwrap_or_else(|| "(shown to owners and admins)".to_owned()),
        ),
        ("Created", when(project.created_at)),
    ])
}
