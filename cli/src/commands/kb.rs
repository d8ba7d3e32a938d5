//! Knowledge base: `shipmate indexes ...`, `shipmate docs upload`, `shipmate search`.
//! These are API-key endpoints; the CLI calls them with the session naming the project
//! (`X-Project-Id`), so members work here without the secret key owners and admins hold.

mod upload;

use serde_json::{json, Value};

use super::{project_id, seg, Ctx};
use crate::cli::{DocsCommand, IndexesCommand, SearchArgs};
use crate::client::Auth;
use crate::output::{align_right, items, one_line, print_json, print_table, table, text};

pub async fn indexes(ctx: &Ctx, command: IndexesCommand) -> anyhow::Result<()> {
    match command {
        IndexesCommand::Create {
            project,
            name,
            model,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let mut body = json!({ "name": name });
            if let Some(m) = model {
                body["embedding_model"] = Value::String(m);
            }
            let index = ctx
                .client
                .post("/v1/indexes", Auth::InProject(&pid), Some(&body))
                .await?;
            if ctx.json {
                return print_json(&index);
            }
            println!(
                "Created index {} ({}) using {} ({} dimensions)",
                text(&index["name"]),
                text(&index["id"]),
                text(&index["embedding_model"]),
                text(&index["dimensions"]),
            );
            Ok(())
        }
        IndexesCommand::List { project } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let list = ctx
                .client
                .get("/v1/indexes", Auth::InProject(&pid), &[])
                .await?;
            if ctx.json {
                return print_json(&list);
            }
            let mut t = table(&["ID", "NAME", "MODEL", "DOCUMENTS", "CHUNKS"]);
            for i in items(&list, "data") {
                t.add_row(vec![
                    text(&i["id"]),
                    text(&i["name"]),
                    text(&i["embedding_model"]),
                    text(&i["document_count"]),
                    text(&i["chunk_count"]),
                ]);
            }
            align_right(&mut t, &[3, 4]);
            print_table(
                &t,
                "No indexes yet. Create one with `shipmate indexes create`.",
            );
            Ok(())
        }
        IndexesCommand::Delete { index, project } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let answer = ctx
                .client
                .delete(
                    &format!("/v1/indexes/{}", seg(&index)),
                    Auth::InProject(&pid),
                    &[],
                )
                .await?;
            if ctx.json {
                return print_json(&answer);
            }
            println!("Deleted index {index}");
            Ok(())
        }
    }
}

pub async fn docs(ctx: &Ctx, command: DocsCommand) -> anyhow::Result<()> {
    match command {
        DocsCommand::Upload(args) => upload::run(ctx, args).await,
    }
}

pub async fn search(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let body = json!({ "query": args.query, "top_k": args.top_k });
    let answer = ctx
        .client
        .post(
            &format!("/v1/indexes/{}/search", seg(&args.index)),
            Auth::InProject(&pid),
            Some(&body),
        )
        .await?;
    if ctx.json {
        return print_json(&answer);
    }
    let mut t = table(&["#", "SCORE", "DOCUMENT", "SOURCE", "TEXT"]);
    for (rank, r) in items(&answer, "results").iter().enumerate() {
        t.add_row(vec![
            (rank + 1).to_string(),
            format!("{:.4}", r["score"].as_f64().unwrap_or(0.0)),
            text(&r["document_id"]),
            text(&r["metadata"]["path"]),
            one_line(&text(&r["chunk_content"]), 80),
        ]);
    }
    align_right(&mut t, &[0, 1]);
    print_table(&t, "No results.");
    Ok(())
}
